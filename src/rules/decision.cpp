#include "togmal/rules/decision.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "togmal/util/text.h"

namespace togmal::rules {
namespace {

using json = nlohmann::json;

// Reasons end up in Claude Code's UI and in the model's context: a 1 MB
// command must not ride along.
constexpr std::size_t kSegmentLimit = 160;
constexpr std::size_t kReasonLimit = 1000;

std::string_view OutcomeName(LevelOutcome outcome) {
  switch (outcome) {
    case LevelOutcome::kAllow:
      return "allow";
    case LevelOutcome::kNotice:
      return "notice";
    case LevelOutcome::kPass:
      return "pass";
    case LevelOutcome::kAsk:
      return "ask";
    case LevelOutcome::kDeny:
      return "deny";
  }
  return "ask";
}

std::optional<LevelOutcome> ParseOutcome(std::string_view name) {
  for (auto outcome : {LevelOutcome::kAllow, LevelOutcome::kNotice, LevelOutcome::kPass,
                       LevelOutcome::kAsk, LevelOutcome::kDeny}) {
    if (name == OutcomeName(outcome)) return outcome;
  }
  return std::nullopt;
}

// How strict a decision is, for the project layer's tighten-only check.
// SAMPLE and PASS sit between allow and ask: a model, or the person's own
// host rules, may still allow.
int Strictness(const Decision& decision) {
  if (decision.action == Action::kSample && decision.source == Source::kRule) return 1;
  switch (decision.permission) {
    case Permission::kAllow:
      return 0;
    case Permission::kPass:
      return 1;
    case Permission::kAsk:
      return 2;
    case Permission::kDeny:
      return 3;
  }
  return 2;
}

Permission PermissionOf(LevelOutcome outcome) {
  switch (outcome) {
    case LevelOutcome::kAllow:
    case LevelOutcome::kNotice:
      return Permission::kAllow;
    case LevelOutcome::kPass:
      return Permission::kPass;
    case LevelOutcome::kAsk:
      return Permission::kAsk;
    case LevelOutcome::kDeny:
      return Permission::kDeny;
  }
  return Permission::kAsk;
}

Action ActionOf(Permission permission) {
  switch (permission) {
    case Permission::kAllow:
      return Action::kAllow;
    case Permission::kPass:
      return Action::kPass;
    case Permission::kAsk:
      return Action::kAsk;
    case Permission::kDeny:
      return Action::kDeny;
  }
  return Action::kAsk;
}

// The level mapping a profile starts from (settings.yaml's hook.levels may
// change any of it).
void ApplyProfileDefaults(DecisionSettings& settings) {
  const bool strict = settings.profile == Profile::kStrict;
  const LevelOutcome defaults[4] = {
      LevelOutcome::kAllow, strict ? LevelOutcome::kNotice : LevelOutcome::kAllow,
      strict ? LevelOutcome::kAsk : LevelOutcome::kPass, LevelOutcome::kDeny};
  for (int i = 0; i < 4; ++i) {
    if (!settings.levels_set[i]) settings.levels[i] = defaults[i];
  }
}

// The finding that explains the level best: the first one at the level.
using policy::Finding;
using policy::Level;

const Finding* TopFinding(const std::vector<Finding>& findings, Level level) {
  for (const Finding& finding : findings) {
    if (finding.level == level) return &finding;
  }
  return findings.empty() ? nullptr : &findings.front();
}

std::string DescribeFinding(const Finding& finding) {
  std::string text = finding.why;
  if (!finding.segment.empty() && text.find(finding.segment) == std::string::npos) {
    text += " (`" + util::Shorten(finding.segment, kSegmentLimit) + "`)";
  }
  return text;
}

std::string Prefix(Level level) { return "togmal " + std::string(policy::LevelName(level)) + ": "; }

Decision FromLevel(const Facts& facts, const std::vector<Finding>& findings,
                   const DecisionSettings& settings) {
  Decision decision;
  decision.level = facts.level;
  decision.source = Source::kClassifier;
  decision.findings = findings;
  LevelOutcome outcome = settings.levels[policy::Index(decision.level)];
  decision.permission = PermissionOf(outcome);
  decision.action = ActionOf(decision.permission);
  const Finding* top = TopFinding(findings, decision.level);
  std::string why = top != nullptr
                        ? DescribeFinding(*top)
                        : facts.call.tool_name + " matched no rule and no risk was found";
  decision.reason = util::Shorten(Prefix(decision.level) + why, kReasonLimit);
  if (outcome == LevelOutcome::kNotice) decision.notice = decision.reason;
  return decision;
}

Decision FromRule(const Rule& rule, const Facts& facts, const std::vector<Finding>& findings) {
  Decision decision;
  decision.level = facts.level;
  decision.source = Source::kRule;
  decision.rule_id = rule.id;
  decision.rule_where = rule.Where();
  decision.rule_layer = rule.layer;
  decision.action = rule.action;
  decision.findings = findings;
  decision.sampling_guidance = rule.sampling_guidance;
  decision.permission = rule.action == Action::kAllow  ? Permission::kAllow
                        : rule.action == Action::kDeny ? Permission::kDeny
                        : rule.action == Action::kPass ? Permission::kPass
                                                       : Permission::kAsk;
  std::string why = rule.reason.empty() ? "matched" : rule.reason;
  decision.reason = util::Shorten(Prefix(decision.level) + "rule " + rule.id + " (" +
                                      std::string(LayerName(rule.layer)) + "): " + why,
                                  kReasonLimit);
  return decision;
}

Result<Decision> DecideWithin(const RuleSet& rules, const Facts& facts,
                              const std::vector<Finding>& findings,
                              const DecisionSettings& settings, LayerFilter layers) {
  auto match = FirstMatch(rules, facts, layers);
  if (!match) return Fail(match.error());
  if (*match == nullptr) return FromLevel(facts, findings, settings);
  return FromRule(**match, facts, findings);
}

// The decision of the built-in, user and project layers: the first matching
// rule, and a project rule never looser than what the layers beneath it say.
Result<Decision> DecideBelowSystem(const RuleSet& rules, const Facts& facts,
                                   const std::vector<Finding>& findings,
                                   const DecisionSettings& settings) {
  auto decision = DecideWithin(rules, facts, findings, settings, LayerFilter{.system = false});
  if (!decision) return decision;
  if (decision->source != Source::kRule || decision->rule_layer != Layer::kProject) {
    return decision;
  }
  // Tighten-only: what would the user's and built-in policy have said?
  auto baseline =
      DecideWithin(rules, facts, findings, settings,
                   LayerFilter{.builtin = true, .user = true, .project = false, .system = false});
  if (!baseline) return baseline;
  if (Strictness(*baseline) > Strictness(*decision)) {
    baseline->tightened_by = "project rule " + decision->rule_id + " (" + decision->rule_where +
                             ") would have loosened this decision";
    return baseline;
  }
  return decision;
}

// The system file's `profile:` and `hook:` keys as a ceiling over `settings`
// (the built-in and user layers): a level's answer, the profile and on_error
// may be stricter than the system file says, never looser. budget_ms is
// the system file's when it sets one.
void ApplyCeiling(const util::SettingsLayer& layer, const DecisionSettings& ceiling,
                  DecisionSettings& settings) {
  const YAML::Node& root = layer.root;
  if (!root || !root.IsMap()) return;
  const YAML::Node profile = root["profile"];
  const bool sets_profile = profile && !profile.IsNull();
  if (sets_profile && ceiling.profile == Profile::kStrict && settings.profile != Profile::kStrict) {
    settings.profile = Profile::kStrict;
    ApplyProfileDefaults(settings);
  }
  for (int i = 0; i < 4; ++i) {
    // A profile names every level's answer.
    if (!sets_profile && !ceiling.levels_set[i]) continue;
    settings.levels[i] = std::max(settings.levels[i], ceiling.levels[i]);
  }
  const YAML::Node hook = root["hook"];
  if (!hook || !hook.IsMap()) return;
  if (hook["on_error"] && ceiling.on_error == Permission::kDeny) {
    settings.on_error = Permission::kDeny;
  }
  if (hook["budget_ms"]) settings.budget_ms = ceiling.budget_ms;
}

}  // namespace

std::string_view PermissionName(Permission permission) {
  switch (permission) {
    case Permission::kAllow:
      return "allow";
    case Permission::kPass:
      return "pass";
    case Permission::kAsk:
      return "ask";
    case Permission::kDeny:
      return "deny";
  }
  return "ask";
}

std::optional<Permission> ParsePermission(std::string_view name) {
  for (auto permission :
       {Permission::kAllow, Permission::kPass, Permission::kAsk, Permission::kDeny}) {
    if (name == PermissionName(permission)) return permission;
  }
  return std::nullopt;
}

std::string_view ProfileName(Profile profile) {
  return profile == Profile::kStrict ? "strict" : "standard";
}

std::optional<Profile> ParseProfile(std::string_view name) {
  for (auto profile : {Profile::kStandard, Profile::kStrict}) {
    if (name == ProfileName(profile)) return profile;
  }
  return std::nullopt;
}

std::string_view SourceName(Source source) {
  switch (source) {
    case Source::kRule:
      return "rule";
    case Source::kClassifier:
      return "classifier";
    case Source::kSampling:
      return "sampling";
    case Source::kError:
      return "error";
  }
  return "error";
}

Result<DecisionSettings> DecisionSettingsFrom(const util::SettingsLayer& layer,
                                              DecisionSettings base) {
  const std::string& file = layer.source;
  auto where = [&file](const YAML::Node& node) {
    return file + ":" + std::to_string(node.Mark().line + 1) + ": ";
  };
  try {
    const YAML::Node& root = layer.root;
    if (!root || !root.IsMap()) return base;
    if (YAML::Node profile = root["profile"]; profile && !profile.IsNull()) {
      auto parsed = ParseProfile(profile.IsScalar() ? profile.Scalar() : "");
      if (!parsed) return Fail(where(profile) + "profile: expected standard or strict");
      base.profile = *parsed;
      ApplyProfileDefaults(base);
    }
    YAML::Node hook = root["hook"];
    if (!hook || hook.IsNull()) return base;
    if (!hook.IsMap()) return Fail(where(hook) + "hook must be a map");
    for (const auto& entry : hook) {
      std::string key = entry.first.Scalar();
      if (key == "levels") {
        if (!entry.second.IsMap()) return Fail(where(entry.second) + "hook.levels must be a map");
        for (const auto& level : entry.second) {
          auto index = policy::ParseLevel(level.first.Scalar());
          if (!index) return Fail(where(level.first) + "hook.levels: expected L0..L3");
          auto outcome = ParseOutcome(level.second.IsScalar() ? level.second.Scalar() : "");
          if (!outcome) {
            return Fail(where(level.second) + "hook.levels." + level.first.Scalar() +
                        ": expected allow, notice, pass, ask or deny");
          }
          base.levels[policy::Index(*index)] = *outcome;
          base.levels_set[policy::Index(*index)] = true;
        }
      } else if (key == "on_error") {
        std::string value = entry.second.IsScalar() ? entry.second.Scalar() : "";
        if (value != "ask" && value != "deny") {
          return Fail(where(entry.second) + "hook.on_error: expected ask or deny (never allow)");
        }
        base.on_error = *ParsePermission(value);
      } else if (key == "budget_ms") {
        int value = 0;
        if (!entry.second.IsScalar() || !YAML::convert<int>::decode(entry.second, value) ||
            value < 100 || value > 60000) {
          return Fail(where(entry.second) + "hook.budget_ms: expected milliseconds, 100..60000");
        }
        base.budget_ms = value;
      } else {
        return Fail(where(entry.first) + "unknown key hook." + key +
                    " (expected levels, on_error, budget_ms)");
      }
    }
  } catch (const YAML::Exception& e) {
    return Fail(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return base;
}

DecisionSettings DecisionSettingsFrom(const std::vector<util::SettingsLayer>& layers,
                                      std::vector<std::string>& ignored) {
  DecisionSettings settings;
  for (const util::SettingsLayer& layer : layers) {
    if (layer.system) continue;  // a ceiling, applied below
    auto applied = DecisionSettingsFrom(layer, settings);
    if (applied) {
      settings = *applied;
    } else {
      ignored.push_back(applied.error() + " (its hook settings are left out)");
    }
  }
  for (const util::SettingsLayer& layer : layers) {
    if (!layer.system) continue;
    // What the system file says on its own, over the built-in defaults.
    auto ceiling = DecisionSettingsFrom(layer, DecisionSettings{});
    if (!ceiling) {
      ignored.push_back(ceiling.error() + " (its hook settings are left out)");
      continue;
    }
    ApplyCeiling(layer, *ceiling, settings);
  }
  return settings;
}

Result<DecisionSettings> ParseDecisionSettings(std::string_view text, const std::string& file,
                                               DecisionSettings base) {
  auto layer = util::ParseSettingsLayer(text, file);
  if (!layer) return Fail(layer.error());
  return DecisionSettingsFrom(*layer, base);
}

Result<Decision> ApplyRules(const RuleSet& rules, const Facts& facts,
                            const std::vector<Finding>& findings,
                            const DecisionSettings& settings) {
  auto decision = DecideBelowSystem(rules, facts, findings, settings);
  if (!decision) return decision;
  // The system layer is a ceiling: its first matching rule, taken on its own,
  // is the loosest decision the call may get.
  const bool has_system = std::any_of(rules.rules.begin(), rules.rules.end(), [](const Rule& rule) {
    return rule.layer == Layer::kSystem;
  });
  if (!has_system) return decision;
  auto match = FirstMatch(
      rules, facts, LayerFilter{.builtin = false, .user = false, .project = false, .system = true});
  if (!match) return Fail(match.error());
  if (*match == nullptr) return decision;
  Decision ceiling = FromRule(**match, facts, findings);
  if (Strictness(ceiling) <= Strictness(*decision)) return decision;
  const std::string below = decision->source == Source::kRule
                                ? std::string(LayerName(decision->rule_layer)) + " rule " +
                                      decision->rule_id + " (" + decision->rule_where + ")"
                                : std::string("the classifier's level");
  ceiling.tightened_by = "system rule " + ceiling.rule_id + " (" + ceiling.rule_where +
                         ") is a ceiling: " + below + " would have " +
                         std::string(PermissionName(decision->permission)) + "ed";
  if (decision->permission == Permission::kPass) {
    ceiling.tightened_by = "system rule " + ceiling.rule_id + " (" + ceiling.rule_where +
                           ") is a ceiling: " + below + " would have left the call to the host";
  }
  return ceiling;
}

void ResolveSampleAsAsk(Decision& decision, std::string_view why) {
  decision.permission = Permission::kAsk;
  std::string guidance = decision.sampling_guidance.empty()
                             ? std::string("this call needs a review")
                             : decision.sampling_guidance;
  std::string text =
      Prefix(decision.level) + "rule " + decision.rule_id + " asks for a review: " + guidance;
  if (!why.empty()) text += " (" + std::string(why) + ")";
  decision.reason = util::Shorten(text, kReasonLimit);
}

void ResolveSampleByModel(Decision& decision, Permission verdict, std::string_view model_reason) {
  decision.permission = verdict;
  decision.source = Source::kSampling;
  decision.reason = util::Shorten(
      Prefix(decision.level) + "rule " + decision.rule_id + ", the client's model said " +
          std::string(PermissionName(verdict)) + ": " + std::string(model_reason),
      kReasonLimit);
}

Decision ErrorDecision(const DecisionSettings& settings, std::string_view error) {
  Decision decision;
  decision.permission =
      settings.on_error == Permission::kDeny ? Permission::kDeny : Permission::kAsk;
  decision.action = decision.permission == Permission::kDeny ? Action::kDeny : Action::kAsk;
  decision.level = decision.permission == Permission::kDeny ? Level::kL3 : Level::kL2;
  decision.source = Source::kError;
  decision.reason =
      util::Shorten("togmal error: " + std::string(error) +
                        (decision.permission == Permission::kDeny ? " (denied to be safe)"
                                                                  : " (asking to be safe)"),
                    kReasonLimit);
  decision.findings.push_back({decision.level, decision.reason, ""});
  return decision;
}

// Built member by member: nlohmann's initializer lists copy every value and
// test each list for an object's shape, and this runs twice per decision in
// `serve` (the audit entry and the tool's result).
json DecisionReasonsJson(const Decision& decision) {
  json reasons(json::value_t::array);
  auto& list = reasons.get_ref<json::array_t&>();
  list.reserve(decision.findings.size() + 1);
  const auto add = [&list](Level level, const std::string& why) -> json& {
    json& reason = list.emplace_back(json::value_t::object);
    reason["level"] = policy::LevelName(level);
    reason["why"] = why;
    return reason;
  };
  if (decision.source == Source::kRule || decision.source == Source::kSampling) {
    add(decision.level, decision.reason);
  }
  for (const Finding& finding : decision.findings) {
    json& reason = add(finding.level, finding.why);
    if (!finding.segment.empty()) reason["segment"] = util::Shorten(finding.segment, kSegmentLimit);
  }
  return reasons;
}

json DecisionJson(const Decision& decision) {
  json out(json::value_t::object);
  out["decision"] = PermissionName(decision.permission);
  out["level"] = policy::LevelName(decision.level);
  out["source"] = SourceName(decision.source);
  out["reasons"] = DecisionReasonsJson(decision);
  if (!decision.rule_id.empty()) out["rule_id"] = decision.rule_id;
  return out;
}

}  // namespace togmal::rules
