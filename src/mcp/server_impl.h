#pragma once
// The server's private parts, shared by the files that each implement one
// concern of it: the JSON-RPC envelope (envelope.cpp), the era of a request
// and the lifecycle methods (negotiation.cpp), asking the client (ask.cpp),
// log forwarding (log_forwarding.cpp), the tools/* methods
// (tool_methods.cpp) and the resources/* and subscription methods
// (resource_methods.cpp). server.cpp holds the method table and the loop.

#include <spdlog/common.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

#include "admission_gate.h"
#include "togmal/mcp/jsonrpc.h"
#include "togmal/mcp/reply_once.h"
#include "togmal/mcp/request_state.h"
#include "togmal/mcp/server.h"
#include "worker_pool.h"

namespace togmal::mcp {

inline constexpr char kMetaProtocolVersion[] = "io.modelcontextprotocol/protocolVersion";
inline constexpr char kMetaClientCapabilities[] = "io.modelcontextprotocol/clientCapabilities";
inline constexpr char kMetaClientInfo[] = "io.modelcontextprotocol/clientInfo";
inline constexpr char kMetaLogLevel[] = "io.modelcontextprotocol/logLevel";
inline constexpr char kMetaServerInfo[] = "io.modelcontextprotocol/serverInfo";
inline constexpr char kMetaSubscriptionId[] = "io.modelcontextprotocol/subscriptionId";

/// Cache hints (modern): the tool and resource lists are fixed for the life
/// of the process; resource contents change at any time and may be personal.
inline constexpr std::int64_t kStableTtlMs = 3'600'000;

enum class Era { kLegacy, kModern };

/// Bookkeeping of one request in flight (cancellation, Ask waits).
struct InFlight {
  std::mutex mutex;
  std::condition_variable changed;
  std::atomic<bool> cancelled{false};
};

/// What a handler knows about the request it serves.
struct CallContext {
  Era era = Era::kLegacy;
  std::string version;
  json id;
  json client_capabilities = json::object();
  std::string client_name;
  int log_rank = -1;  ///< modern `_meta` logLevel, -1 = no log notifications
  std::shared_ptr<InFlight> flight;
  Server::Impl* server = nullptr;  ///< the server handling it (log records go to it alone)
};

/// A server→client request waiting for its reply (legacy Ask).
struct Outgoing {
  std::shared_ptr<InFlight> flight;  ///< guards the fields below
  bool done = false;
  json result;
  json error;  ///< JSON-RPC error object, or {"message": ...} for local failures
};

/// The request the current thread is handling (log forwarding reads its
/// era and `_meta` log level); null outside a handler.
extern thread_local const CallContext* t_current_call;

/// The key of a request id in the server's maps.
inline std::string IdKey(const json& id) { return id.dump(); }

/// MCP (syslog) log level names in increasing severity; the index is a rank.
inline constexpr std::array<std::string_view, 8> kLogLevels = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

/// The rank of an MCP log level name, -1 if it is none.
int LogLevelRank(std::string_view name);

/// Sends records of the default logger to `target` from now on. One server
/// receives them at a time: the one attached last.
void AttachLogForwarding(Server::Impl* target);
/// Stops sending records to `target`, if it is the one attached.
void DetachLogForwarding(Server::Impl* target);

/// The method table's vocabulary: where a method exists, where it runs, and
/// what it needs of the legacy session.
enum class Eras { kLegacy, kModern, kBoth };
enum class Runs {
  kInline,    ///< cheap: answered on the reader thread
  kOnWorker,  ///< may block: runs on the pool, off the reader thread
};
enum class Session {
  kRequired,  ///< legacy use needs `initialize` first
  kOptional,  ///< also answered before `initialize` (ping)
  kOpens,     ///< opens it: always legacy, whatever `_meta` claims (initialize)
};

class ToolCallContext;

class Server::Impl {
 public:
  Impl(Transport& transport, const ToolRegistry& tools, const ResourceRegistry& resources,
       ServerOptions options);

  int Run();
  void NotifyResourceUpdated(const std::string& uri);
  /// Called by the log sink for every record of the default logger.
  void ForwardLog(spdlog::level::level_enum level, const std::string& text);

 private:
  friend class ToolCallContext;
  using ResponseSink = std::function<void(json)>;
  using Handler = void (Impl::*)(const json& params, const CallContext& call, ReplyOnce reply);
  struct MethodSpec {
    Handler handler;
    Eras eras;
    Runs runs;
    Session session;
  };
  struct LegacySession {
    std::string version;
    json client_capabilities = json::object();
    std::string client_name;
    std::set<std::string> subscriptions;
  };
  struct Listener {
    json id;
    bool tools_list_changed = false;
    bool resources_list_changed = false;
    std::set<std::string> uris;
    std::optional<ReplyOnce> reply;
  };

  // ---- envelope.cpp: lines, batches, messages, responses, notifications
  void HandleLine(const std::string& line);
  void HandleBatch(const json& batch);
  /// Handles one message; true if exactly one reply will go to `sink`.
  /// `message` by value: its params move on to the method.
  bool HandleMessage(json message, const ResponseSink& sink);
  void HandleResponse(const json& message);
  void HandleNotification(const std::string& method, const json& params);
  void Cancel(const json& request_id);
  void Send(const json& message);

  // ---- negotiation.cpp: the era of a request, dispatch, lifecycle methods
  /// `params` by value: moved on to the worker that runs the method.
  void HandleRequest(const json& id, const std::string& method, json params,
                     const ResponseSink& sink);
  /// Fills `call` with the era and client of a request; the error otherwise.
  std::optional<RpcError> ResolveEra(const std::string& method, const MethodSpec& spec,
                                     const json& params, CallContext& call);
  std::optional<RpcError> ResolveModern(const std::string& method, const MethodSpec& spec,
                                        const json& meta, CallContext& call);
  std::optional<RpcError> ResolveLegacy(const std::string& method, const MethodSpec& spec,
                                        CallContext& call);
  void Dispatch(const MethodSpec& spec, json params, CallContext call, ReplyOnce reply);
  void DecorateModern(json& response) const;
  void Initialize(const json& params, const CallContext& call, ReplyOnce reply);
  void Ping(const json& params, const CallContext& call, ReplyOnce reply);
  void Discover(const json& params, const CallContext& call, ReplyOnce reply);
  json ServerCapabilities(Era era) const;
  static void AddCacheHints(json& result, const CallContext& call, std::int64_t ttl_ms,
                            const char* scope);
  bool RejectCursor(const json& params, ReplyOnce& reply) const;

  // ---- log_forwarding.cpp
  void LoggingSetLevel(const json& params, const CallContext& call, ReplyOnce reply);
  void SetLoggerLevelAtLeast(int rank);

  // ---- tool_methods.cpp
  void ToolsList(const json& params, const CallContext& call, ReplyOnce reply);
  void ToolsCall(const json& params, const CallContext& call, ReplyOnce reply);
  json ToolToJson(const Tool& tool, const CallContext& call) const;
  json ToolResultToJson(ToolResult result, const CallContext& call) const;

  // ---- ask.cpp: asking the client in both eras
  /// Modern: the answers a retried call carries in its requestState (and
  /// inputResponses); an invalid-params message otherwise.
  Result<json> AnswersOfRetry(const std::string& tool, const json& arguments, const json& params);
  /// Modern: the reply to a call whose handler is waiting for input.
  void ReplyInputRequired(const std::string& tool, const json& arguments,
                          const ToolCallContext& context, ReplyOnce& reply);
  /// Legacy Ask: a server→client request; blocks the calling worker.
  Result<json> AskClient(const CallContext& call, const std::string& method, const json& params);
  void FailAllOutgoing(const std::string& why);

  // ---- resource_methods.cpp: resources/* and subscriptions
  void ResourcesList(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourceTemplatesList(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourcesRead(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourcesSubscribe(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourcesUnsubscribe(const json& params, const CallContext& call, ReplyOnce reply);
  void SubscriptionsListen(const json& params, const CallContext& call, ReplyOnce reply);
  void CloseListeners();

  Transport& transport_;
  const ToolRegistry& tools_;
  const ResourceRegistry& resources_;
  ServerOptions options_;
  std::unordered_map<std::string, MethodSpec> methods_;
  RequestStateCodec request_states_;

  std::mutex session_mutex_;
  std::optional<LegacySession> session_;
  std::atomic<int> legacy_log_rank_{-1};

  std::mutex flights_mutex_;
  std::unordered_map<std::string, std::shared_ptr<InFlight>> flights_;

  std::mutex outgoing_mutex_;
  std::unordered_map<std::string, std::shared_ptr<Outgoing>> outgoing_;
  std::uint64_t next_outgoing_id_ = 0;
  bool closing_ = false;  ///< guarded by outgoing_mutex_

  std::mutex listeners_mutex_;
  std::map<std::string, Listener> listeners_;
  std::atomic<bool> running_{false};

  AdmissionGate admission_;
  /// Reader thread: input bytes each request of the current line is charged.
  std::size_t request_bytes_ = 0;
  WorkerPool pool_;
};

}  // namespace togmal::mcp
