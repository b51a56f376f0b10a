#include "togmal/check/judge.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>

#include "togmal/policy/classifier.h"
#include "togmal/rules/rule_loader.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/settings.h"
#include "togmal/store/stored_input.h"
#include "togmal/util/text.h"

namespace togmal::check {
namespace {

using json = nlohmann::json;

bool IsShellTool(std::string_view name) { return util::AsciiLower(name) == "bash"; }

// A broken file may have held the rule that would have denied or asked for
// this call, and its own author cannot tell which calls it covers: while one
// is broken, nothing is auto-approved — neither allowed nor left to the host.
// Asks and denies stand as the layers that did load decided them.
void AskWhileConfigurationIsBroken(const std::vector<std::string>& broken,
                                   rules::Decision& decision) {
  if (broken.empty()) return;
  if (decision.permission != rules::Permission::kAllow &&
      decision.permission != rules::Permission::kPass) {
    return;
  }
  decision.permission = rules::Permission::kAsk;
  if (decision.action == rules::Action::kPass) decision.action = rules::Action::kAsk;
  decision.notice.clear();
  decision.reason += "; but asking: " + broken.front();
  if (broken.size() > 1) decision.reason += " (and " + std::to_string(broken.size() - 1) + " more)";
  decision.reason += " — nothing is auto-approved until it is fixed";
}

// A pass where the host will not put the call to a person: togmal asks.
void ResolvePassWithoutGate(const policy::ToolCall& call, rules::Decision& decision) {
  if (decision.permission != rules::Permission::kPass || HostGateApplies(call)) return;
  decision.permission = rules::Permission::kAsk;
  if (decision.action == rules::Action::kPass) decision.action = rules::Action::kAsk;
  decision.reason +=
      call.host_has_gate
          ? " (asking: in " + call.permission_mode + " mode the host would not ask a person itself)"
          : " (asking: this host has no permission prompt togmal could leave it to)";
}

}  // namespace

rules::DecisionSettings ReadDecisionSettings(const util::SettingsLayers& loaded,
                                             std::vector<std::string>& broken) {
  broken.insert(broken.end(), loaded.ignored.begin(), loaded.ignored.end());
  rules::DecisionSettings settings = rules::DecisionSettingsFrom(loaded.layers, broken);
  if (auto store_settings = store::StoreSettingsFrom(loaded.layers); !store_settings) {
    broken.push_back(store_settings.error());
  }
  return settings;
}

Result<Policy> LoadPolicy(const std::filesystem::path& cwd, rules::DecisionSettings settings,
                          std::vector<std::string> broken_settings,
                          const std::optional<std::filesystem::path>& user_rules) {
  auto rule_set = rules::LoadRules({.cwd = cwd, .user_file = user_rules});
  if (!rule_set) return Fail(rule_set.error());
  return Policy{.rules = std::make_shared<const rules::RuleSet>(std::move(*rule_set)),
                .settings = settings,
                .broken_settings = std::move(broken_settings)};
}

Result<Policy> LoadPolicy(const std::filesystem::path& cwd, const util::SettingsLayers& loaded,
                          const std::optional<std::filesystem::path>& user_rules) {
  std::vector<std::string> broken;
  const rules::DecisionSettings settings = ReadDecisionSettings(loaded, broken);
  return LoadPolicy(cwd, settings, std::move(broken), user_rules);
}

std::vector<std::string> BrokenConfiguration(const Policy& policy) {
  std::vector<std::string> broken = policy.broken_settings;
  if (policy.rules) {
    broken.insert(broken.end(), policy.rules->ignored.begin(), policy.rules->ignored.end());
  }
  return broken;
}

Result<Judgement> JudgeWhatIf(const policy::ToolCall& call, SampleShown sample,
                              std::vector<std::string>& broken) {
  auto policy = LoadPolicy(call.cwd, util::LoadSettingsLayers());
  if (!policy) return Fail(policy.error());
  broken = BrokenConfiguration(*policy);
  SampleResolver keep_sample = nullptr;
  if (sample == SampleShown::kAsSample) {
    keep_sample = [](const policy::ToolCall&, rules::Decision&) { return true; };
  }
  const Judge judge({.via = "cli",
                     .recording = Recording::kWhatIf,
                     .audit = nullptr,
                     .resolve_sample = std::move(keep_sample),
                     .grants = nullptr});
  return judge.Decide(call, *policy);
}

Result<rules::Decision> Evaluate(const policy::ToolCall& call, const rules::RuleSet& rule_set,
                                 const rules::DecisionSettings& settings) {
  const policy::Classifier& classifier = policy::Classifier::Default(settings.profile);
  policy::Classification classification = classifier.Classify(call);

  rules::Facts facts;
  facts.call = call;
  facts.level = classification.level;
  auto command = call.tool_input.find("command");
  if (IsShellTool(call.tool_name) && command != call.tool_input.end() && command->is_string()) {
    // The classifier's walk collected them; copied out only if a rule's
    // `command` condition is reached.
    facts.segment_source = [executed = std::move(classification.segments)] {
      std::vector<std::string> segments;
      segments.reserve(executed.size());
      for (const policy::ExecutedSegment& segment : executed) segments.push_back(segment.text);
      return segments;
    };
  }
  // The deciding finding first: it explains the level.
  std::vector<policy::Finding> findings;
  findings.reserve(classification.findings.size());
  if (!classification.findings.empty()) {
    findings.push_back(classification.Deciding());
    for (std::size_t i = 0; i < classification.findings.size(); ++i) {
      if (i != classification.deciding) findings.push_back(classification.findings[i]);
    }
  }
  return rules::ApplyRules(rule_set, facts, findings, settings);
}

Judgement Judge::Decide(const policy::ToolCall& call, const Policy& policy,
                        Clock::time_point started) const {
  const std::vector<std::string> broken = BrokenConfiguration(policy);
  if (!policy.rules) return Refuse(call, policy.settings, "no rules loaded", started, broken);
  rules::Decision decision;
  try {
    auto decided = Evaluate(call, *policy.rules, policy.settings);
    if (!decided) return Refuse(call, policy.settings, decided.error(), started, broken);
    decision = std::move(*decided);
    if (decision.source == rules::Source::kRule && decision.action == rules::Action::kSample) {
      if (options_.resolve_sample) {
        if (!options_.resolve_sample(call, decision)) {
          return Judgement{
              .decision = std::move(decision), .audit_id = {}, .pending = true, .allow_code = {}};
        }
      } else {
        rules::ResolveSampleAsAsk(decision, "");
      }
    }
  } catch (const std::exception& e) {
    return Refuse(call, policy.settings, std::string("internal error: ") + e.what(), started,
                  broken);
  }
  AskWhileConfigurationIsBroken(broken, decision);
  ResolvePassWithoutGate(call, decision);
  std::optional<AllowCodeMark> mark;
  if (decision.permission != rules::Permission::kAllow) mark = ApplyAllowCode(call, decision);
  return Record(call, std::move(decision), broken, started, std::move(mark));
}

AllowCodeMark Judge::ApplyAllowCode(const policy::ToolCall& call, rules::Decision& decision) const {
  AllowCodeMark mark;
  mark.fingerprint = store::CallFingerprint(call.tool_name, call.tool_input, call.cwd);
  mark.code = store::AllowCode(mark.fingerprint);
  if (decision.source == rules::Source::kRule && decision.rule_layer == rules::Layer::kSystem) {
    // The administrator's ceiling: no grant of the user's lets the call through.
    decision.reason += " (the system policy decided: `togmal allow` cannot let it through)";
    return mark;
  }
  if (options_.grants) {
    // A lookup that fails (locked database) leaves the policy's decision.
    auto grant = options_.grants(mark.fingerprint, options_.recording == Recording::kAudited);
    if (!grant) spdlog::warn("allow grants: {}", grant.error());
    if (grant && *grant) mark.grant = std::move(**grant);
  }
  if (!mark.grant) {
    // For the person: the agent cannot run it (classifier.yaml makes
    // `togmal allow CODE` L3), so only the user can let the call through.
    decision.reason += " (togmal allow " + mark.code + ")";
    return mark;
  }
  const store::AllowGrant& grant = *mark.grant;
  std::string how = std::string(store::GrantScopeName(grant.scope));
  if (grant.scope == store::GrantScope::kUntil) how = "until " + grant.expires_at;
  decision.permission = rules::Permission::kAllow;
  decision.notice = "togmal: let through by `togmal allow " + mark.code + "` (" + how + ")";
  decision.reason = decision.notice + "; the policy said: " + decision.reason;
  return mark;
}

Judgement Judge::Refuse(const policy::ToolCall& call, const rules::DecisionSettings& settings,
                        std::string_view error, Clock::time_point started,
                        const std::vector<std::string>& warnings) const {
  return Record(call, rules::ErrorDecision(settings, error), warnings, started);
}

Judgement Judge::Record(const policy::ToolCall& call, rules::Decision decision,
                        const std::vector<std::string>& warnings, Clock::time_point started,
                        std::optional<AllowCodeMark> mark) const {
  Judgement judgement;
  judgement.allow_code = std::move(mark);
  if (options_.recording == Recording::kWhatIf) {
    judgement.decision = std::move(decision);
    return judgement;
  }
  if (!options_.audit) {
    TightenForAuditFailure(decision, "no audit trail is configured");
    judgement.decision = std::move(decision);
    return judgement;
  }
  auto latency =
      std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started).count();
  Result<int64_t> appended = Fail("the audit trail could not be written");
  try {
    appended =
        options_.audit(MakeAuditEntry(call, decision, options_.via, latency, warnings,
                                      judgement.allow_code ? &*judgement.allow_code : nullptr));
  } catch (const std::exception& e) {
    appended = Fail(e.what());
  }
  if (appended) {
    judgement.audit_id = *appended;
  } else {
    spdlog::error("audit: {}", appended.error());
    TightenForAuditFailure(decision, appended.error());
  }
  judgement.decision = std::move(decision);
  return judgement;
}

store::AuditEntry MakeAuditEntry(const policy::ToolCall& call, const rules::Decision& decision,
                                 std::string_view via, int64_t latency_us,
                                 const std::vector<std::string>& warnings,
                                 const AllowCodeMark* mark) {
  store::AuditEntry entry;
  entry.kind = store::AuditKind::kDecision;
  // Every field the host sent is stored bounded, like the input.
  const auto bounded = [](std::string_view text) {
    return util::Shorten(text, store::kMaxStoredFieldBytes);
  };
  entry.session = bounded(call.session_id.empty() ? via : std::string_view(call.session_id));
  entry.tool_name = bounded(call.tool_name);
  // Bounded here already, so that an oversize input is never copied whole.
  entry.input = store::BoundedInput(call.tool_input);
  entry.decision = std::string(rules::PermissionName(decision.permission));
  entry.level = std::string(policy::LevelName(decision.level));
  entry.rule = decision.rule_id;
  entry.source = std::string(rules::SourceName(decision.source));
  entry.reasons = rules::DecisionReasonsJson(decision);
  entry.latency_us = latency_us;
  json detail = {{"via", via}, {"reason", decision.reason}};
  auto put = [&detail, &bounded](const char* key, const std::string& value) {
    if (!value.empty()) detail[key] = bounded(value);
  };
  put("cwd", call.cwd);
  put("agent_id", call.agent_id);
  put("agent_type", call.agent_type);
  put("tool_use_id", call.tool_use_id);
  put("permission_mode", call.permission_mode);
  put("rule_where", decision.rule_where);
  put("tightened_by", decision.tightened_by);
  put("notice", decision.notice);
  if (!warnings.empty()) detail["config_ignored"] = warnings;
  if (mark != nullptr) {
    // FindCall looks the code up here; the fingerprint is what a grant names.
    detail["allow_code"] = mark->code;
    detail["fingerprint"] = mark->fingerprint;
    if (mark->grant) {
      detail["allowed_by"] = {{"grant_id", mark->grant->id},
                              {"scope", store::GrantScopeName(mark->grant->scope)},
                              {"uses", mark->grant->uses}};
    }
  }
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

json ClaudeHookAnswer(const rules::Decision& decision) {
  // No decision: Claude Code's own permission system takes the call as if
  // no hook were there (a permissionDecision of any kind would override it).
  if (decision.permission == rules::Permission::kPass) return json::object();
  json out = {{"hookSpecificOutput",
               {{"hookEventName", "PreToolUse"},
                {"permissionDecision", rules::PermissionName(decision.permission)},
                {"permissionDecisionReason", decision.reason}}}};
  if (!decision.notice.empty()) out["systemMessage"] = decision.notice;
  return out;
}

}  // namespace togmal::check
