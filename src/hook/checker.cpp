#include "togmal/hook/checker.h"

#include <algorithm>
#include <cctype>

#include "togmal/policy/classifier.h"
#include "togmal/store/audit_log.h"

namespace togmal::hook {
namespace {

using json = nlohmann::json;

bool IsShellTool(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "bash";
}

}  // namespace

Result<rules::Decision> CheckToolCall(const ToolCallRequest& call, const rules::RuleSet& rules,
                                      const rules::DecisionSettings& settings) {
  const policy::Classifier& classifier = policy::Classifier::Default();
  policy::ToolCall tool_call{call.tool_name, call.tool_input, call.cwd};
  policy::Classification classification = classifier.Classify(tool_call);

  rules::Facts facts;
  facts.tool_name = call.tool_name;
  facts.tool_input = call.tool_input;
  facts.cwd = call.cwd;
  facts.agent_id = call.agent_id;
  facts.agent_type = call.agent_type;
  facts.level = static_cast<int>(classification.level);
  auto command = call.tool_input.find("command");
  if (IsShellTool(call.tool_name) && command != call.tool_input.end() && command->is_string()) {
    // Lexed again only if a rule's `command` condition is reached.
    std::string text = command->get<std::string>();
    facts.segment_source = [&classifier, text] {
      std::vector<std::string> segments;
      for (const policy::ExecutedSegment& segment : classifier.ExecutedSegments(text)) {
        segments.push_back(segment.text);
      }
      return segments;
    };
  }
  std::vector<rules::Finding> findings;
  findings.reserve(classification.findings.size());
  if (!classification.findings.empty()) {
    // The deciding finding first: it explains the level.
    const policy::Finding& deciding = classification.Deciding();
    findings.push_back({static_cast<int>(deciding.level), deciding.why, deciding.segment});
    for (std::size_t i = 0; i < classification.findings.size(); ++i) {
      if (i == classification.deciding) continue;
      const policy::Finding& finding = classification.findings[i];
      findings.push_back({static_cast<int>(finding.level), finding.why, finding.segment});
    }
  }
  return rules::Decide(rules, facts, findings, settings);
}

store::AuditEntry MakeAuditEntry(const ToolCallRequest& call, const rules::Decision& decision,
                                 std::string_view via, int64_t latency_us) {
  store::AuditEntry entry;
  entry.kind = store::AuditKind::kDecision;
  entry.session = call.session_id.empty() ? std::string(via) : call.session_id;
  entry.tool_name = call.tool_name;
  entry.input = call.tool_input;
  entry.decision = std::string(rules::PermissionName(decision.permission));
  entry.level = rules::LevelName(decision.level);
  entry.rule = decision.rule_id;
  entry.source = std::string(rules::SourceName(decision.source));
  entry.reasons = rules::DecisionJson(decision)["reasons"];
  entry.latency_us = latency_us;
  json detail = {{"via", via}, {"reason", decision.reason}};
  auto put = [&detail](const char* key, const std::string& value) {
    if (!value.empty()) detail[key] = value;
  };
  put("cwd", call.cwd);
  put("agent_id", call.agent_id);
  put("agent_type", call.agent_type);
  put("tool_use_id", call.tool_use_id);
  put("permission_mode", call.permission_mode);
  put("rule_where", decision.rule_where);
  put("tightened_by", decision.tightened_by);
  put("notice", decision.notice);
  entry.detail = std::move(detail);
  return entry;
}

void TightenForAuditFailure(rules::Decision& decision, std::string_view error) {
  if (decision.permission == rules::Permission::kAllow) {
    decision.permission = rules::Permission::kAsk;
    decision.notice.clear();
    decision.reason +=
        "; but the audit trail could not be written (" + std::string(error) + "), so asking";
  } else {
    decision.reason += " (not audited: " + std::string(error) + ")";
  }
}

std::optional<int64_t> RecordDecision(store::AuditLog* log, const ToolCallRequest& call,
                                      rules::Decision& decision, std::string_view via,
                                      int64_t latency_us, std::string_view open_error) {
  if (log == nullptr) {
    TightenForAuditFailure(decision, open_error.empty() ? "no audit log" : open_error);
    return std::nullopt;
  }
  auto id = log->Append(MakeAuditEntry(call, decision, via, latency_us));
  if (!id) {
    TightenForAuditFailure(decision, id.error());
    return std::nullopt;
  }
  return *id;
}

}  // namespace togmal::hook
