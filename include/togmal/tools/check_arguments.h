#pragma once
/// The arguments of togmal_check_tool_call. Claude Code's `mcp_tool` hook
/// handler substitutes fields into them (`"command": "${tool_input.command}"`),
/// so the tool input may come as an object, as JSON text of one, or as flat
/// fields.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "togmal/check/tool_call.h"
#include "togmal/util/result.h"

namespace togmal::tools {

/// The tool_input fields an `mcp_tool` hook can pass flat.
inline constexpr std::string_view kFlatToolInputFields[] = {
    "command",    "file_path",  "path",   "url",   "pattern",       "content",
    "old_string", "new_string", "prompt", "query", "notebook_path", "description"};

/// A call read from the arguments, and how its tool input was given.
struct CheckArguments {
  policy::ToolCall call;
  /// Flat fields that were given but not used because `tool_input` holds the
  /// same field with another value (the call is judged by tool_input; the
  /// result says so). Empty when nothing was ambiguous.
  std::vector<std::string> ignored_flat_fields;
};

/// Reads the arguments: `tool_input` as an object (or JSON text of one, depth
/// bounded) and the flat fields above merged in where tool_input lacks them.
/// Empty flat fields (what substituting an absent field yields) are left out.
/// A flat field that conflicts with tool_input is reported, never silently
/// dropped.
Result<CheckArguments> ParseCheckArguments(const nlohmann::json& arguments);

}  // namespace togmal::tools
