#include "togmal/ship/record.h"

#include <unistd.h>

#include <climits>

#include "togmal/version.h"

namespace togmal::ship {

using nlohmann::json;

namespace {

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

ShipContext CurrentContext() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name) != 0) name[0] = '\0';
  name[HOST_NAME_MAX] = '\0';
  return {name, std::string(kVersion)};
}

std::string EntryProject(const store::AuditEntry& entry) {
  if (!entry.detail.is_object()) return {};
  const auto cwd = entry.detail.find("cwd");
  return cwd != entry.detail.end() && cwd->is_string() ? cwd->get<std::string>() : std::string();
}

std::string EntryBody(const store::AuditEntry& entry) {
  if (!entry.input.is_null()) return Dump(entry.input);
  if (!entry.detail.is_null()) return Dump(entry.detail);
  return {};
}

std::vector<Attribute> EntryAttributes(const store::AuditEntry& entry, const ShipContext& context) {
  std::vector<Attribute> attributes;
  auto text = [&attributes](const char* key, const std::string& value) {
    if (!value.empty()) attributes.push_back({key, value});
  };
  text("kind", std::string(store::AuditKindName(entry.kind)));
  text("decision", entry.decision);
  text("level", entry.level);
  text("tool", entry.tool_name);
  text("project", EntryProject(entry));
  text("session", entry.session);
  text("rule", entry.rule);
  text("source", entry.source);
  text("host", context.host);
  attributes.push_back({"seq", entry.id});
  attributes.push_back({"prev_hash", entry.prev_hash});
  attributes.push_back({"hash", entry.hash});
  return attributes;
}

Severity EntrySeverity(const store::AuditEntry& entry) {
  if (entry.kind != store::AuditKind::kDecision) return Severity::kInfo;
  if (entry.decision == "deny") return Severity::kWarning;
  if (entry.decision == "ask") return Severity::kNotice;
  return Severity::kInfo;
}

}  // namespace togmal::ship
