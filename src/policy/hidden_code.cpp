// Expansions that run code the command line does not show: `${x@P}` (prompt
// expansion runs the `$( )` in the value), `${x@E}`, `${!name}` (indirection:
// a name such as `a[$(…)]` evaluates its subscript), and command
// substitutions kept as text in a variable (`x='$(…)'`,
// `export n='a[$(…)]'`), which such an expansion, or arithmetic on the
// variable, runs later.
#include <algorithm>
#include <vector>

#include "walker.h"

namespace togmal::policy {
namespace {

/// What a `${…}` body does that runs or reveals hidden code, or "".
std::string_view HiddenOperator(std::string_view body) {
  if (body.size() >= 2 && body.front() == '!') {
    // `${!prefix*}`, `${!prefix@}` list names and `${!a[@]}` lists keys:
    // those expand no value.
    const bool lists = body.ends_with("*") || body.ends_with("@") || body.ends_with("[@]") ||
                       body.ends_with("[*]");
    if (!lists) return "indirection";
  }
  if (body.size() >= 3 && body[body.size() - 2] == '@' &&
      (body.back() == 'P' || body.back() == 'E')) {
    return body.back() == 'P' ? "prompt expansion" : "escape expansion";
  }
  return {};
}

/// The first hidden operator among the `${…}` of `text`, or "". One pass
/// with a stack of open braces: each body is judged by its ends, so nested
/// and long ones cost nothing extra.
std::string_view HiddenExpansion(std::string_view text) {
  if (text.find("${") == std::string_view::npos) return {};
  std::vector<std::size_t> open;  // where each `{` opened; npos for a plain one
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      open.push_back(i > 0 && text[i - 1] == '$' ? i + 1 : std::string_view::npos);
    } else if (text[i] == '}' && !open.empty()) {
      const std::size_t from = open.back();
      open.pop_back();
      if (from == std::string_view::npos) continue;
      const std::string_view found = HiddenOperator(text.substr(from, i - from));
      if (!found.empty()) return found;
    }
  }
  return {};
}

bool HoldsSubstitution(std::string_view value) {
  return value.find("$(") != std::string_view::npos || value.find('`') != std::string_view::npos;
}

bool Declares(std::string_view name) {
  for (std::string_view builtin : {"export", "declare", "typeset", "local", "readonly"}) {
    if (name == builtin) return true;
  }
  return false;
}

}  // namespace

void Walker::HiddenCode(const SimpleCommand& command, bool substituted, std::string_view segment) {
  const Level level = Max(tables_.settings.substitution_minimum, Level::kL2);
  auto hidden = [&](std::string_view text) {
    const std::string_view found = HiddenExpansion(text);
    if (found.empty()) return false;
    Add(level,
        "The " + std::string(found) + " in '" + util::OneLine(text, 60) +
            "' runs or reveals code kept in a variable: what runs is not visible.",
        segment);
    return true;
  };
  for (const Word& word : command.words) {
    if (word.expands && hidden(word.text)) return;
  }
  for (const std::string& assignment : command.assignments) {
    if (hidden(assignment)) return;
  }
  for (const Redirection& redirection : command.redirections) {
    if (redirection.target.expands && hidden(redirection.target.text)) return;
    if (!redirection.heredoc_quoted && hidden(redirection.heredoc_body)) return;
  }
  // A substitution kept as text: `x='$(…)'` runs nothing now, but a later
  // `${x@P}`, `${!x}` or arithmetic on x runs it (within this command line or
  // the next one). A real substitution here is already judged on its own.
  if (substituted) return;
  auto stored = [&](std::string_view assignment) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string_view::npos || !HoldsSubstitution(assignment)) return false;
    Add(level,
        "Stores a command substitution as text ('" + util::OneLine(assignment, 60) +
            "'): a later expansion or arithmetic on the variable runs it.",
        segment);
    return true;
  };
  for (const std::string& assignment : command.assignments) {
    if (stored(assignment)) return;
  }
  if (command.words.empty() || !Declares(util::AsciiLower(command.words.front().text))) return;
  for (std::size_t i = 1; i < command.words.size(); ++i) {
    const Word& word = command.words[i];
    if (!word.substitutes && !IsOptionWord(word.text) && stored(word.text)) return;
  }
}

}  // namespace togmal::policy
