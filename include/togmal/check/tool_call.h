#pragma once
/// The tool call togmal judges, with its context, however it arrived (a
/// hook's stdin, the arguments of togmal_check_tool_call, `togmal check`'s
/// command line). Each front end parses its own format into this.

#include <nlohmann/json.hpp>
#include <string>

namespace togmal::check {

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

}  // namespace togmal::check
