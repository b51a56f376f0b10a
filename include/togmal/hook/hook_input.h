#pragma once
/// What Claude Code writes to a PreToolUse command hook's stdin:
/// `{session_id, transcript_path, cwd, permission_mode, hook_event_name,
/// tool_name, tool_input, tool_use_id, agent_id?, agent_type?}`.

#include <string_view>

#include "togmal/check/tool_call.h"
#include "togmal/util/result.h"

namespace togmal::hook {

/// Parses the hook input. Unknown fields are ignored; empty input, malformed
/// or too deeply nested JSON, a missing or non-string `tool_name`, a missing
/// or non-object `tool_input`, and an event other than PreToolUse are errors
/// (the caller fails safe).
Result<policy::ToolCall> ParseHookInput(std::string_view text);

}  // namespace togmal::hook
