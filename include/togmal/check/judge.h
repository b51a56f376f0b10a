#pragma once
/// The one answer to "what happens to this tool call?". `togmal hook`,
/// `togmal_check_tool_call`, `togmal check` and `togmal rules explain|test`
/// all ask the Judge, so they cannot drift apart:
///
///   classify (policy::Classifier) → rules and the level mapping
///   (rules::ApplyRules) → resolve a SAMPLE rule → record in the audit trail
///   (a decision that cannot be recorded is never an allow).
///
/// What differs between the front ends is passed in: how a SAMPLE is
/// resolved (a model through MCP sampling, or ask), where the audit entry
/// goes, and whether the call is real (recorded) or a what-if question.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/check/tool_call.h"
#include "togmal/rules/decision.h"
#include "togmal/rules/rule.h"
#include "togmal/store/allow_grants.h"
#include "togmal/util/result.h"
#include "togmal/util/settings_layers.h"

namespace togmal::store {
struct AuditEntry;
}  // namespace togmal::store

namespace togmal::check {

/// The policy a call is judged under.
struct Policy {
  std::shared_ptr<const rules::RuleSet> rules;
  rules::DecisionSettings settings;
  /// Settings files that could not be read, parsed or validated ("file:line:
  /// why"), left out of `settings`. Like the rule set's `ignored` files, each
  /// stops all auto-approval (Judge::Decide) and is recorded with each
  /// decision.
  std::vector<std::string> broken_settings;
};

/// The `hook:` settings of `loaded`. `broken` gets every settings file that
/// could not be read, parsed or validated, in any section togmal reads
/// (`hook`, `audit`, `taxonomy`): the hook reads them all.
rules::DecisionSettings ReadDecisionSettings(const util::SettingsLayers& loaded,
                                             std::vector<std::string>& broken);

/// Loads the policy for a call in `cwd`, for a process that judges one call
/// (the hook, the CLI): `settings` and `broken_settings` as read already
/// (ReadDecisionSettings), the built-in rules, the user's rule file
/// (`user_rules`, default rules::UserRulesPath()) and every
/// `.togmal/rules.yaml` from `cwd` up to the repository root. A user or
/// project file that cannot be loaded is left out and named in the rule set's
/// `ignored`: no call is auto-approved while it is broken, and every layer
/// that loaded keeps its strength. Fails only if the built-in rules cannot be
/// loaded.
Result<Policy> LoadPolicy(const std::filesystem::path& cwd, rules::DecisionSettings settings,
                          std::vector<std::string> broken_settings,
                          const std::optional<std::filesystem::path>& user_rules = std::nullopt);

/// The same, with the settings read from `loaded` (ReadDecisionSettings).
Result<Policy> LoadPolicy(const std::filesystem::path& cwd, const util::SettingsLayers& loaded,
                          const std::optional<std::filesystem::path>& user_rules = std::nullopt);

/// Every configuration file `policy` was loaded without (its broken settings,
/// then its rule set's ignored files), "file:line: why" each.
std::vector<std::string> BrokenConfiguration(const Policy& policy);

/// Resolves a SAMPLE decision in place (rules::ResolveSampleAsAsk or
/// rules::ResolveSampleByModel), or leaves it visible as a SAMPLE. Returns
/// false when the verdict is not available yet (the MCP client is being
/// asked and will retry): the judgement is then pending and not recorded.
using SampleResolver = std::function<bool(const policy::ToolCall& call, rules::Decision& decision)>;

/// Appends an audit entry and returns its id. May be called from any thread.
using AuditSink = std::function<Result<int64_t>(store::AuditEntry entry)>;

/// The allow grant that lets a denied or asked call through, if any
/// (store::AllowGrants::Active). `consume` spends a once grant.
using GrantLookup = std::function<Result<std::optional<store::AllowGrant>>(
    std::string_view fingerprint, bool consume)>;

/// Whether a judgement is about a call that will run (recorded; unrecorded
/// decisions are tightened) or a what-if question (`togmal check`,
/// `rules explain`: nothing is recorded or tightened).
enum class Recording { kAudited, kWhatIf };

struct JudgeOptions {
  /// Stored with each entry: "hook", "mcp" or "cli". Also the session name
  /// when the call carries no session id.
  std::string via;
  Recording recording = Recording::kAudited;
  /// Where kAudited entries go. Empty: none is configured, and every
  /// decision is tightened as unrecorded.
  AuditSink audit = nullptr;
  /// Empty: a SAMPLE becomes ask with the rule's guidance as the reason.
  SampleResolver resolve_sample = nullptr;
  /// Where `togmal allow` grants are looked up for a deny or ask. Empty: none
  /// apply (what-if questions show the policy's own decision). A what-if
  /// lookup never spends a once grant.
  GrantLookup grants = nullptr;
};

/// A deny or ask's allow code, and the grant that let the call through
/// instead, when one did. Recorded with the decision.
struct AllowCodeMark {
  std::string code;
  std::string fingerprint;
  std::optional<store::AllowGrant> grant;
};

/// A decision and, when it was recorded, its audit entry's id.
struct Judgement {
  rules::Decision decision;
  std::optional<int64_t> audit_id;
  /// The SAMPLE resolver is still waiting for a verdict: nothing was
  /// recorded, and `decision` is not final.
  bool pending = false;
  /// Set when the policy said deny or ask (the reason ends with the code).
  std::optional<AllowCodeMark> allow_code;
};

class Judge {
 public:
  using Clock = std::chrono::steady_clock;

  explicit Judge(JudgeOptions options) : options_(std::move(options)) {}

  /// Classifies `call`, decides with `policy`, resolves a SAMPLE and records
  /// the decision. While a configuration file is broken
  /// (BrokenConfiguration), an allow or a pass becomes ask naming it: the
  /// file may have held the rule that would have stopped the call. Never
  /// throws: an internal error is decided as policy.settings.on_error.
  /// `started` is when the front end received the call (the recorded
  /// latency).
  Judgement Decide(const policy::ToolCall& call, const Policy& policy,
                   Clock::time_point started = Clock::now()) const;

  /// For a call that could not be judged (malformed input, no policy, out of
  /// time): `settings.on_error` with `error` in the reason, recorded like any
  /// decision. `call` holds whatever could be read of the input.
  Judgement Refuse(const policy::ToolCall& call, const rules::DecisionSettings& settings,
                   std::string_view error, Clock::time_point started = Clock::now(),
                   const std::vector<std::string>& warnings = {}) const;

 private:
  Judgement Record(const policy::ToolCall& call, rules::Decision decision,
                   const std::vector<std::string>& warnings, Clock::time_point started,
                   std::optional<AllowCodeMark> mark = std::nullopt) const;
  // Names the deny/ask's allow code in its reason, or lets the call through
  // when a grant for it is active.
  AllowCodeMark ApplyAllowCode(const policy::ToolCall& call, rules::Decision& decision) const;

  JudgeOptions options_;
};

/// How a what-if question shows a SAMPLE rule's decision.
enum class SampleShown {
  kAsTheHookDecides,  ///< ask, as the hook (no model to ask) would
  kAsSample,          ///< left visible as SAMPLE (`rules explain`)
};

/// What the hook would decide for `call` now, recording nothing: the
/// settings and rules in force for `call.cwd` (LoadPolicy), grants not
/// applied. `broken` gets every configuration file the policy was loaded
/// without (BrokenConfiguration). `togmal check` and `rules explain` ask
/// this. Fails only when the built-in rules cannot be loaded.
Result<Judgement> JudgeWhatIf(const policy::ToolCall& call, SampleShown sample,
                              std::vector<std::string>& broken);

/// The classifier's level and findings for `call`, decided with `rules` and
/// `settings`; a SAMPLE rule's decision is left unresolved. The pure part of
/// Judge::Decide (no recording), for tests and benchmarks.
Result<rules::Decision> Evaluate(const policy::ToolCall& call, const rules::RuleSet& rules,
                                 const rules::DecisionSettings& settings);

/// The audit entry recording `decision` (input redaction happens in the
/// store). `via` as in JudgeOptions; `mark` the allow code and grant, if any.
store::AuditEntry MakeAuditEntry(const policy::ToolCall& call, const rules::Decision& decision,
                                 std::string_view via, int64_t latency_us,
                                 const std::vector<std::string>& warnings = {},
                                 const AllowCodeMark* mark = nullptr);

/// Marks `decision` as unrecorded: allow becomes ask, and the reason says why.
void TightenForAuditFailure(rules::Decision& decision, std::string_view error);

/// Claude Code's PreToolUse answer: hookSpecificOutput with hookEventName,
/// permissionDecision and permissionDecisionReason, plus systemMessage for a
/// notice. The hook prints it; togmal_check_tool_call returns it as text
/// with response_format "hook".
nlohmann::json ClaudeHookAnswer(const rules::Decision& decision);

}  // namespace togmal::check
