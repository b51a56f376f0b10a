#pragma once
/// A policy rule, in Superego's shape: `id`, `priority` (lower wins, ties in
/// file order), `enabled`, `conditions`, `action` (ALLOW/DENY/ASK/SAMPLE),
/// `reason`, `sampling_guidance`. Rules are read from YAML by rule_loader.h and
/// matched by engine.h; this file is only the data.

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/policy/level.h"
#include "togmal/util/glob.h"
#include "togmal/util/result.h"

namespace re2 {
class RE2;
}

namespace togmal::rules {

class RegexPrefilter;

/// What a matching rule decides. kPass takes no decision: the host's own
/// permission system decides (where the host has none, a person is asked).
/// Appended last: compiled rules store the numeric value.
enum class Action { kAllow, kDeny, kAsk, kSample, kPass };

/// "ALLOW", "DENY", "ASK", "SAMPLE", "PASS".
std::string_view ActionName(Action action);
/// Parses an action name, case-insensitively.
std::optional<Action> ParseAction(std::string_view name);

/// Where a rule came from. Later layers sit on top of earlier ones; a project
/// file may only tighten, and the administrator's system file is a ceiling
/// no other layer loosens (see rule_loader.h). Appended last: the order of
/// the values is not the order of strength.
enum class Layer { kBuiltin, kUser, kProject, kSystem };
/// "builtin", "user", "project", "system".
std::string_view LayerName(Layer layer);

/// An RE2 pattern compiled on first use, so a hook process pays only for the
/// patterns of rules whose cheaper conditions already matched. Thread-safe.
class LazyRegex {
 public:
  explicit LazyRegex(std::string pattern);
  ~LazyRegex();
  LazyRegex(const LazyRegex&) = delete;
  LazyRegex& operator=(const LazyRegex&) = delete;

  /// Compiles now if not yet done; the error says why RE2 refused it.
  Result<void> Compile() const;
  /// Unanchored search. An invalid pattern is an error, not "no match".
  Result<bool> Search(std::string_view text) const;
  const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
  /// Literal pieces every match contains, when the pattern is that plain:
  /// a text without them is "no match" with no compilation.
  std::unique_ptr<const RegexPrefilter> prefilter_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<re2::RE2> re_;
};

/// One way to match a string: a glob (the default for plain strings in YAML)
/// or an RE2 regex (`{regex: …}`, and always for `command`).
struct Pattern {
  std::optional<util::Glob> glob;
  std::shared_ptr<LazyRegex> regex;

  std::string Describe() const;  ///< `glob "x"` or `regex "x"`
};

/// `level` comparisons: `">= L2"`, `"L3"` (equal), `"< L2"`, …
enum class Comparison { kLess, kLessEqual, kEqual, kGreaterEqual, kGreater };

/// A node of a rule's condition tree. A YAML `conditions` map is an kAll node
/// whose children are its keys, cheap ones first.
struct Condition {
  enum class Kind {
    kAll,        ///< every child (YAML `all:` list, or the keys of one map)
    kAny,        ///< at least one child
    kNot,        ///< the one child does not match
    kToolName,   ///< tool name matches one of `patterns` (case-insensitive globs)
    kParameter,  ///< tool_input value at `key` (dotted path) matches one of `patterns`
    kCommand,    ///< an executed shell segment matches one of `patterns` (regexes)
    kCwd,        ///< cwd matches one of `patterns`
    kAgentId,    ///< agent_id ("" for the main agent) matches one of `patterns`
    kAgentType,  ///< agent_type ("" for the main agent) matches one of `patterns`
    kLevel,      ///< the classifier's level compares with `level`
  };
  Kind kind = Kind::kAll;
  std::vector<Condition> children;
  std::string key;
  std::vector<Pattern> patterns;
  Comparison comparison = Comparison::kEqual;
  policy::Level level = policy::Level::kL0;
  int line = 0;  ///< 1-based line in the rule file, for messages

  /// Rough cost of evaluating this node: globs before regexes, so a regex is
  /// compiled only when everything cheaper in the same `all` already matched.
  int Cost() const;
};

struct Rule {
  std::string id;
  int priority = 50;
  bool enabled = true;
  Condition conditions;  ///< a kAll node; empty = matches every call
  Action action = Action::kAsk;
  std::string reason;
  std::string sampling_guidance;

  Layer layer = Layer::kBuiltin;
  std::string file;       ///< the file it was read from ("<builtin>/rules.yaml" when embedded)
  int line = 0;           ///< 1-based line of the rule's `id`
  std::size_t order = 0;  ///< position in its file, for ties

  /// "file:line", for messages.
  std::string Where() const;
};

/// The active rules of all layers, in matching order (priority ascending;
/// ties: system, project, then user, then built-in, then file order). The
/// system rules are matched on their own as well (rules::ApplyRules). Immutable once
/// built; share it with std::shared_ptr<const RuleSet> and swap whole sets.
struct RuleSet {
  std::vector<Rule> rules;
  /// The files the set was built from, in layer order.
  std::vector<std::string> files;
  /// Rules that were read but not used (a loosening project rule, …), one
  /// sentence each naming file:line.
  std::vector<std::string> warnings;
  /// Rule files left out because they could not be read, parsed or
  /// validated: "file:line: why". While any is listed no call judged with
  /// this set is auto-approved (check::Judge asks instead of allowing).
  std::vector<std::string> ignored;
};

}  // namespace togmal::rules
