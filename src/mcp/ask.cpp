// Asking the client for input from inside a tool call, in both eras.
// Legacy: the server sends its own request (`togmal-N`), keeps serving, and
// the reader routes the reply back to the waiting worker (timeout, cancel and
// EOF wake it). Modern: the first unanswered Ask makes the call answer
// `input_required` with a signed requestState holding the answers so far;
// the client's retry brings the answer and runs the handler again.
#include <spdlog/spdlog.h>

#include <optional>
#include <utility>

#include "server_impl.h"
#include "tool_call_context.h"

namespace togmal::mcp {
namespace {

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

/// Marks a worker as waiting for the client, so the reader keeps reading
/// (only it can deliver the answer) whatever the admission bound says.
class WaitingForClient {
 public:
  explicit WaitingForClient(AdmissionGate& gate) : gate_(gate) { gate_.BeginWaitForClient(); }
  ~WaitingForClient() { gate_.EndWaitForClient(); }
  WaitingForClient(const WaitingForClient&) = delete;
  WaitingForClient& operator=(const WaitingForClient&) = delete;

 private:
  AdmissionGate& gate_;
};

}  // namespace

// ---- the handler's view ----------------------------------------------------

ToolCallContext::ToolCallContext(Server::Impl& server, const CallContext& call, json answers)
    : server_(server), call_(call), answers_(std::move(answers)) {}

bool ToolCallContext::ClientSupports(ClientFeature feature) const {
  auto it = call_.client_capabilities.find(CapabilityName(feature));
  return it != call_.client_capabilities.end() && it->is_object();
}

AskResult ToolCallContext::Ask(const std::string& key, const std::string& method,
                               const json& params) {
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
  // Modern: answered on an earlier round trip, or the question goes out now.
  // One question per round trip: once one is pending, every Ask waits.
  if (needs_input_) return AskResult::NeedsInput();
  if (auto it = answers_.find(key); it != answers_.end()) return *it;
  needs_input_ = true;
  if (!ClientSupports(*feature)) {
    missing_capability_ = CapabilityName(*feature);
  } else {
    question_key_ = key;
    question_ = {{"method", method}, {"params", params}};
  }
  return AskResult::NeedsInput();
}

bool ToolCallContext::Cancelled() const { return call_.flight && call_.flight->cancelled.load(); }

std::string ToolCallContext::ClientName() const { return call_.client_name; }

// ---- modern: requestState round trips ---------------------------------------

Result<json> Server::Impl::AnswersOfRetry(const std::string& tool, const json& arguments,
                                          const json& params) {
  json answers = json::object();
  auto state_it = params.find("requestState");
  auto responses_it = params.find("inputResponses");
  bool has_state = state_it != params.end() && !state_it->is_null();
  bool has_responses = responses_it != params.end() && !responses_it->is_null();
  if (has_responses && !responses_it->is_object()) {
    return Fail("inputResponses must be an object");
  }
  if (has_responses && !has_state) {
    return Fail("inputResponses need the requestState of the input_required result");
  }
  if (!has_state) return answers;
  if (!state_it->is_string()) return Fail("requestState must be a string");
  auto state = request_states_.Decode(state_it->get<std::string>());
  if (!state) return Fail(state.error());
  if (state->tool != tool) {
    return Fail("requestState was issued for tool " + state->tool + ", not " + tool);
  }
  if (state->arguments_digest != RequestStateCodec::DigestArguments(arguments)) {
    return Fail(
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
  return answers;
}

void Server::Impl::ReplyInputRequired(const std::string& tool, const json& arguments,
                                      const ToolCallContext& context, ReplyOnce& reply) {
  if (!context.missing_capability().empty()) {
    const std::string& capability = context.missing_capability();
    return reply.Error(error_code::kMissingRequiredClientCapability,
                       "Missing required client capability: tool " + tool + " needs '" +
                           capability + "', which the request did not declare in _meta[\"" +
                           kMetaClientCapabilities + "\"]",
                       {{"requiredCapabilities", {{capability, json::object()}}}});
  }
  RequestState state;
  state.tool = tool;
  state.arguments_digest = RequestStateCodec::DigestArguments(arguments);
  state.answers = context.answers();
  state.asked = {context.question_key()};
  reply.Result({{"resultType", "input_required"},
                {"inputRequests", {{context.question_key(), context.question()}}},
                {"requestState", request_states_.Encode(std::move(state))}});
}

// ---- legacy: server→client requests -----------------------------------------

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
  WaitingForClient waiting(admission_);
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

}  // namespace togmal::mcp
