#include "togmal/check/outcomes.h"

#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::check {

Result<int> RecordOutcomes(const CallOutcomes& outcomes, store::AuditLog& log) {
  int recorded = 0;
  for (const CallOutcomes::Call& call : outcomes.calls) {
    auto known = log.RecentToolUse(call.tool_use_id);
    if (!known) return Fail(known.error());
    if (known->decision.empty() || (call.only_if_none && known->has_outcome)) continue;
    store::AuditEntry entry;
    entry.kind = store::AuditKind::kOutcome;
    entry.session = outcomes.session_id;
    entry.tool_name = call.tool_name;
    entry.decision = call.outcome;
    entry.detail = {{"tool_use_id", call.tool_use_id},
                    {"event", outcomes.event},
                    {"cwd", outcomes.cwd},
                    {"decided", known->decision},
                    {"via", "hook"}};
    if (!call.reason.empty()) entry.detail["reason"] = call.reason;
    auto appended = log.Append(std::move(entry));
    if (!appended) return Fail(appended.error());
    ++recorded;
  }
  return recorded;
}

Result<int> RecordOutcomes(const CallOutcomes& outcomes, const AuditTarget& target) {
  auto database = OpenFor(target);
  if (!database) return Fail(database.error());
  store::AuditLog log(*database, store::AuditOptions{.store_raw_input = target.store_raw_input});
  return RecordOutcomes(outcomes, log);
}

}  // namespace togmal::check
