// Aggregates decisions in one pass over the audit trail (AuditLog::ForEach
// pages through it with the caller's filter), so the report reads the same
// entries, through the same filter SQL, as `audit tail` and `audit export`.
#include "togmal/store/decision_summary.h"

#include <algorithm>
#include <unordered_map>

#include "togmal/store/audit_log.h"

namespace togmal::store {
namespace {

using nlohmann::json;

std::string DetailText(const json& detail, const char* key) {
  if (!detail.is_object()) return {};
  auto found = detail.find(key);
  return found != detail.end() && found->is_string() ? found->get<std::string>() : std::string();
}

bool Answered(const std::string& decision) { return decision == "ask" || decision == "pass"; }

}  // namespace

Answer AnswerOfOutcome(std::string_view outcome) {
  if (outcome == "ran" || outcome == "failed") return Answer::kApproved;
  if (outcome == "refused") return Answer::kRefused;
  return Answer::kUnknown;
}

Result<DecisionSummary> SummarizeDecisions(AuditLog& log, const AuditFilter& filter) {
  // Outcomes first: each follows its decision, so the same lower time bound
  // finds every outcome of the decisions read below. The project, tool and
  // level of an outcome are its decision's, so only time bounds apply.
  std::unordered_map<std::string, Answer> answers;
  AuditFilter outcomes;
  outcomes.since = filter.since;
  outcomes.decisions = {"ran", "failed", "refused"};
  auto read_outcomes = log.ForEach(
      [&answers](const AuditEntry& entry) {
        if (entry.kind != AuditKind::kOutcome) return;
        const std::string id = DetailText(entry.detail, "tool_use_id");
        // The last word counts (a call refused after it first ran is refused).
        if (!id.empty()) answers[id] = AnswerOfOutcome(entry.decision);
      },
      outcomes);
  if (!read_outcomes) return Fail(read_outcomes.error());

  AuditFilter decisions = filter;
  if (decisions.decisions.empty()) decisions.decisions = {"allow", "pass", "ask", "deny"};
  DecisionSummary summary;
  std::unordered_map<std::string, std::size_t> action_index;
  auto read = log.ForEach(
      [&](const AuditEntry& entry) {
        if (entry.kind != AuditKind::kDecision) return;
        const std::string cwd = DetailText(entry.detail, "cwd");
        ++summary.total;
        ++summary.by_decision[entry.decision];
        ++summary.by_level[entry.level];
        ++summary.by_day[entry.time.substr(0, 10)][entry.decision];
        ++summary.by_project[cwd][entry.decision];
        ++summary.by_tool[entry.tool_name][entry.decision];
        if (entry.decision == "allow") return;

        const std::string fingerprint = DetailText(entry.detail, "fingerprint");
        const std::string key =
            !fingerprint.empty()
                ? fingerprint
                : entry.tool_name + '\n' + cwd + '\n' +
                      entry.input.dump(-1, ' ', false, json::error_handler_t::replace);
        auto [slot, added] = action_index.try_emplace(key, summary.actions.size());
        if (added) summary.actions.emplace_back();
        ActionTally& action = summary.actions[slot->second];
        // Entries come oldest first: the newest one's fields win.
        action.fingerprint = fingerprint;
        action.tool_name = entry.tool_name;
        action.input = entry.input;
        action.cwd = cwd;
        action.decision = entry.decision;
        action.level = entry.level;
        action.reason = DetailText(entry.detail, "reason");
        const std::string code = DetailText(entry.detail, "allow_code");
        if (!code.empty()) action.allow_code = code;
        action.last_time = entry.time;
        ++action.count;
        ++action.by_decision[entry.decision];
        if (!Answered(entry.decision)) return;
        auto answer = answers.find(DetailText(entry.detail, "tool_use_id"));
        const Answer given = answer == answers.end() ? Answer::kUnknown : answer->second;
        int64_t ActionTally::*counter = given == Answer::kApproved  ? &ActionTally::approved
                                        : given == Answer::kRefused ? &ActionTally::refused
                                                                    : &ActionTally::unknown;
        ++(action.*counter);
        int64_t DecisionSummary::*total = given == Answer::kApproved  ? &DecisionSummary::approved
                                          : given == Answer::kRefused ? &DecisionSummary::refused
                                                                      : &DecisionSummary::unknown;
        ++(summary.*total);
      },
      decisions);
  if (!read) return Fail(read.error());
  std::stable_sort(summary.actions.begin(), summary.actions.end(),
                   [](const ActionTally& a, const ActionTally& b) {
                     if (a.count != b.count) return a.count > b.count;
                     return a.last_time > b.last_time;
                   });
  return summary;
}

}  // namespace togmal::store
