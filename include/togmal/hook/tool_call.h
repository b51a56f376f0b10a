#pragma once
/// The tool call togmal judges, read from either of the two ways Claude Code
/// hands it over: a command hook's stdin (design.md §2.2) or the arguments of
/// `togmal_check_tool_call` (an `mcp_tool` hook substitutes flat fields such
/// as `${tool_input.command}` into them).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "togmal/util/result.h"

namespace togmal::hook {

/// One tool call and its context. Empty strings mean "not given".
struct ToolCallRequest {
  std::string tool_name;
  nlohmann::json tool_input = nlohmann::json::object();
  std::string cwd;
  std::string session_id;
  std::string agent_id;
  std::string agent_type;
  std::string tool_use_id;
  std::string permission_mode;
  std::string hook_event_name;
};

/// Parses the JSON Claude Code writes to a PreToolUse command hook's stdin.
/// Unknown fields are ignored; empty input, malformed JSON, a missing or
/// non-string `tool_name`, a missing or non-object `tool_input`, and an event
/// other than PreToolUse are errors (the caller fails safe).
Result<ToolCallRequest> ParseHookInput(std::string_view text);

/// The tool_input fields an `mcp_tool` hook can pass flat, by substitution
/// (`"command": "${tool_input.command}"`).
inline constexpr std::string_view kFlatToolInputFields[] = {
    "command",    "file_path",  "path",   "url",   "pattern",       "content",
    "old_string", "new_string", "prompt", "query", "notebook_path", "description"};

/// Reads togmal_check_tool_call's arguments: `tool_input` as an object (or as
/// a JSON string holding one), or the flat fields above collected into one;
/// `{"params": {...}}` is unwrapped. Empty flat fields (what a substitution
/// of an absent field yields) are left out.
Result<ToolCallRequest> ParseCheckArguments(const nlohmann::json& arguments);

}  // namespace togmal::hook
