// Which protocol era a request belongs to, decided per message: `initialize`
// opens a legacy session; a request whose `params._meta` claims a protocol
// version is served statelessly under the modern rules (its `_meta` checked
// every time); anything else uses the legacy session, or gets -32602 before
// one exists. Then dispatch (inline or on the worker pool, through the
// admission gate) and the lifecycle methods: initialize, ping,
// server/discover.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "server_impl.h"

namespace togmal::mcp {
namespace {

/// Legacy revisions, newest first (the newest is the negotiation fallback).
constexpr std::array<std::string_view, 4> kLegacyVersions = {"2025-11-25", "2025-06-18",
                                                             "2025-03-26", "2024-11-05"};

bool IsLegacyVersion(std::string_view version) {
  return std::find(kLegacyVersions.begin(), kLegacyVersions.end(), version) !=
         kLegacyVersions.end();
}

RpcError NotInThisVersion(const std::string& method, const std::string& version) {
  return {error_code::kMethodNotFound,
          "Method not found: " + method + " is not part of protocol version " + version, nullptr};
}

RpcError InvalidMeta(const char* key, const std::string& must) {
  return {error_code::kInvalidParams, std::string("Invalid params: _meta[\"") + key + "\"] " + must,
          nullptr};
}

/// Undoes the admission of a request when its worker task ends, however it
/// ends (answered, cancelled while queued, thrown).
class AdmissionRelease {
 public:
  AdmissionRelease(AdmissionGate& gate, std::size_t bytes) : gate_(gate), bytes_(bytes) {}
  ~AdmissionRelease() { gate_.Release(bytes_); }
  AdmissionRelease(const AdmissionRelease&) = delete;
  AdmissionRelease& operator=(const AdmissionRelease&) = delete;

 private:
  AdmissionGate& gate_;
  std::size_t bytes_;
};

}  // namespace

void Server::Impl::HandleRequest(const json& id, const std::string& method, json params,
                                 const ResponseSink& sink) {
  auto error = [&](const RpcError& rpc_error) { sink(MakeErrorResponse(id, rpc_error)); };
  auto found = methods_.find(method);
  if (found == methods_.end()) {
    return error({error_code::kMethodNotFound, "Method not found: " + method, nullptr});
  }
  const MethodSpec& spec = found->second;
  CallContext call;
  call.id = id;
  if (auto refused = ResolveEra(method, spec, params, call)) return error(*refused);

  std::string key = IdKey(id);
  auto flight = std::make_shared<InFlight>();
  {
    std::lock_guard lock(flights_mutex_);
    if (!flights_.emplace(key, flight).second) {
      return error({error_code::kInvalidRequest,
                    "Invalid Request: id " + key + " is already used by a request in progress",
                    nullptr});
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
  Dispatch(spec, std::move(params), std::move(call), std::move(reply));
}

std::optional<RpcError> Server::Impl::ResolveEra(const std::string& method, const MethodSpec& spec,
                                                 const json& params, CallContext& call) {
  // initialize is legacy whatever else the request carries.
  if (spec.session == Session::kOpens) return std::nullopt;
  auto meta = params.find("_meta");
  if (meta != params.end() && meta->is_object() && meta->contains(kMetaProtocolVersion)) {
    return ResolveModern(method, spec, *meta, call);
  }
  return ResolveLegacy(method, spec, call);
}

std::optional<RpcError> Server::Impl::ResolveModern(const std::string& method,
                                                    const MethodSpec& spec, const json& meta,
                                                    CallContext& call) {
  const json& version = meta[kMetaProtocolVersion];
  if (!version.is_string()) return InvalidMeta(kMetaProtocolVersion, "must be a string");
  if (version != kModernProtocolVersion) {
    return RpcError{error_code::kUnsupportedProtocolVersion,
                    "Unsupported protocol version: " + version.get<std::string>(),
                    {{"supported", json::array({kModernProtocolVersion})}, {"requested", version}}};
  }
  auto capabilities = meta.find(kMetaClientCapabilities);
  if (capabilities == meta.end() || !capabilities->is_object()) {
    return InvalidMeta(kMetaClientCapabilities,
                       std::string("(an object) is required on every request of protocol "
                                   "version ") +
                           kModernProtocolVersion);
  }
  if (auto level = meta.find(kMetaLogLevel); level != meta.end()) {
    call.log_rank = level->is_string() ? LogLevelRank(level->get<std::string>()) : -1;
    if (call.log_rank < 0) {
      return InvalidMeta(kMetaLogLevel,
                         "must be one of debug, info, notice, warning, error, critical, alert, "
                         "emergency");
    }
    SetLoggerLevelAtLeast(call.log_rank);
  }
  if (spec.eras == Eras::kLegacy) return NotInThisVersion(method, kModernProtocolVersion);
  call.era = Era::kModern;
  call.version = kModernProtocolVersion;
  call.client_capabilities = *capabilities;
  if (auto info = meta.find(kMetaClientInfo); info != meta.end() && info->is_object()) {
    call.client_name = info->value("name", "");
  }
  return std::nullopt;
}

std::optional<RpcError> Server::Impl::ResolveLegacy(const std::string& method,
                                                    const MethodSpec& spec, CallContext& call) {
  std::lock_guard lock(session_mutex_);
  if (!session_) {
    if (spec.session == Session::kOptional) return std::nullopt;
    return RpcError{error_code::kInvalidParams,
                    std::string("Invalid params: not initialized. Send initialize first, or put ") +
                        kMetaProtocolVersion + " and " + kMetaClientCapabilities +
                        " in params._meta (protocol version " + kModernProtocolVersion + ")",
                    nullptr};
  }
  if (spec.eras == Eras::kModern) return NotInThisVersion(method, session_->version);
  call.era = Era::kLegacy;
  call.version = session_->version;
  call.client_capabilities = session_->client_capabilities;
  call.client_name = session_->client_name;
  return std::nullopt;
}

void Server::Impl::Dispatch(const MethodSpec& spec, json params, CallContext call,
                            ReplyOnce reply) {
  Handler handler = spec.handler;
  call.server = this;
  if (spec.runs == Runs::kInline) {
    t_current_call = &call;
    (this->*handler)(params, call, std::move(reply));
    t_current_call = nullptr;
    return;
  }
  const std::size_t bytes = request_bytes_;
  if (!admission_.Admit(bytes)) {
    return reply.Error(error_code::kInternalError,
                       "Internal error: the server is overloaded (too many requests wait for an "
                       "answer); retry later");
  }
  auto shared_reply = std::make_shared<ReplyOnce>(std::move(reply));
  pool_.Submit(
      [this, handler, params = std::move(params), call = std::move(call), shared_reply, bytes]() {
        AdmissionRelease release(admission_, bytes);
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

void Server::Impl::DecorateModern(json& response) const {
  auto result = response.find("result");
  if (result == response.end() || !result->is_object()) return;
  if (!result->contains("resultType")) (*result)["resultType"] = "complete";
  (*result)["_meta"][kMetaServerInfo] = {{"name", options_.info.name},
                                         {"version", options_.info.version}};
}

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
  // gets our newest legacy one.
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

}  // namespace togmal::mcp
