#pragma once
/// Judges one tool call: the classifier's level and findings, then the rules
/// (rules/decision.h), then the audit record. Shared by `togmal hook` and the
/// `togmal_check_tool_call` MCP tool so both decide exactly alike.

#include <cstdint>
#include <optional>
#include <string_view>

#include "togmal/hook/tool_call.h"
#include "togmal/rules/decision.h"
#include "togmal/rules/rule.h"
#include "togmal/util/result.h"

namespace togmal::store {
class AuditLog;
struct AuditEntry;
}  // namespace togmal::store

namespace togmal::hook {

/// Classifies `call` and decides with `rules` and `settings`. A SAMPLE rule
/// is left unresolved (decision.action == kSample, permission ask): the caller
/// either asks a model or calls rules::ResolveSampleAsAsk.
Result<rules::Decision> CheckToolCall(const ToolCallRequest& call, const rules::RuleSet& rules,
                                      const rules::DecisionSettings& settings);

/// The audit entry for a decision. `via` is "hook" or "mcp"; `session`
/// falls back to it when the call carries no session id.
store::AuditEntry MakeAuditEntry(const ToolCallRequest& call, const rules::Decision& decision,
                                 std::string_view via, int64_t latency_us);

/// Appends the decision to `log`. If that fails the decision is tightened
/// (allow → ask) and its reason says the audit trail could not be written:
/// nothing is allowed without a record. Returns the entry's id on success.
std::optional<int64_t> RecordDecision(store::AuditLog* log, const ToolCallRequest& call,
                                      rules::Decision& decision, std::string_view via,
                                      int64_t latency_us, std::string_view open_error = {});

/// Marks `decision` as unaudited: allow becomes ask; the reason names `error`.
void TightenForAuditFailure(rules::Decision& decision, std::string_view error);

}  // namespace togmal::hook
