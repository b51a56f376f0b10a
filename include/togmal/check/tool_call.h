#pragma once
/// What the Judge asks of a tool call's host (policy/tool_call.h is the call).

#include "togmal/policy/tool_call.h"

namespace togmal::check {

/// Whether the host will put a call togmal passes to its own permission
/// system: the host has one, and its mode does not skip it (Claude Code's
/// `bypassPermissions` approves everything, `dontAsk` refuses to ask).
bool HostGateApplies(const policy::ToolCall& call);

}  // namespace togmal::check
