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
  /// False for a host that has no permission prompt of its own that a `pass`
  /// could hand the call to (Cursor): there togmal asks instead.
  bool host_has_gate = true;
};

/// Whether the host will put a call togmal passes to its own permission
/// system: the host has one, and its mode does not skip it (Claude Code's
/// `bypassPermissions` approves everything, `dontAsk` refuses to ask).
bool HostGateApplies(const ToolCallRequest& call);

}  // namespace togmal::check
