#pragma once
/// What the Judge asks of a tool call's host (policy/tool_call.h is the call).

#include <nlohmann/json.hpp>

#include "togmal/policy/tool_call.h"

namespace togmal::check {

/// The call's context under the names Claude Code's hook input gives it
/// (cwd, session_id, agent_id, agent_type, tool_use_id, permission_mode,
/// hook_event_name), each read from `object` when it is a string, else
/// empty. The hook's input and togmal_check_tool_call's arguments share them.
void ReadCallContext(const nlohmann::json& object, policy::ToolCall& call);

/// Whether the host will put a call togmal passes to its own permission
/// system: the host has one, and its mode does not skip it (Claude Code's
/// `bypassPermissions` approves everything, `dontAsk` refuses to ask).
bool HostGateApplies(const policy::ToolCall& call);

}  // namespace togmal::check
