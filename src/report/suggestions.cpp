// Which kinds of call a person approves every time, and the allow lines
// that would stop asking about them.
#include "togmal/report/suggestions.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

namespace togmal::report {
namespace {

// NAME=value before a program sets its environment; it is not the program.
bool IsAssignment(const std::string& word) {
  const std::size_t equals = word.find('=');
  if (equals == std::string::npos || equals == 0) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(equals), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
}

bool IsSubcommand(const std::string& word) {
  if (word.empty() || std::islower(static_cast<unsigned char>(word[0])) == 0) return false;
  return std::all_of(word.begin(), word.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) != 0 || c == '-';
  });
}

}  // namespace

std::string CallGroup(const std::string& tool_name, const nlohmann::json& input) {
  if (tool_name != "Bash" || !input.is_object() || !input.contains("command") ||
      !input["command"].is_string()) {
    return tool_name;
  }
  std::istringstream words(input["command"].get<std::string>());
  std::string word;
  while (words >> word && IsAssignment(word)) {
  }
  if (word.empty() || IsAssignment(word)) return tool_name;
  // /usr/bin/git and git are one program.
  if (const std::size_t slash = word.find_last_of('/');
      slash != std::string::npos && slash + 1 < word.size()) {
    word = word.substr(slash + 1);
  }
  std::string group = word;
  if (std::string next; words >> next && IsSubcommand(next)) group += " " + next;
  return group;
}

std::vector<Suggestion> SuggestRules(const std::vector<store::ActionTally>& actions) {
  struct Group {
    Suggestion suggestion;
    int64_t refused = 0;
    std::vector<const store::ActionTally*> members;
  };
  std::map<std::string, Group> groups;
  for (const store::ActionTally& action : actions) {
    const int64_t answered = action.approved + action.refused + action.unknown;
    if (answered == 0) continue;
    Group& group = groups[CallGroup(action.tool_name, action.input)];
    group.suggestion.approved += action.approved;
    group.suggestion.answered += answered;
    group.refused += action.refused;
    group.members.push_back(&action);
  }
  std::vector<Suggestion> suggestions;
  for (auto& [name, group] : groups) {
    if (group.refused > 0 || group.suggestion.approved < kMinApprovals) continue;
    Suggestion suggestion = std::move(group.suggestion);
    suggestion.group = name;
    std::stable_sort(group.members.begin(), group.members.end(),
                     [](const store::ActionTally* a, const store::ActionTally* b) {
                       return a->approved > b->approved;
                     });
    for (const store::ActionTally* action : group.members) {
      if (action->allow_code.empty() || action->approved == 0) continue;
      if (suggestion.allow_lines.size() == kMaxLinesPerSuggestion) {
        ++suggestion.more;
        continue;
      }
      suggestion.allow_lines.push_back("togmal allow " + action->allow_code + " --always");
    }
    if (!suggestion.allow_lines.empty()) suggestions.push_back(std::move(suggestion));
  }
  std::stable_sort(
      suggestions.begin(), suggestions.end(),
      [](const Suggestion& a, const Suggestion& b) { return a.approved > b.approved; });
  return suggestions;
}

}  // namespace togmal::report
