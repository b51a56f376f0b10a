#pragma once
/// The MCP server: JSON-RPC dispatch over a Transport for both protocol eras
/// on one process:
///  - legacy (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05): `initialize`,
///    lifecycle gate, ping, logging/setLevel, resources/subscribe, batches for
///    2025-03-26, server→client requests for ToolContext::Ask;
///  - modern (2026-07-28): stateless, `_meta` checked on every request,
///    `server/discover`, `resultType`, cache hints, `subscriptions/listen`,
///    `input_required` + signed `requestState` for ToolContext::Ask.
/// The era is decided per message. Knows nothing of togmal's domain: tools and
/// resources come from the registries.
///
/// Threading: Run() reads on the calling thread and answers cheap methods
/// inline; `tools/call` and `resources/read` run on a small worker pool so the
/// reader keeps serving (and can route the client's replies to a handler that
/// is waiting in Ask). Replies may therefore leave out of order.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "togmal/mcp/tool.h"
#include "togmal/mcp/transport.h"

namespace togmal::mcp {

/// The modern revision, served statelessly per request.
inline constexpr const char* kModernProtocolVersion = "2026-07-28";

struct ServerInfo {
  std::string name;
  std::string version;
  std::string instructions;  ///< optional; omitted when empty
};

struct ServerOptions {
  ServerInfo info;
  /// How long a legacy server→client request may stay unanswered.
  std::chrono::milliseconds ask_timeout = std::chrono::seconds(30);
  /// How long a modern `requestState` stays valid.
  std::chrono::milliseconds request_state_lifetime = std::chrono::minutes(10);
  /// Threads running tools/call and resources/read.
  unsigned workers = 4;
  /// Backpressure: with this many tools/call and resources/read requests
  /// (or this many bytes of them) queued or running, the server stops
  /// reading its input until one finishes. While a worker waits for the
  /// client's answer (legacy Ask) it reads on, up to four times these
  /// bounds, past which new requests are refused with -32603. Open
  /// `subscriptions/listen` streams are bounded by the same count.
  std::size_t max_waiting_requests = 64;
  std::size_t max_waiting_bytes = 64u * 1024u * 1024u;
};

class Server {
 public:
  /// The registries must outlive the server and not change while it runs.
  Server(Transport& transport, const ToolRegistry& tools, const ResourceRegistry& resources,
         ServerOptions options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Serves until the transport closes (EOF or a stop signal), lets running
  /// calls finish, and returns the process exit code (0).
  int Run();

  /// Tells legacy subscribers (`resources/subscribe`) and modern listeners
  /// that asked for `uri` that it changed. Thread-safe; callable any time.
  void NotifyResourceUpdated(const std::string& uri);

  /// Implementation detail (src/mcp/server_impl.h); public only so that
  /// helpers there can name it.
  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace togmal::mcp
