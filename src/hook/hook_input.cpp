#include "togmal/hook/hook_input.h"

#include <string>

#include "togmal/util/json_parse.h"

namespace togmal::hook {
using json = nlohmann::json;

Result<policy::ToolCall> ParseHookInput(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Fail("the hook input was empty (expected Claude Code's PreToolUse JSON on stdin)");
  }
  auto parsed = util::ParseJson(text);
  if (!parsed) return Fail("the hook input is " + parsed.error());
  json& input = *parsed;
  if (!input.is_object()) return Fail("the hook input is not a JSON object");
  policy::ToolCall call;
  check::ReadCallContext(input, call);
  if (!call.hook_event_name.empty() && call.hook_event_name != "PreToolUse") {
    return Fail("togmal hook answers PreToolUse events only, got " + call.hook_event_name);
  }
  auto tool_name = input.find("tool_name");
  if (tool_name == input.end() || !tool_name->is_string() ||
      tool_name->get_ref<const std::string&>().empty()) {
    return Fail("the hook input has no tool_name string");
  }
  call.tool_name = tool_name->get<std::string>();
  auto tool_input = input.find("tool_input");
  if (tool_input == input.end() || !tool_input->is_object()) {
    return Fail("the hook input has no tool_input object (tool " + call.tool_name + ")");
  }
  call.tool_input = std::move(*tool_input);
  return call;
}

}  // namespace togmal::hook
