#include "togmal/check/tool_call.h"

#include "togmal/util/json_fields.h"

namespace togmal::check {

void ReadCallContext(const nlohmann::json& object, policy::ToolCall& call) {
  call.cwd = util::StringField(object, "cwd");
  call.session_id = util::StringField(object, "session_id");
  call.agent_id = util::StringField(object, "agent_id");
  call.agent_type = util::StringField(object, "agent_type");
  call.tool_use_id = util::StringField(object, "tool_use_id");
  call.permission_mode = util::StringField(object, "permission_mode");
  call.hook_event_name = util::StringField(object, "hook_event_name");
}

bool HostGateApplies(const policy::ToolCall& call) {
  if (!call.host_has_gate) return false;
  return call.permission_mode != "bypassPermissions" && call.permission_mode != "dontAsk";
}

}  // namespace togmal::check
