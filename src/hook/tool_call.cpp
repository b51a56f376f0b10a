#include "togmal/hook/tool_call.h"

namespace togmal::hook {
namespace {

using json = nlohmann::json;

std::string StringField(const json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void ReadContext(const json& object, ToolCallRequest& call) {
  call.cwd = StringField(object, "cwd");
  call.session_id = StringField(object, "session_id");
  call.agent_id = StringField(object, "agent_id");
  call.agent_type = StringField(object, "agent_type");
  call.tool_use_id = StringField(object, "tool_use_id");
  call.permission_mode = StringField(object, "permission_mode");
  call.hook_event_name = StringField(object, "hook_event_name");
}

}  // namespace

Result<ToolCallRequest> ParseHookInput(std::string_view text) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Fail("the hook input was empty (expected Claude Code's PreToolUse JSON on stdin)");
  }
  json input;
  try {
    input = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    return Fail("the hook input is not JSON: " + std::string(e.what()));
  }
  if (!input.is_object()) return Fail("the hook input is not a JSON object");
  ToolCallRequest call;
  ReadContext(input, call);
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

Result<ToolCallRequest> ParseCheckArguments(const json& raw) {
  const json* arguments = &raw;
  if (raw.is_object() && raw.size() == 1 && raw.contains("params") && raw["params"].is_object()) {
    arguments = &raw["params"];
  }
  if (!arguments->is_object()) return Fail("arguments must be an object");
  ToolCallRequest call;
  ReadContext(*arguments, call);
  call.tool_name = StringField(*arguments, "tool_name");
  if (call.tool_name.empty()) return Fail("tool_name is required");
  auto tool_input = arguments->find("tool_input");
  if (tool_input != arguments->end() && !tool_input->is_null()) {
    if (tool_input->is_object()) {
      call.tool_input = *tool_input;
    } else if (tool_input->is_string()) {
      // A hook may substitute the whole object as text.
      json parsed =
          json::parse(tool_input->get<std::string>(), nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_object()) return Fail("tool_input must be an object (or JSON text of one)");
      call.tool_input = std::move(parsed);
    } else {
      return Fail("tool_input must be an object");
    }
  }
  for (std::string_view field : kFlatToolInputFields) {
    std::string key(field);
    auto value = arguments->find(key);
    if (value == arguments->end() || call.tool_input.contains(key)) continue;
    if (value->is_string() && value->get_ref<const std::string&>().empty()) continue;
    if (value->is_null()) continue;
    call.tool_input[key] = *value;
  }
  return call;
}

}  // namespace togmal::hook
