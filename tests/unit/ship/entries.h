#pragma once
// Audit entries for the ship tests, as the store hands them back.

#include "togmal/store/audit_log.h"

namespace togmal::ship::testing {

inline store::AuditEntry Decision(int64_t id, std::string decision, std::string command) {
  store::AuditEntry entry;
  entry.id = id;
  entry.time = "2026-11-27T14:03:05.123456Z";
  entry.kind = store::AuditKind::kDecision;
  entry.session = "9f3c2a7e";
  entry.tool_name = "Bash";
  entry.input = {{"command", std::move(command)}};
  entry.decision = std::move(decision);
  entry.level = "L3";
  entry.source = "classifier";
  entry.detail = {{"cwd", "/home/dev/proj"}};
  entry.prev_hash = std::string(64, 'a');
  entry.hash = std::string(64, 'b');
  return entry;
}

}  // namespace togmal::ship::testing
