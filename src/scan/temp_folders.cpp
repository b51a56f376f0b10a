#include "temp_folders.h"

#include <cctype>

#include "togmal/util/text.h"

namespace togmal::scan {
namespace {

bool IsNameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Where a value or a command ends.
bool EndsWord(std::string_view text, std::size_t at) {
  if (at >= text.size()) return true;
  const char c = text[at];
  return IsBlank(c) || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' || c == ')' ||
         c == '}';
}

// The kind of value an assignment at `value` (just past `=`) gives.
enum class Value { kEmpty, kMktemp, kOther };

Value ValueAt(std::string_view text, std::size_t value) {
  std::size_t i = value;
  if (EndsWord(text, i)) return Value::kEmpty;
  if (text.substr(i, 2) == "\"\"" || text.substr(i, 2) == "''") {
    return EndsWord(text, i + 2) ? Value::kEmpty : Value::kOther;
  }
  const bool quoted = text[i] == '"';
  if (quoted) ++i;
  std::size_t close = std::string_view::npos;
  std::size_t body = 0;
  if (text.substr(i, 2) == "$(" && text.substr(i, 3) != "$((") {
    body = i + 2;
    int depth = 1;
    for (std::size_t j = body; j < text.size() && text[j] != '\n'; ++j) {
      if (text[j] == '(') ++depth;
      if (text[j] == ')' && --depth == 0) {
        close = j;
        break;
      }
    }
  } else if (i < text.size() && text[i] == '`') {
    body = i + 1;
    close = text.find('`', body);
  }
  if (close == std::string_view::npos) return Value::kOther;
  std::size_t word = body;
  while (word < close && IsBlank(text[word])) ++word;
  if (text.substr(word, 8) == "command ") word += 8;
  if (text.substr(word, 6) != "mktemp" || (word + 6 < close && !IsBlank(text[word + 6]))) {
    return Value::kOther;
  }
  // The value must be the substitution alone: `"$(mktemp -d)/.."` is not
  // the folder mktemp made.
  std::size_t after = close + 1;
  if (quoted) {
    if (after >= text.size() || text[after] != '"') return Value::kOther;
    ++after;
  }
  return EndsWord(text, after) ? Value::kMktemp : Value::kOther;
}

// Past a reference to a temp variable at `at`, or npos: `$d`, `${d}`,
// quoted or not, and nothing glued after it (`"$d"/*` is not the folder).
std::size_t TargetEnd(std::string_view text, std::size_t at,
                      const std::set<std::string, std::less<>>& variables) {
  std::size_t i = at;
  const bool quoted = i < text.size() && text[i] == '"';
  if (quoted) ++i;
  if (i >= text.size() || text[i] != '$') return std::string_view::npos;
  ++i;
  const bool braced = i < text.size() && text[i] == '{';
  if (braced) ++i;
  const std::size_t name = i;
  while (i < text.size() && util::IsShellNameChar(text[i])) ++i;
  if (i == name || !variables.contains(text.substr(name, i - name))) {
    return std::string_view::npos;
  }
  if (braced) {
    if (i >= text.size() || text[i] != '}') return std::string_view::npos;
    ++i;
  }
  if (quoted) {
    if (i >= text.size() || text[i] != '"') return std::string_view::npos;
    ++i;
  }
  // It may end where an enclosing string does (`trap 'rm -rf "$d"' EXIT`,
  // `trap "rm -rf $d" EXIT`).
  if (EndsWord(text, i) || text[i] == '\'' || (!quoted && text[i] == '"')) return i;
  return std::string_view::npos;
}

// The end of an `rm` command starting at `at` whose targets are all temp
// variables, or npos.
std::size_t TempRemovalEnd(std::string_view text, std::size_t at,
                           const std::set<std::string, std::less<>>& variables) {
  std::size_t i = at + 2;
  std::size_t end = i;
  int targets = 0;
  while (true) {
    while (i < text.size() && IsBlank(text[i])) ++i;
    if (text.substr(i, 2) == "\\\n") {
      i += 2;
      continue;
    }
    if (i >= text.size() || text[i] == '\n' || text[i] == ';' || text[i] == '&' || text[i] == '|' ||
        text[i] == ')' || text[i] == '}' || text[i] == '\'' ||
        (text[i] == '"' && text.substr(i, 2) != "\"$")) {
      break;
    }
    if (text[i] == '-' || text.substr(i, 2) == "2>" || text[i] == '>') {
      // An option, or a redirection of rm's own messages.
      if (text[i] != '-' && text.substr(i, 11) != "2>/dev/null" &&
          text.substr(i, 10) != ">/dev/null") {
        return std::string_view::npos;
      }
      while (!EndsWord(text, i) && text[i] != '"' && text[i] != '\'') ++i;
      end = i;
      continue;
    }
    const std::size_t target = TargetEnd(text, i, variables);
    if (target == std::string_view::npos) return std::string_view::npos;
    ++targets;
    i = end = target;
  }
  return targets > 0 ? end : std::string_view::npos;
}

}  // namespace

std::set<std::string, std::less<>> TempVariables(std::string_view script) {
  std::set<std::string, std::less<>> made, other;
  for (std::size_t i = 0; i < script.size(); ++i) {
    if (!IsNameStart(script[i])) continue;
    if (i > 0) {
      const char before = script[i - 1];
      if (util::IsShellNameChar(before)) continue;
      if (!IsBlank(before) && before != '\n' && before != ';' && before != '&' && before != '|' &&
          before != '(' && before != '{') {
        continue;
      }
    }
    std::size_t end = i;
    while (end < script.size() && util::IsShellNameChar(script[end])) ++end;
    if (end < script.size() && script[end] == '=') {
      const std::string name(script.substr(i, end - i));
      switch (ValueAt(script, end + 1)) {
        case Value::kMktemp:
          made.insert(name);
          break;
        case Value::kOther:
          other.insert(name);
          break;
        case Value::kEmpty:
          break;
      }
    }
    i = end;
  }
  // A name also set to something else is not known to hold a temp path.
  for (const std::string& name : other) made.erase(name);
  return made;
}

std::string WithoutTempRemovals(std::string_view command,
                                const std::set<std::string, std::less<>>& variables) {
  std::string out(command);
  if (variables.empty()) return out;
  std::size_t at = 0;
  while ((at = out.find("rm", at)) != std::string::npos) {
    const bool starts = at == 0 || IsBlank(out[at - 1]) || out[at - 1] == '\n' ||
                        out[at - 1] == ';' || out[at - 1] == '&' || out[at - 1] == '|' ||
                        out[at - 1] == '(' || out[at - 1] == '{' || out[at - 1] == '\'' ||
                        out[at - 1] == '"' || out[at - 1] == '`';
    if (!starts || at + 2 >= out.size() || !IsBlank(out[at + 2])) {
      at += 2;
      continue;
    }
    const std::size_t end = TempRemovalEnd(out, at, variables);
    if (end == std::string::npos) {
      at += 2;
      continue;
    }
    out[at] = ':';
    for (std::size_t i = at + 1; i < end; ++i) {
      if (out[i] != '\n') out[i] = ' ';
    }
    at = end;
  }
  return out;
}

}  // namespace togmal::scan
