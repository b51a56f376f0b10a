#include "after_tool_use.h"

#include <array>

#include "togmal/util/json_parse.h"
#include "togmal/util/text.h"

namespace togmal::hook {
namespace {

using json = nlohmann::json;

struct EventOutcome {
  std::string_view event;
  std::string_view outcome;
};
constexpr std::array<EventOutcome, 4> kEvents = {{{"PostToolUse", "ran"},
                                                  {"PostToolUseFailure", "failed"},
                                                  {"PermissionDenied", "refused"},
                                                  {"PostToolBatch", "refused"}}};

// How much of the host's reason is kept (an error can hold a whole output).
constexpr std::size_t kMaxReasonBytes = 300;

std::string StringField(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::optional<check::CallOutcomes> ParseAfterToolUse(std::string_view input) {
  // "PostToolUse" is in three of the names; PreToolUse input holds neither
  // unless its command does, and then the parse below tells.
  if (input.find("PostToolUse") == std::string_view::npos &&
      input.find("PermissionDenied") == std::string_view::npos &&
      input.find("PostToolBatch") == std::string_view::npos) {
    return std::nullopt;
  }
  auto parsed = util::ParseJson(input);
  if (!parsed || !parsed->is_object()) return std::nullopt;
  const json& root = *parsed;
  check::CallOutcomes event;
  event.event = StringField(root, "hook_event_name");
  std::string_view outcome;
  for (const EventOutcome& known : kEvents) {
    if (known.event == event.event) outcome = known.outcome;
  }
  if (outcome.empty()) return std::nullopt;
  event.session_id = StringField(root, "session_id");
  event.cwd = StringField(root, "cwd");
  const auto add = [&](const json& call, bool only_if_none) {
    if (!call.is_object()) return;
    check::CallOutcomes::Call entry{
        .tool_use_id = StringField(call, "tool_use_id"),
        .tool_name = StringField(call, "tool_name"),
        .outcome = std::string(outcome),
        .reason =
            util::Shorten(StringField(call, event.event == "PermissionDenied" ? "reason" : "error"),
                          kMaxReasonBytes),
        .only_if_none = only_if_none};
    if (!entry.tool_use_id.empty()) event.calls.push_back(std::move(entry));
  };
  if (event.event == "PostToolBatch") {
    if (auto calls = root.find("tool_calls"); calls != root.end() && calls->is_array()) {
      for (const json& call : *calls) add(call, true);
    }
  } else {
    add(root, false);
  }
  return event;
}

}  // namespace togmal::hook
