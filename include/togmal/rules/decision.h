#pragma once
/// Turns a tool call's facts and the classifier's findings into one decision:
/// the first matching rule decides; if none matches, the classifier's level
/// decides through a configurable mapping (default L0 allow, L1 allow with a
/// notice, L2 ask, L3 deny). A decision by a project rule is never looser than
/// what the lower layers would have decided, and no decision is looser than
/// the first matching rule of the system layer (rule_loader.h).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/policy/classifier.h"
#include "togmal/rules/engine.h"
#include "togmal/rules/rule.h"
#include "togmal/util/result.h"
#include "togmal/util/settings_layers.h"

namespace togmal::rules {

/// What the host is told. kPass is no decision: the hook prints no
/// `permissionDecision`, so the host's own permission system (the person's
/// allow/ask/deny rules, "don't ask again", its modes) decides. Ordered from
/// loosest to strictest.
enum class Permission { kAllow, kPass, kAsk, kDeny };
/// "allow", "pass", "ask", "deny".
std::string_view PermissionName(Permission permission);
std::optional<Permission> ParsePermission(std::string_view name);

/// Who decided.
enum class Source { kRule, kClassifier, kSampling, kError };
/// "rule", "classifier", "sampling", "error".
std::string_view SourceName(Source source);

/// What a level decides when no rule matched. kPass leaves the call to the
/// host's own permission gate, and asks where the host has none
/// (check::HostGateApplies).
enum class LevelOutcome { kAllow, kNotice, kPass, kAsk, kDeny };

/// `profile:` in settings.yaml: which table of levels the classifier applies
/// (policy::Profile) and the level mapping it starts from.
using Profile = policy::Profile;
/// "standard", "strict".
std::string_view ProfileName(Profile profile);
std::optional<Profile> ParseProfile(std::string_view name);

/// The `hook:` section of settings.yaml.
struct DecisionSettings {
  Profile profile = Profile::kStandard;
  /// Indexed by policy::Index(level). The profile's defaults (standard: L1
  /// allow, L2 pass; strict: L1 notice, L2 ask) unless hook.levels says.
  LevelOutcome levels[4] = {LevelOutcome::kAllow, LevelOutcome::kAllow, LevelOutcome::kPass,
                            LevelOutcome::kDeny};
  /// Which entries of `levels` a settings file set (they survive a change of profile).
  bool levels_set[4] = {false, false, false, false};
  /// The decision when the input is malformed or togmal fails: ask or deny.
  Permission on_error = Permission::kAsk;
  /// `togmal hook`'s wall-clock budget per decision (hook/pre_tool_use.h).
  int budget_ms = 1000;
};

/// Reads the `hook:` section of YAML settings text over `base` (keys absent
/// from the text keep base's values). Errors name `file:line`.
Result<DecisionSettings> ParseDecisionSettings(std::string_view text, const std::string& file,
                                               DecisionSettings base = {});

/// `base` with one settings layer's `hook:` section applied.
Result<DecisionSettings> DecisionSettingsFrom(const util::SettingsLayer& layer,
                                              DecisionSettings base);

/// The layers' `hook:` sections applied in order over the defaults. A layer
/// whose section is invalid is left out ("file:line: why" appended to
/// `ignored`): a broken file never loosens what the built-in settings say.
DecisionSettings DecisionSettingsFrom(const std::vector<util::SettingsLayer>& layers,
                                      std::vector<std::string>& ignored);

struct Decision {
  Permission permission = Permission::kAsk;
  /// The rule's action when a rule decided; kSample means "ask a model first"
  /// (ResolveSample). When the classifier decided: the mapped permission.
  Action action = Action::kAsk;
  policy::Level level = policy::Level::kL0;
  Source source = Source::kClassifier;
  std::string rule_id;                 ///< empty unless a rule decided
  std::string rule_where;              ///< file:line of that rule
  Layer rule_layer = Layer::kBuiltin;  ///< that rule's layer
  /// One readable sentence starting with "togmal L<n>: ", for
  /// permissionDecisionReason.
  std::string reason;
  /// For the person (Claude Code's systemMessage); set for "notice" levels.
  std::string notice;
  std::string sampling_guidance;
  std::vector<policy::Finding> findings;
  /// Why the decision is stricter than the rule that matched first: a
  /// project rule that would have loosened it, or a system rule's ceiling.
  std::string tightened_by;
};

/// The decision the rules and the level mapping give for `facts` (the
/// Judge's middle step). `findings` are the classifier's, the deciding one first.
Result<Decision> ApplyRules(const RuleSet& rules, const Facts& facts,
                            const std::vector<policy::Finding>& findings,
                            const DecisionSettings& settings);

/// A SAMPLE that could not be put to a model (hook mode, no client sampling,
/// timeout, unparsable answer): ask, with the rule's guidance as the reason.
/// `why` says why no model decided ("" in hook mode).
void ResolveSampleAsAsk(Decision& decision, std::string_view why);

/// A model's verdict on a SAMPLE: allow or deny with the model's reason.
void ResolveSampleByModel(Decision& decision, Permission verdict, std::string_view model_reason);

/// The decision for malformed input or an internal error: settings.on_error,
/// with the error in the reason. Never allow.
Decision ErrorDecision(const DecisionSettings& settings, std::string_view error);

/// The result of togmal_check_tool_call (README, "Tools") without audit_id.
nlohmann::json DecisionJson(const Decision& decision);

/// DecisionJson()'s "reasons" alone, as the audit entry stores them.
nlohmann::json DecisionReasonsJson(const Decision& decision);

}  // namespace togmal::rules
