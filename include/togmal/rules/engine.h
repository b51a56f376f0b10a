#pragma once
/// Matches a tool call against a RuleSet: the first enabled rule (in the
/// set's order) whose conditions hold decides. The input is a plain struct of
/// facts, so the engine knows nothing of how the level or the executed shell
/// segments were found.

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/policy/tool_call.h"
#include "togmal/rules/rule.h"
#include "togmal/util/result.h"

namespace togmal::rules {

/// What is known about one tool call.
struct Facts {
  /// The call: its tool, input, cwd and agent are what conditions test.
  policy::ToolCall call;
  policy::Level level = policy::Level::kL0;  ///< the classifier's level
  /// The text of every shell segment that would be executed (empty for
  /// tools that run no shell).
  std::vector<std::string> executed_segments;
  /// If set, computes executed_segments the first time a `command` condition
  /// needs them (lexing a command is skipped when no rule gets that far).
  std::function<std::vector<std::string>()> segment_source;

  /// segment_source's segments (computed once) if it is set, else
  /// executed_segments.
  const std::vector<std::string>& Segments() const;

 private:
  mutable std::optional<std::vector<std::string>> loaded_segments_;
};

/// Which layers take part in a match.
struct LayerFilter {
  bool builtin = true;
  bool user = true;
  bool project = true;
  bool system = true;
  bool Includes(Layer layer) const;
};

/// Whether `condition` holds for `facts`. Fails only when a lazily compiled
/// regex turns out to be invalid (message names file:line).
Result<bool> ConditionMatches(const Condition& condition, const Facts& facts, const Rule& rule);

/// The first enabled rule of `set` (within `layers`) that matches, or nullptr.
Result<const Rule*> FirstMatch(const RuleSet& set, const Facts& facts, LayerFilter layers = {});

}  // namespace togmal::rules
