#pragma once
/// What became of calls after togmal decided them, recorded as each call's
/// outcome (store::AuditKind::kOutcome), so that the audit trail says whether
/// a call handed to the person (pass, ask) ran or was refused. Only such
/// calls get an outcome: an allowed call runs and a denied one does not, so
/// their outcome says nothing new and would double the trail. Each host's
/// events are read into this by its front end (hook/after_tool_use.h).

#include <string>
#include <vector>

#include "togmal/check/recording.h"
#include "togmal/util/result.h"

namespace togmal::store {
class AuditLog;
}  // namespace togmal::store

namespace togmal::check {

struct CallOutcomes {
  std::string event;  ///< the host's event name, stored with each outcome
  std::string session_id;
  std::string cwd;
  struct Call {
    std::string tool_use_id;
    std::string tool_name;
    std::string outcome;        ///< "ran", "failed" or "refused"
    std::string reason;         ///< the host's words, if any
    bool only_if_none = false;  ///< only when no outcome is recorded yet
  };
  std::vector<Call> calls;
};

/// Records each call's outcome in `log`; returns how many were recorded.
Result<int> RecordOutcomes(const CallOutcomes& outcomes, store::AuditLog& log);

/// The same, in the database `target` names (opened for this and closed).
Result<int> RecordOutcomes(const CallOutcomes& outcomes, const AuditTarget& target);

}  // namespace togmal::check
