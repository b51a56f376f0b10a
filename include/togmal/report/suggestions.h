#pragma once
/// Rules to suggest from the person's answers: calls of one kind (a
/// program and its subcommand, `npm install …`) that were asked or passed
/// to the person and approved every time should stop being prompts.

#include <cstdint>
#include <string>
#include <vector>

#include "togmal/store/decision_summary.h"

namespace togmal::report {

/// A suggestion needs at least this many approvals and no refusal.
inline constexpr int64_t kMinApprovals = 3;
/// At most this many `togmal allow` lines per suggestion.
inline constexpr std::size_t kMaxLinesPerSuggestion = 5;

/// The kind of call an action is, for grouping: for Bash its program (after
/// any VAR=value assignments) and, when the next word reads as a subcommand
/// (lower-case letters and '-': not a path, file
/// name, number or option), that word: "npm install", "git push",
/// "rm". Other tools: the tool's name.
std::string CallGroup(const std::string& tool_name, const nlohmann::json& input);

struct Suggestion {
  std::string group;  ///< CallGroup
  int64_t approved = 0;
  int64_t answered = 0;  ///< approved + refused + unknown
  /// `togmal allow CODE --always` for each action of the group that has a
  /// code, most frequent first (each covers that exact action).
  std::vector<std::string> allow_lines;
  std::size_t more = 0;  ///< actions with a code beyond the lines shown
};

/// Groups whose asked and passed calls were approved kMinApprovals times or
/// more and never refused, most approvals first.
std::vector<Suggestion> SuggestRules(const std::vector<store::ActionTally>& actions);

}  // namespace togmal::report
