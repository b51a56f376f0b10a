// The JSON-RPC 2.0 envelope: one line → a message or a batch; requests,
// notifications and the client's responses to our own requests (legacy Ask)
// told apart; malformed messages answered with -32700 / -32600.
#include <spdlog/spdlog.h>

#include <utility>

#include "server_impl.h"
#include "togmal/util/json_parse.h"

namespace togmal::mcp {
namespace {

/// Legacy revision that allowed JSON-RPC batches.
constexpr std::string_view kBatchVersion = "2025-03-26";

}  // namespace

void Server::Impl::Send(const json& message) { transport_.Send(Serialize(message)); }

void Server::Impl::HandleLine(const std::string& line) {
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;  // blank line
  // Bounded: nesting is checked before a value is built, so nothing later
  // (dump, schema validation, destruction) can recurse deeply on input, and
  // a number no double holds is an error here, not an exception later.
  auto parsed = util::ParseJsonOrFailure(line);
  if (const auto* failure = std::get_if<util::JsonParseFailure>(&parsed)) {
    std::string why = failure->detail;
    if (failure->kind == util::JsonParseFailure::Kind::kOutOfRange) {
      why = "a number is out of range: " + why;
    }
    Send(MakeErrorResponse(nullptr, {error_code::kParseError, "Parse error: " + why, nullptr}));
    return;
  }
  json message = std::move(std::get<json>(parsed));
  if (message.is_array()) {
    request_bytes_ = message.empty() ? line.size() : line.size() / message.size();
    HandleBatch(message);
    return;
  }
  request_bytes_ = line.size();
  HandleMessage(std::move(message), [this](json response) { Send(response); });
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

bool Server::Impl::HandleMessage(json message, const ResponseSink& sink) {
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
  // Moved out, not copied: the message is this call's own.
  json params = json::object();
  if (auto given = message.find("params"); given != message.end()) params = std::move(*given);
  if (!params.is_object()) {
    if (!has_id) return false;  // a notification is never answered
    return invalid(id, "params must be an object");
  }
  if (!has_id) {
    HandleNotification(method, params);
    return false;
  }
  HandleRequest(id, method, std::move(params), sink);
  return true;
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

}  // namespace togmal::mcp
