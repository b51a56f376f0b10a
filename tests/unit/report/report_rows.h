#pragma once
// Audit rows as the hook and the after-the-call hooks write them, for the
// report's tests.

#include <string>

#include "togmal/store/audit_log.h"

namespace togmal::report::testing {

inline store::AuditEntry DecisionRow(const std::string& time, const std::string& decision,
                                     const std::string& command, const std::string& cwd,
                                     const std::string& tool_use_id,
                                     const std::string& tool = "Bash") {
  store::AuditEntry entry;
  entry.time = time;
  entry.kind = store::AuditKind::kDecision;
  entry.session = "s1";
  entry.tool_name = tool;
  entry.input = {{"command", command}};
  entry.decision = decision;
  entry.level = decision == "deny" ? "L3" : decision == "allow" ? "L0" : "L2";
  entry.source = "classifier";
  entry.detail = {{"cwd", cwd}, {"reason", decision + " because of " + command}};
  if (!tool_use_id.empty()) entry.detail["tool_use_id"] = tool_use_id;
  if (decision != "allow") {
    // What the judge records: the fingerprint of the action and its code.
    entry.detail["fingerprint"] = "fp:" + tool + ":" + cwd + ":" + command;
    entry.detail["allow_code"] = "C" + std::to_string(command.size() % 10) + "X" +
                                 std::string(1, static_cast<char>('A' + cwd.size() % 20));
  }
  return entry;
}

inline store::AuditEntry OutcomeRow(const std::string& time, const std::string& outcome,
                                    const std::string& tool_use_id) {
  store::AuditEntry entry;
  entry.time = time;
  entry.kind = store::AuditKind::kOutcome;
  entry.session = "s1";
  entry.tool_name = "Bash";
  entry.decision = outcome;
  entry.source = "hook";
  entry.detail = {{"tool_use_id", tool_use_id}};
  return entry;
}

}  // namespace togmal::report::testing
