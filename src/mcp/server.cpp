#include "togmal/mcp/server.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "togmal/mcp/jsonrpc.h"
#include "togmal/mcp/reply_once.h"
#include "togmal/mcp/request_state.h"
#include "togmal/mcp/schema_validation.h"
#include "worker_pool.h"

namespace togmal::mcp {
namespace {

constexpr char kMetaProtocolVersion[] = "io.modelcontextprotocol/protocolVersion";
constexpr char kMetaClientCapabilities[] = "io.modelcontextprotocol/clientCapabilities";
constexpr char kMetaClientInfo[] = "io.modelcontextprotocol/clientInfo";
constexpr char kMetaLogLevel[] = "io.modelcontextprotocol/logLevel";
constexpr char kMetaServerInfo[] = "io.modelcontextprotocol/serverInfo";
constexpr char kMetaSubscriptionId[] = "io.modelcontextprotocol/subscriptionId";

/// Legacy revisions, newest first (the newest is the negotiation fallback).
constexpr std::array<std::string_view, 4> kLegacyVersions = {"2025-11-25", "2025-06-18",
                                                             "2025-03-26", "2024-11-05"};
constexpr std::string_view kBatchVersion = "2025-03-26";

/// Cache hints (modern): the tool and resource lists are fixed for the life
/// of the process; resource contents change at any time and may be personal.
constexpr std::int64_t kStableTtlMs = 3'600'000;

/// MCP (syslog) log levels in increasing severity.
constexpr std::array<std::string_view, 8> kLogLevels = {"debug", "info",     "notice", "warning",
                                                        "error", "critical", "alert",  "emergency"};

int LogLevelRank(std::string_view name) {
  for (std::size_t i = 0; i < kLogLevels.size(); ++i) {
    if (kLogLevels[i] == name) return static_cast<int>(i);
  }
  return -1;
}

int RankOf(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return 0;
    case spdlog::level::info:
      return 1;
    case spdlog::level::warn:
      return 3;
    case spdlog::level::err:
      return 4;
    case spdlog::level::critical:
      return 5;
    default:
      return -1;
  }
}

spdlog::level::level_enum SpdlogLevelFor(int rank) {
  switch (rank) {
    case 0:
      return spdlog::level::debug;
    case 1:
    case 2:
      return spdlog::level::info;
    case 3:
      return spdlog::level::warn;
    case 4:
      return spdlog::level::err;
    default:
      return spdlog::level::critical;
  }
}

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
};

/// A server→client request waiting for its reply (legacy Ask).
struct Outgoing {
  std::shared_ptr<InFlight> flight;  ///< guards the fields below
  bool done = false;
  json result;
  json error;  ///< JSON-RPC error object, or {"message": ...} for local failures
};

/// Thrown through a tool handler to end it when a modern Ask needs input.
/// Deliberately not a std::exception, so `catch (const std::exception&)` in a
/// handler does not swallow it.
struct AskInterrupt {};

std::optional<ClientFeature> FeatureOfMethod(std::string_view method) {
  if (method == "sampling/createMessage") return ClientFeature::kSampling;
  if (method == "elicitation/create") return ClientFeature::kElicitation;
  if (method == "roots/list") return ClientFeature::kRoots;
  return std::nullopt;
}

const char* CapabilityName(ClientFeature feature) {
  switch (feature) {
    case ClientFeature::kSampling:
      return "sampling";
    case ClientFeature::kElicitation:
      return "elicitation";
    case ClientFeature::kRoots:
      return "roots";
  }
  return "unknown";
}

bool HasCapability(const json& capabilities, ClientFeature feature) {
  auto it = capabilities.find(CapabilityName(feature));
  return it != capabilities.end() && it->is_object();
}

bool IsLegacyVersion(std::string_view version) {
  return std::find(kLegacyVersions.begin(), kLegacyVersions.end(), version) !=
         kLegacyVersions.end();
}

std::string IdKey(const json& id) { return id.dump(); }

thread_local const CallContext* t_current_call = nullptr;
thread_local bool t_forwarding_log = false;

class LogForwardingSink;
LogForwardingSink& ForwardingSink();

}  // namespace

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
    bool legacy;     ///< served to legacy sessions
    bool modern;     ///< served to requests with a modern `_meta` claim
    bool on_worker;  ///< may block: runs on the pool, off the reader thread
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

  void HandleLine(const std::string& line);
  void HandleBatch(const json& batch);
  /// Handles one message; true if exactly one reply will go to `sink`.
  bool HandleMessage(const json& message, const ResponseSink& sink);
  void HandleRequest(const json& id, const std::string& method, const json& params,
                     const ResponseSink& sink);
  void HandleResponse(const json& message);
  void HandleNotification(const std::string& method, const json& params);
  void Cancel(const json& request_id);
  void Send(const json& message);
  void DecorateModern(json& response) const;
  void SetLoggerLevelAtLeast(int rank);

  // Method handlers (the table in the constructor).
  void Initialize(const json& params, const CallContext& call, ReplyOnce reply);
  void Ping(const json& params, const CallContext& call, ReplyOnce reply);
  void Discover(const json& params, const CallContext& call, ReplyOnce reply);
  void ToolsList(const json& params, const CallContext& call, ReplyOnce reply);
  void ToolsCall(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourcesList(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourceTemplatesList(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourcesRead(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourcesSubscribe(const json& params, const CallContext& call, ReplyOnce reply);
  void ResourcesUnsubscribe(const json& params, const CallContext& call, ReplyOnce reply);
  void LoggingSetLevel(const json& params, const CallContext& call, ReplyOnce reply);
  void SubscriptionsListen(const json& params, const CallContext& call, ReplyOnce reply);

  json ServerCapabilities(Era era) const;
  json ToolToJson(const Tool& tool, const CallContext& call) const;
  json ToolResultToJson(ToolResult result, const CallContext& call) const;
  static void AddCacheHints(json& result, const CallContext& call, std::int64_t ttl_ms,
                            const char* scope);
  bool RejectCursor(const json& params, ReplyOnce& reply) const;

  /// Legacy Ask: a server→client request; blocks the calling worker.
  Result<json> AskClient(const CallContext& call, const std::string& method, const json& params);
  void FailAllOutgoing(const std::string& why);
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

  WorkerPool pool_;
};

namespace {

/// Forwards records of spdlog's default logger to the client as
/// `notifications/message` (legacy after logging/setLevel; modern for the
/// request being handled on this thread if it carried a logLevel). One sink
/// for the process, attached once; the target server is swapped under the
/// sink's own mutex so a server never receives a record after it detached.
class LogForwardingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  void SetTarget(Server::Impl* target) {
    std::lock_guard lock(mutex_);
    target_ = target;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (target_ == nullptr || t_forwarding_log) return;
    t_forwarding_log = true;  // a record logged while forwarding is not forwarded
    target_->ForwardLog(msg.level, std::string(msg.payload.data(), msg.payload.size()));
    t_forwarding_log = false;
  }
  void flush_() override {}

 private:
  Server::Impl* target_ = nullptr;
};

// Never destroyed: loggers may outlive any static destructor order.
const std::shared_ptr<LogForwardingSink>& ForwardingSinkPtr() {
  static const auto* sink =
      new std::shared_ptr<LogForwardingSink>(std::make_shared<LogForwardingSink>());
  return *sink;
}

LogForwardingSink& ForwardingSink() { return *ForwardingSinkPtr(); }

void AttachForwardingSink(Server::Impl* target) {
  auto logger = spdlog::default_logger();
  auto& sinks = logger->sinks();
  bool attached = std::any_of(sinks.begin(), sinks.end(), [](const spdlog::sink_ptr& sink) {
    return sink.get() == &ForwardingSink();
  });
  if (!attached) sinks.push_back(ForwardingSinkPtr());
  ForwardingSink().SetTarget(target);
}

}  // namespace

/// The ToolContext a handler gets: one era-independent Ask.
class ToolCallContext final : public ToolContext {
 public:
  ToolCallContext(Server::Impl& server, const CallContext& call, json answers)
      : server_(server), call_(call), answers_(std::move(answers)) {}

  bool ClientSupports(ClientFeature feature) const override {
    return HasCapability(call_.client_capabilities, feature);
  }

  Result<json> Ask(const std::string& key, const std::string& method, const json& params) override {
    std::optional<ClientFeature> feature = FeatureOfMethod(method);
    if (!feature) {
      return Fail("cannot ask the client '" + method +
                  "': expected sampling/createMessage, elicitation/create or roots/list");
    }
    if (call_.era == Era::kLegacy) {
      if (!ClientSupports(*feature)) {
        return Fail(std::string("the client did not declare the '") + CapabilityName(*feature) +
                    "' capability");
      }
      return server_.AskClient(call_, method, params);
    }
    // Modern: answered on an earlier round trip, or end the handler here.
    if (interrupted_) throw AskInterrupt{};
    if (auto it = answers_.find(key); it != answers_.end()) return *it;
    interrupted_ = true;
    if (!ClientSupports(*feature)) {
      missing_capability_ = CapabilityName(*feature);
    } else {
      question_key_ = key;
      question_ = {{"method", method}, {"params", params}};
    }
    throw AskInterrupt{};
  }

  bool Cancelled() const override { return call_.flight && call_.flight->cancelled.load(); }
  std::string ClientName() const override { return call_.client_name; }

  bool interrupted() const { return interrupted_; }
  const std::string& missing_capability() const { return missing_capability_; }
  const std::string& question_key() const { return question_key_; }
  const json& question() const { return question_; }
  const json& answers() const { return answers_; }

 private:
  Server::Impl& server_;
  const CallContext& call_;
  json answers_;
  bool interrupted_ = false;
  std::string missing_capability_;
  std::string question_key_;
  json question_;
};

Server::Impl::Impl(Transport& transport, const ToolRegistry& tools,
                   const ResourceRegistry& resources, ServerOptions options)
    : transport_(transport),
      tools_(tools),
      resources_(resources),
      options_(std::move(options)),
      request_states_(options_.request_state_lifetime),
      pool_(options_.workers) {
  methods_ = {
      {"ping", {&Impl::Ping, true, false, false}},
      {"server/discover", {&Impl::Discover, false, true, false}},
      {"tools/list", {&Impl::ToolsList, true, true, false}},
      {"tools/call", {&Impl::ToolsCall, true, true, true}},
      {"resources/list", {&Impl::ResourcesList, true, true, false}},
      {"resources/templates/list", {&Impl::ResourceTemplatesList, true, true, false}},
      {"resources/read", {&Impl::ResourcesRead, true, true, true}},
      {"resources/subscribe", {&Impl::ResourcesSubscribe, true, false, false}},
      {"resources/unsubscribe", {&Impl::ResourcesUnsubscribe, true, false, false}},
      {"logging/setLevel", {&Impl::LoggingSetLevel, true, false, false}},
      {"subscriptions/listen", {&Impl::SubscriptionsListen, false, true, false}},
  };
}

int Server::Impl::Run() {
  running_ = true;
  AttachForwardingSink(this);
  for (;;) {
    IncomingLine incoming = transport_.Receive();
    if (incoming.kind == IncomingLine::Kind::kClosed) break;
    if (incoming.kind == IncomingLine::Kind::kOversize) {
      spdlog::warn("discarded an incoming {}", incoming.text);
      Send(MakeErrorResponse(
          nullptr, {error_code::kInvalidRequest, "Invalid Request: " + incoming.text, nullptr}));
      continue;
    }
    HandleLine(incoming.text);
  }
  // Input is over: nobody can answer our questions any more; let running
  // calls finish (and answer), then end listen streams.
  FailAllOutgoing("the client closed its input");
  pool_.Drain();
  CloseListeners();
  running_ = false;
  ForwardingSink().SetTarget(nullptr);
  return 0;
}

void Server::Impl::Send(const json& message) { transport_.Send(Serialize(message)); }

void Server::Impl::HandleLine(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;  // blank line
  json message;
  try {
    message = json::parse(line);
  } catch (const json::parse_error& e) {
    Send(MakeErrorResponse(
        nullptr, {error_code::kParseError, std::string("Parse error: ") + e.what(), nullptr}));
    return;
  }
  if (message.is_array()) {
    HandleBatch(message);
    return;
  }
  HandleMessage(message, [this](json response) { Send(response); });
}

void Server::Impl::HandleBatch(const json& batch) {
  bool allowed = false;
  {
    std::lock_guard lock(session_mutex_);
    allowed = session_ && session_->version == kBatchVersion;
  }
  if (!allowed) {
    Send(MakeErrorResponse(nullptr, {error_code::kInvalidRequest,
                                     "Invalid Request: JSON-RPC batches are only accepted in "
                                     "protocol version 2025-03-26",
                                     nullptr}));
    return;
  }
  if (batch.empty()) {
    Send(MakeErrorResponse(nullptr,
                           {error_code::kInvalidRequest, "Invalid Request: empty batch", nullptr}));
    return;
  }
  // Replies are collected and sent as one array once the last one is in;
  // `outstanding` starts at 1 so the array cannot leave while dispatching.
  struct Collector {
    std::mutex mutex;
    json responses = json::array();
    std::size_t outstanding = 1;
  };
  auto collector = std::make_shared<Collector>();
  auto release = [this, collector](std::optional<json> response) {
    json to_send;
    {
      std::lock_guard lock(collector->mutex);
      if (response) collector->responses.push_back(std::move(*response));
      if (--collector->outstanding != 0) return;
      if (collector->responses.empty()) return;
      to_send = std::move(collector->responses);
    }
    Send(to_send);
  };
  for (const json& element : batch) {
    {
      std::lock_guard lock(collector->mutex);
      ++collector->outstanding;
    }
    bool replies =
        HandleMessage(element, [release](json response) { release(std::move(response)); });
    if (!replies) release(std::nullopt);
  }
  release(std::nullopt);
}

bool Server::Impl::HandleMessage(const json& message, const ResponseSink& sink) {
  auto invalid = [&](const json& id, const std::string& why) {
    sink(MakeErrorResponse(id, {error_code::kInvalidRequest, "Invalid Request: " + why, nullptr}));
    return true;
  };
  if (!message.is_object()) return invalid(nullptr, "a message must be a JSON object");
  auto id_it = message.find("id");
  bool has_id = id_it != message.end();
  if (has_id && !id_it->is_string() && !id_it->is_number_integer()) {
    return invalid(nullptr, "id must be a string or an integer");
  }
  json id = has_id ? *id_it : json(nullptr);
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") {
    return invalid(id, "jsonrpc must be \"2.0\"");
  }
  auto method_it = message.find("method");
  if (method_it == message.end()) {
    if (has_id && (message.contains("result") || message.contains("error"))) {
      HandleResponse(message);
      return false;
    }
    return invalid(id,
                   "a message needs a method (request, notification) or a result or error "
                   "(response)");
  }
  if (!method_it->is_string()) return invalid(id, "method must be a string");
  const std::string& method = method_it->get_ref<const std::string&>();
  json params = message.value("params", json::object());
  if (!params.is_object()) {
    if (!has_id) return false;  // a notification is never answered
    return invalid(id, "params must be an object");
  }
  if (!has_id) {
    HandleNotification(method, params);
    return false;
  }
  HandleRequest(id, method, params, sink);
  return true;
}

void Server::Impl::HandleRequest(const json& id, const std::string& method, const json& params,
                                 const ResponseSink& sink) {
  auto error = [&](int code, std::string message, json data = nullptr) {
    sink(MakeErrorResponse(id, {code, std::move(message), std::move(data)}));
  };
  CallContext call;
  call.id = id;
  const MethodSpec* spec = nullptr;
  if (method == "initialize") {
    // Always legacy, whatever else the request carries (spec-notes §2).
    static const MethodSpec kInitialize{&Impl::Initialize, true, false, false};
    spec = &kInitialize;
  } else {
    auto found = methods_.find(method);
    if (found == methods_.end())
      return error(error_code::kMethodNotFound, "Method not found: " + method);
    spec = &found->second;
    auto meta = params.find("_meta");
    bool claims_modern =
        meta != params.end() && meta->is_object() && meta->contains(kMetaProtocolVersion);
    if (claims_modern) {
      const json& version = (*meta)[kMetaProtocolVersion];
      if (!version.is_string()) {
        return error(error_code::kInvalidParams, std::string("Invalid params: _meta[\"") +
                                                     kMetaProtocolVersion + "\"] must be a string");
      }
      if (version != kModernProtocolVersion) {
        return error(
            error_code::kUnsupportedProtocolVersion,
            "Unsupported protocol version: " + version.get<std::string>(),
            {{"supported", json::array({kModernProtocolVersion})}, {"requested", version}});
      }
      auto capabilities = meta->find(kMetaClientCapabilities);
      if (capabilities == meta->end() || !capabilities->is_object()) {
        return error(error_code::kInvalidParams,
                     std::string("Invalid params: _meta[\"") + kMetaClientCapabilities +
                         "\"] (an object) is required on every request of protocol version " +
                         kModernProtocolVersion);
      }
      if (auto level = meta->find(kMetaLogLevel); level != meta->end()) {
        call.log_rank = level->is_string() ? LogLevelRank(level->get<std::string>()) : -1;
        if (call.log_rank < 0) {
          return error(error_code::kInvalidParams,
                       std::string("Invalid params: _meta[\"") + kMetaLogLevel +
                           "\"] must be one of debug, info, notice, warning, error, critical, "
                           "alert, emergency");
        }
        SetLoggerLevelAtLeast(call.log_rank);
      }
      if (!spec->modern) {
        return error(error_code::kMethodNotFound, "Method not found: " + method +
                                                      " is not part of protocol version " +
                                                      kModernProtocolVersion);
      }
      call.era = Era::kModern;
      call.version = kModernProtocolVersion;
      call.client_capabilities = *capabilities;
      if (auto info = meta->find(kMetaClientInfo); info != meta->end() && info->is_object()) {
        call.client_name = info->value("name", "");
      }
    } else {
      std::lock_guard lock(session_mutex_);
      if (session_) {
        if (!spec->legacy) {
          return error(error_code::kMethodNotFound, "Method not found: " + method +
                                                        " is not part of protocol version " +
                                                        session_->version);
        }
        call.era = Era::kLegacy;
        call.version = session_->version;
        call.client_capabilities = session_->client_capabilities;
        call.client_name = session_->client_name;
      } else if (method != "ping") {
        return error(
            error_code::kInvalidParams,
            std::string("Invalid params: not initialized. Send initialize first, or put ") +
                kMetaProtocolVersion + " and " + kMetaClientCapabilities +
                " in params._meta (protocol version " + kModernProtocolVersion + ")");
      }
    }
  }

  std::string key = IdKey(id);
  auto flight = std::make_shared<InFlight>();
  {
    std::lock_guard lock(flights_mutex_);
    if (!flights_.emplace(key, flight).second) {
      return error(error_code::kInvalidRequest,
                   "Invalid Request: id " + key + " is already used by a request in progress");
    }
  }
  call.flight = flight;
  Era era = call.era;
  ReplyOnce reply(id, method, [this, key, flight, era, sink](json response) {
    {
      std::lock_guard lock(flights_mutex_);
      auto it = flights_.find(key);
      if (it != flights_.end() && it->second == flight) flights_.erase(it);
    }
    if (flight->cancelled) {
      spdlog::debug("request {} was cancelled; its reply is dropped", key);
      return;
    }
    if (era == Era::kModern) DecorateModern(response);
    sink(std::move(response));
  });

  Handler handler = spec->handler;
  if (!spec->on_worker) {
    t_current_call = &call;
    (this->*handler)(params, call, std::move(reply));
    t_current_call = nullptr;
    return;
  }
  auto shared_reply = std::make_shared<ReplyOnce>(std::move(reply));
  pool_.Submit([this, handler, params, call = std::move(call), shared_reply]() {
    if (call.flight->cancelled) return;  // cancelled while queued: no reply
    t_current_call = &call;
    try {
      (this->*handler)(params, call, std::move(*shared_reply));
    } catch (...) {
      t_current_call = nullptr;
      throw;
    }
    t_current_call = nullptr;
  });
}

void Server::Impl::HandleResponse(const json& message) {
  std::string key = IdKey(message["id"]);
  std::shared_ptr<Outgoing> outgoing;
  {
    std::lock_guard lock(outgoing_mutex_);
    auto it = outgoing_.find(key);
    if (it != outgoing_.end()) {
      outgoing = it->second;
      outgoing_.erase(it);
    }
  }
  if (!outgoing) {
    spdlog::warn("ignoring a response to unknown request id {}", key);
    return;
  }
  {
    std::lock_guard lock(outgoing->flight->mutex);
    outgoing->done = true;
    if (auto error = message.find("error"); error != message.end()) {
      outgoing->error = error->is_object() ? *error : json{{"message", error->dump()}};
    } else {
      outgoing->result = message["result"];
    }
  }
  outgoing->flight->changed.notify_all();
}

void Server::Impl::HandleNotification(const std::string& method, const json& params) {
  if (method == "notifications/cancelled") {
    if (auto id = params.find("requestId"); id != params.end()) Cancel(*id);
    return;
  }
  if (method == "notifications/initialized") return;  // the session exists since initialize
  spdlog::debug("ignoring notification {}", method);
}

void Server::Impl::Cancel(const json& request_id) {
  std::string key = IdKey(request_id);
  std::optional<Listener> listener;
  {
    std::lock_guard lock(listeners_mutex_);
    if (auto it = listeners_.find(key); it != listeners_.end()) {
      listener = std::move(it->second);
      listeners_.erase(it);
    }
  }
  if (listener) {
    // Ending a listen stream is not a failure: it gets its closing result.
    listener->reply->Result(
        {{"resultType", "complete"}, {"_meta", {{kMetaSubscriptionId, listener->id}}}});
    return;
  }
  std::shared_ptr<InFlight> flight;
  {
    std::lock_guard lock(flights_mutex_);
    if (auto it = flights_.find(key); it != flights_.end()) flight = it->second;
  }
  if (!flight) {
    spdlog::debug("cancellation of {} which is not in progress", key);
    return;
  }
  {
    std::lock_guard lock(flight->mutex);
    flight->cancelled = true;
  }
  flight->changed.notify_all();
}

void Server::Impl::DecorateModern(json& response) const {
  auto result = response.find("result");
  if (result == response.end() || !result->is_object()) return;
  if (!result->contains("resultType")) (*result)["resultType"] = "complete";
  (*result)["_meta"][kMetaServerInfo] = {{"name", options_.info.name},
                                         {"version", options_.info.version}};
}

void Server::Impl::SetLoggerLevelAtLeast(int rank) {
  auto logger = spdlog::default_logger();
  spdlog::level::level_enum wanted = SpdlogLevelFor(rank);
  spdlog::level::level_enum current = logger->level();
  if (wanted >= current) return;
  // Let more records reach the forwarding sink without making the other
  // sinks (stderr) chattier than they were.
  for (const spdlog::sink_ptr& sink : logger->sinks()) {
    if (sink.get() != &ForwardingSink() && sink->level() < current) sink->set_level(current);
  }
  logger->set_level(wanted);
}

void Server::Impl::ForwardLog(spdlog::level::level_enum level, const std::string& text) {
  int rank = RankOf(level);
  if (rank < 0) return;
  bool send = false;
  if (t_current_call != nullptr && t_current_call->era == Era::kModern) {
    send = t_current_call->log_rank >= 0 && rank >= t_current_call->log_rank;
  } else {
    int wanted = legacy_log_rank_.load();
    send = wanted >= 0 && rank >= wanted;
  }
  if (!send) return;
  Send(MakeNotification("notifications/message",
                        {{"level", kLogLevels[static_cast<std::size_t>(rank)]},
                         {"logger", options_.info.name},
                         {"data", text}}));
}

// ---- lifecycle -------------------------------------------------------------

json Server::Impl::ServerCapabilities(Era era) const {
  json capabilities = {{"tools", {{"listChanged", false}}},
                       {"resources", {{"subscribe", true}, {"listChanged", false}}}};
  if (era == Era::kLegacy) capabilities["logging"] = json::object();
  return capabilities;
}

void Server::Impl::Initialize(const json& params, const CallContext& /*call*/, ReplyOnce reply) {
  auto requested = params.find("protocolVersion");
  if (requested == params.end() || !requested->is_string()) {
    return reply.Error(error_code::kInvalidParams,
                       "Invalid params: initialize needs protocolVersion (a string)");
  }
  std::string version = requested->get<std::string>();
  // A dual-era server never refuses initialize: an unknown or modern version
  // gets our newest legacy one (spec-notes §2).
  if (!IsLegacyVersion(version)) version = std::string(kLegacyVersions.front());
  {
    std::lock_guard lock(session_mutex_);
    if (session_) {
      return reply.Error(error_code::kInvalidRequest,
                         "Invalid Request: initialize was already received on this connection");
    }
    LegacySession session;
    session.version = version;
    if (auto capabilities = params.find("capabilities");
        capabilities != params.end() && capabilities->is_object()) {
      session.client_capabilities = *capabilities;
    }
    if (auto info = params.find("clientInfo"); info != params.end() && info->is_object()) {
      session.client_name = info->value("name", "");
    }
    session_ = std::move(session);
  }
  json result = {
      {"protocolVersion", version},
      {"capabilities", ServerCapabilities(Era::kLegacy)},
      {"serverInfo", {{"name", options_.info.name}, {"version", options_.info.version}}}};
  if (!options_.info.instructions.empty()) result["instructions"] = options_.info.instructions;
  reply.Result(std::move(result));
}

void Server::Impl::Ping(const json&, const CallContext&, ReplyOnce reply) {
  reply.Result(json::object());
}

void Server::Impl::Discover(const json&, const CallContext& call, ReplyOnce reply) {
  json result = {{"supportedVersions", json::array({kModernProtocolVersion})},
                 {"capabilities", ServerCapabilities(Era::kModern)}};
  if (!options_.info.instructions.empty()) result["instructions"] = options_.info.instructions;
  AddCacheHints(result, call, kStableTtlMs, "public");
  reply.Result(std::move(result));
}

void Server::Impl::AddCacheHints(json& result, const CallContext& call, std::int64_t ttl_ms,
                                 const char* scope) {
  if (call.era != Era::kModern) return;
  result["ttlMs"] = ttl_ms;
  result["cacheScope"] = scope;
}

bool Server::Impl::RejectCursor(const json& params, ReplyOnce& reply) const {
  // Lists come in one page, so no cursor we could have issued exists.
  auto cursor = params.find("cursor");
  if (cursor == params.end() || cursor->is_null()) return false;
  reply.Error(error_code::kInvalidParams, "Invalid params: unknown cursor " + cursor->dump());
  return true;
}

// ---- tools -----------------------------------------------------------------

json Server::Impl::ToolToJson(const Tool& tool, const CallContext& call) const {
  json out = {
      {"name", tool.name}, {"description", tool.description}, {"inputSchema", tool.input_schema}};
  bool has_output = !tool.output_schema.is_null();
  // structuredContent/outputSchema arrived in 2025-06-18.
  if (has_output && (call.era == Era::kModern || call.version >= "2025-06-18")) {
    json schema = tool.output_schema;
    if (call.era == Era::kLegacy && schema.value("type", json()) != "object") {
      // Legacy outputSchema must describe an object: match the wrapping of
      // structuredContent in ToolResultToJson.
      schema = {{"type", "object"}, {"properties", {{"result", schema}}}, {"required", {"result"}}};
    }
    out["outputSchema"] = std::move(schema);
  }
  json annotations = {{"readOnlyHint", tool.annotations.read_only},
                      {"destructiveHint", tool.annotations.destructive},
                      {"idempotentHint", tool.annotations.idempotent},
                      {"openWorldHint", tool.annotations.open_world}};
  if (!tool.annotations.title.empty()) annotations["title"] = tool.annotations.title;
  out["annotations"] = std::move(annotations);
  return out;
}

void Server::Impl::ToolsList(const json& params, const CallContext& call, ReplyOnce reply) {
  if (RejectCursor(params, reply)) return;
  json list = json::array();
  for (const Tool& tool : tools_.All()) list.push_back(ToolToJson(tool, call));
  json result = {{"tools", std::move(list)}};
  AddCacheHints(result, call, kStableTtlMs, "public");
  reply.Result(std::move(result));
}

json Server::Impl::ToolResultToJson(ToolResult result, const CallContext& call) const {
  json out = {{"content", std::move(result.content)}, {"isError", result.is_error}};
  if (result.structured) {
    if (call.era == Era::kModern) {
      out["structuredContent"] = std::move(*result.structured);
    } else if (call.version >= "2025-06-18") {
      // Legacy structuredContent must be an object (the SDK's own wrapping).
      out["structuredContent"] = result.structured->is_object()
                                     ? std::move(*result.structured)
                                     : json{{"result", std::move(*result.structured)}};
    }
  }
  return out;
}

void Server::Impl::ToolsCall(const json& params, const CallContext& call, ReplyOnce reply) {
  auto invalid = [&](std::string message) {
    reply.Error(error_code::kInvalidParams, "Invalid params: " + std::move(message));
  };
  auto name_it = params.find("name");
  if (name_it == params.end() || !name_it->is_string()) {
    return invalid("tools/call needs name (a string)");
  }
  const std::string& name = name_it->get_ref<const std::string&>();
  const Tool* tool = tools_.Find(name);
  if (tool == nullptr) return invalid("unknown tool: " + name);
  json arguments = params.value("arguments", json::object());
  if (arguments.is_null()) arguments = json::object();
  if (!arguments.is_object()) return invalid("arguments of " + name + " must be an object");
  // The original server advertised arguments wrapped as {"params": {...}};
  // unwrap unless the tool really has an argument called "params".
  if (arguments.size() == 1 && arguments.contains("params") && arguments["params"].is_object()) {
    const json& properties = tool->input_schema.value("properties", json::object());
    if (!properties.is_object() || !properties.contains("params")) {
      json inner = std::move(arguments["params"]);
      arguments = std::move(inner);
    }
  }
  if (auto valid = ValidateAgainstSchema(tool->input_schema, arguments); !valid) {
    return invalid("arguments of " + name + ": " + valid.error());
  }

  json answers = json::object();
  if (call.era == Era::kModern) {
    auto state_it = params.find("requestState");
    auto responses_it = params.find("inputResponses");
    bool has_state = state_it != params.end() && !state_it->is_null();
    bool has_responses = responses_it != params.end() && !responses_it->is_null();
    if (has_responses && !responses_it->is_object()) {
      return invalid("inputResponses must be an object");
    }
    if (has_responses && !has_state) {
      return invalid("inputResponses need the requestState of the input_required result");
    }
    if (has_state) {
      if (!state_it->is_string()) return invalid("requestState must be a string");
      auto state = request_states_.Decode(state_it->get<std::string>());
      if (!state) return invalid(state.error());
      if (state->tool != name) {
        return invalid("requestState was issued for tool " + state->tool + ", not " + name);
      }
      if (state->arguments_digest != RequestStateCodec::DigestArguments(arguments)) {
        return invalid(
            "requestState does not match these arguments (they changed since the "
            "input_required result); call the tool again without requestState");
      }
      answers = std::move(state->answers);
      if (has_responses) {
        for (const std::string& key : state->asked) {
          if (auto answer = responses_it->find(key); answer != responses_it->end()) {
            answers[key] = *answer;
          }
        }
      }
    }
  }

  ToolCallContext context(*this, call, std::move(answers));
  ToolResult result;
  try {
    result = tool->handler(arguments, context);
  } catch (const AskInterrupt&) {
    // handled below: context.interrupted()
  } catch (const std::exception& e) {
    result = ToolResult::Failure("tool " + name + " failed: " + e.what());
  } catch (...) {
    result = ToolResult::Failure("tool " + name + " failed with an unknown error");
  }
  if (context.interrupted()) {
    if (!context.missing_capability().empty()) {
      const std::string& capability = context.missing_capability();
      return reply.Error(error_code::kMissingRequiredClientCapability,
                         "Missing required client capability: tool " + name + " needs '" +
                             capability + "', which the request did not declare in _meta[\"" +
                             kMetaClientCapabilities + "\"]",
                         {{"requiredCapabilities", {{capability, json::object()}}}});
    }
    RequestState state;
    state.tool = name;
    state.arguments_digest = RequestStateCodec::DigestArguments(arguments);
    state.answers = context.answers();
    state.asked = {context.question_key()};
    return reply.Result({{"resultType", "input_required"},
                         {"inputRequests", {{context.question_key(), context.question()}}},
                         {"requestState", request_states_.Encode(std::move(state))}});
  }
  reply.Result(ToolResultToJson(std::move(result), call));
}

Result<json> Server::Impl::AskClient(const CallContext& call, const std::string& method,
                                     const json& params) {
  auto outgoing = std::make_shared<Outgoing>();
  outgoing->flight = call.flight;
  std::string id;
  {
    std::lock_guard lock(outgoing_mutex_);
    if (closing_) return Fail("cannot ask the client: it closed the connection");
    id = "togmal-" + std::to_string(++next_outgoing_id_);
    outgoing_[IdKey(json(id))] = outgoing;
  }
  Send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
  bool answered = false;
  bool cancelled = false;
  {
    std::unique_lock lock(call.flight->mutex);
    answered = call.flight->changed.wait_for(
        lock, options_.ask_timeout, [&] { return outgoing->done || call.flight->cancelled; });
    answered = answered && outgoing->done;
    cancelled = call.flight->cancelled;
  }
  if (!answered) {
    {
      std::lock_guard lock(outgoing_mutex_);
      outgoing_.erase(IdKey(json(id)));
    }
    Send(MakeNotification(
        "notifications/cancelled",
        {{"requestId", id}, {"reason", cancelled ? "the tool call was cancelled" : "timed out"}}));
    if (cancelled) return Fail(method + " request abandoned: the tool call was cancelled");
    return Fail(method + " request to the client timed out after " +
                std::to_string(options_.ask_timeout.count()) + " ms");
  }
  std::lock_guard lock(call.flight->mutex);
  if (!outgoing->error.is_null()) {
    std::string message = outgoing->error.value("message", std::string("no message"));
    if (outgoing->error.contains("code")) {
      return Fail("the client answered " + method + " with error " +
                  outgoing->error["code"].dump() + ": " + message);
    }
    return Fail("no answer to " + method + ": " + message);
  }
  return outgoing->result;
}

void Server::Impl::FailAllOutgoing(const std::string& why) {
  std::unordered_map<std::string, std::shared_ptr<Outgoing>> pending;
  {
    std::lock_guard lock(outgoing_mutex_);
    closing_ = true;
    pending.swap(outgoing_);
  }
  for (auto& [key, outgoing] : pending) {
    {
      std::lock_guard lock(outgoing->flight->mutex);
      outgoing->done = true;
      outgoing->error = {{"message", why}};
    }
    outgoing->flight->changed.notify_all();
  }
}

// ---- resources -------------------------------------------------------------

void Server::Impl::ResourcesList(const json& params, const CallContext& call, ReplyOnce reply) {
  if (RejectCursor(params, reply)) return;
  json list = json::array();
  for (const Resource& resource : resources_.All()) {
    json item = {{"uri", resource.uri}, {"name", resource.name}};
    if (!resource.description.empty()) item["description"] = resource.description;
    if (!resource.mime_type.empty()) item["mimeType"] = resource.mime_type;
    list.push_back(std::move(item));
  }
  json result = {{"resources", std::move(list)}};
  AddCacheHints(result, call, kStableTtlMs, "public");
  reply.Result(std::move(result));
}

void Server::Impl::ResourceTemplatesList(const json& params, const CallContext& call,
                                         ReplyOnce reply) {
  if (RejectCursor(params, reply)) return;
  json result = {{"resourceTemplates", json::array()}};
  AddCacheHints(result, call, kStableTtlMs, "public");
  reply.Result(std::move(result));
}

namespace {
/// Reads params.uri; replies with an error and returns null if absent.
const std::string* UriParam(const json& params, ReplyOnce& reply) {
  auto uri = params.find("uri");
  if (uri == params.end() || !uri->is_string()) {
    reply.Error(error_code::kInvalidParams,
                "Invalid params: " + reply.method() + " needs uri (a string)");
    return nullptr;
  }
  return &uri->get_ref<const std::string&>();
}

void ResourceNotFound(Era era, const std::string& uri, ReplyOnce& reply) {
  // The code changed between eras (spec-notes §9, §12).
  int code = era == Era::kModern ? error_code::kInvalidParams : error_code::kResourceNotFound;
  reply.Error(code, "Resource not found: " + uri, {{"uri", uri}});
}
}  // namespace

void Server::Impl::ResourcesRead(const json& params, const CallContext& call, ReplyOnce reply) {
  const std::string* uri = UriParam(params, reply);
  if (uri == nullptr) return;
  const Resource* resource = resources_.Find(*uri);
  if (resource == nullptr) return ResourceNotFound(call.era, *uri, reply);
  Result<std::string> text = Fail("");
  try {
    text = resource->read();
  } catch (const std::exception& e) {
    text = Fail(e.what());
  }
  if (!text) {
    return reply.Error(error_code::kInternalError,
                       "Internal error: reading " + *uri + " failed: " + text.error());
  }
  json content = {{"uri", *uri}, {"text", std::move(*text)}};
  if (!resource->mime_type.empty()) content["mimeType"] = resource->mime_type;
  json result = {{"contents", json::array({std::move(content)})}};
  // Contents change whenever the data does, and may be personal (audit).
  AddCacheHints(result, call, 0, "private");
  reply.Result(std::move(result));
}

void Server::Impl::ResourcesSubscribe(const json& params, const CallContext& call,
                                      ReplyOnce reply) {
  const std::string* uri = UriParam(params, reply);
  if (uri == nullptr) return;
  if (resources_.Find(*uri) == nullptr) return ResourceNotFound(call.era, *uri, reply);
  {
    std::lock_guard lock(session_mutex_);
    if (session_) session_->subscriptions.insert(*uri);
  }
  reply.Result(json::object());
}

void Server::Impl::ResourcesUnsubscribe(const json& params, const CallContext& call,
                                        ReplyOnce reply) {
  const std::string* uri = UriParam(params, reply);
  if (uri == nullptr) return;
  if (resources_.Find(*uri) == nullptr) return ResourceNotFound(call.era, *uri, reply);
  {
    std::lock_guard lock(session_mutex_);
    if (session_) session_->subscriptions.erase(*uri);
  }
  reply.Result(json::object());
}

void Server::Impl::LoggingSetLevel(const json& params, const CallContext&, ReplyOnce reply) {
  auto level = params.find("level");
  int rank =
      level != params.end() && level->is_string() ? LogLevelRank(level->get<std::string>()) : -1;
  if (rank < 0) {
    return reply.Error(error_code::kInvalidParams,
                       "Invalid params: level must be one of debug, info, notice, warning, error, "
                       "critical, alert, emergency");
  }
  SetLoggerLevelAtLeast(rank);
  legacy_log_rank_ = rank;
  reply.Result(json::object());
}

// ---- subscriptions (modern) -----------------------------------------------

void Server::Impl::SubscriptionsListen(const json& params, const CallContext& call,
                                       ReplyOnce reply) {
  auto requested = params.find("notifications");
  if (requested == params.end() || !requested->is_object()) {
    return reply.Error(error_code::kInvalidParams,
                       "Invalid params: subscriptions/listen needs notifications (an object)");
  }
  Listener listener;
  listener.id = call.id;
  json honored = json::object();
  if (requested->value("toolsListChanged", false) == true) {
    listener.tools_list_changed = true;
    honored["toolsListChanged"] = true;
  }
  if (requested->value("resourcesListChanged", false) == true) {
    listener.resources_list_changed = true;
    honored["resourcesListChanged"] = true;
  }
  if (auto uris = requested->find("resourceSubscriptions");
      uris != requested->end() && uris->is_array()) {
    json accepted = json::array();
    for (const json& uri : *uris) {
      // Only resources that exist can ever change.
      if (uri.is_string() && resources_.Find(uri.get<std::string>()) != nullptr) {
        listener.uris.insert(uri.get<std::string>());
        accepted.push_back(uri);
      }
    }
    if (!accepted.empty()) honored["resourceSubscriptions"] = std::move(accepted);
  }
  listener.reply.emplace(std::move(reply));
  std::lock_guard lock(listeners_mutex_);
  // Acknowledged under the lock so no update can overtake the acknowledgement.
  Send(MakeNotification(
      "notifications/subscriptions/acknowledged",
      {{"notifications", std::move(honored)}, {"_meta", {{kMetaSubscriptionId, call.id}}}}));
  listeners_.emplace(IdKey(call.id), std::move(listener));
}

void Server::Impl::CloseListeners() {
  std::map<std::string, Listener> listeners;
  {
    std::lock_guard lock(listeners_mutex_);
    listeners.swap(listeners_);
  }
  for (auto& [key, listener] : listeners) {
    listener.reply->Result(
        {{"resultType", "complete"}, {"_meta", {{kMetaSubscriptionId, listener.id}}}});
  }
}

void Server::Impl::NotifyResourceUpdated(const std::string& uri) {
  if (!running_) return;
  {
    std::lock_guard lock(session_mutex_);
    if (session_ && session_->subscriptions.count(uri) != 0) {
      Send(MakeNotification("notifications/resources/updated", {{"uri", uri}}));
    }
  }
  std::lock_guard lock(listeners_mutex_);
  for (const auto& [key, listener] : listeners_) {
    if (listener.uris.count(uri) == 0) continue;
    Send(MakeNotification("notifications/resources/updated",
                          {{"uri", uri}, {"_meta", {{kMetaSubscriptionId, listener.id}}}}));
  }
}

// ---- Server ----------------------------------------------------------------

Server::Server(Transport& transport, const ToolRegistry& tools, const ResourceRegistry& resources,
               ServerOptions options)
    : impl_(std::make_unique<Impl>(transport, tools, resources, std::move(options))) {}

Server::~Server() = default;

int Server::Run() { return impl_->Run(); }

void Server::NotifyResourceUpdated(const std::string& uri) { impl_->NotifyResourceUpdated(uri); }

}  // namespace togmal::mcp
