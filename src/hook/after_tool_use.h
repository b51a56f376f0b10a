#pragma once
/// Claude Code's events after a call's decision, recorded as the call's
/// outcome (store::AuditKind::kOutcome), so that the audit trail says whether
/// a call togmal handed to the person (pass, ask) ran or was refused:
///
///   PostToolUse         the call ran                                → "ran"
///   PostToolUseFailure  it ran and failed                            → "failed"
///   PermissionDenied    auto mode's classifier refused it            → "refused"
///   PostToolBatch       every call of the batch has resolved: one
///                       that has no outcome yet neither ran nor
///                       failed, so the person (or the host) refused it → "refused"
///
/// A person's "no" in Claude Code's prompt fires no event of its own; the
/// batch is where it shows. Only calls whose decision was pass or ask get an
/// outcome: an allowed call runs and a denied one does not, so their outcome
/// says nothing new and would double the trail. These events never block: the
/// hook prints nothing and exits 0 whatever happens.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/store/audit_log.h"
#include "togmal/util/result.h"

namespace togmal::hook {

struct AfterToolUse {
  std::string event;  ///< the hook_event_name
  std::string session_id;
  std::string cwd;
  struct Call {
    std::string tool_use_id;
    std::string tool_name;
    std::string outcome;        ///< "ran", "failed" or "refused"
    std::string reason;         ///< the host's words (PermissionDenied, PostToolUseFailure)
    bool only_if_none = false;  ///< PostToolBatch: only when no outcome is recorded yet
  };
  std::vector<Call> calls;
};

/// The event in `input` if it is one of the four, else std::nullopt. Cheap for
/// the PreToolUse input of every call: the text is searched before it is parsed.
std::optional<AfterToolUse> ParseAfterToolUse(std::string_view input);

/// Records each call's outcome in `log`; returns how many were recorded.
Result<int> RecordAfterToolUse(const AfterToolUse& event, store::AuditLog& log);

}  // namespace togmal::hook
