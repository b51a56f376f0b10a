#pragma once
/// The tool call togmal judges, with its context, however it arrived (a
/// hook's stdin, the arguments of togmal_check_tool_call, `togmal check`'s
/// command line). Each front end parses its own format into this one struct;
/// the classifier reads its tool and input, the rules (rules::Facts) the rest.

#include <nlohmann/json.hpp>
#include <string>

namespace togmal::policy {

/// One tool call and its context. Empty strings mean "not given".
struct ToolCall {
  std::string tool_name{};  ///< "Bash", "Write", "mcp__server__tool", …
  nlohmann::json tool_input = nlohmann::json::object();  ///< the tool's arguments
  std::string cwd{};                                     ///< the project directory
  std::string session_id{};
  std::string agent_id{};    ///< "" for the main agent
  std::string agent_type{};  ///< "" for the main agent
  std::string tool_use_id{};
  std::string permission_mode{};
  std::string hook_event_name{};
  /// False for a host that has no permission prompt of its own that a `pass`
  /// could hand the call to (Cursor): there togmal asks instead.
  bool host_has_gate = true;
};

}  // namespace togmal::policy
