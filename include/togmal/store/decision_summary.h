#pragma once
/// The audit trail's decisions aggregated for a person to look at (`togmal
/// report`): per day, project and tool, and per action (what a call did),
/// with what became of each asked or passed call: the outcome entries the
/// after-the-call hooks record (kind "outcome", joined by the host's
/// tool_use_id) say whether the person approved it or refused it.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "togmal/store/audit_filter.h"
#include "togmal/util/result.h"

namespace togmal::store {

class AuditLog;

/// decision ("allow", "pass", "ask", "deny") → entries.
using DecisionCountMap = std::map<std::string, int64_t>;

/// What became of a call after its decision. An outcome "ran" or "failed"
/// means the call went ahead (approved); "refused" that the person or the
/// host refused it; no outcome at all is unknown (an older install without
/// the after-the-call hooks, or a host that sends none).
enum class Answer { kUnknown, kApproved, kRefused };

/// Answer of an outcome entry's decision column; kUnknown for anything else.
Answer AnswerOfOutcome(std::string_view outcome);

/// One action (the same tool, input fields that act and working directory:
/// the allow code's fingerprint) and every decision made on it.
struct ActionTally {
  std::string fingerprint;  ///< empty for entries written before allow codes
  std::string tool_name;
  nlohmann::json input;  ///< the newest entry's (redacted) input
  std::string cwd;
  std::string decision;    ///< the newest decision
  std::string level;       ///< the newest level
  std::string reason;      ///< the newest decision's reason
  std::string allow_code;  ///< the newest code (`togmal allow CODE` finds it)
  std::string last_time;
  int64_t count = 0;
  DecisionCountMap by_decision;
  /// Of the asked and passed calls: approved, refused, no outcome recorded.
  int64_t approved = 0, refused = 0, unknown = 0;
};

struct DecisionSummary {
  int64_t total = 0;
  DecisionCountMap by_decision;
  std::map<std::string, int64_t> by_level;
  /// "YYYY-MM-DD" (UTC, as stored) → decision → entries.
  std::map<std::string, DecisionCountMap> by_day;
  /// The call's working directory ("" when the host sent none) → decision → entries.
  std::map<std::string, DecisionCountMap> by_project;
  std::map<std::string, DecisionCountMap> by_tool;
  /// Actions that were asked, passed or denied at least once, most decisions first.
  std::vector<ActionTally> actions;
  /// Asked and passed calls by answer, over all actions.
  int64_t approved = 0, refused = 0, unknown = 0;
};

/// Reads every decision entry that passes `filter` (kind "decision"; with no
/// decisions in the filter: allow, pass, ask and deny) and the outcome
/// entries recorded since filter.since, and aggregates them.
Result<DecisionSummary> SummarizeDecisions(AuditLog& log, const AuditFilter& filter);

}  // namespace togmal::store
