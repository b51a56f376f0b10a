#include "ci_files.h"

#include <cctype>

#include "togmal/util/text.h"

namespace togmal::scan {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// The end of a reference to `name` at `at` (`$V`, `${V}`), or npos.
std::size_t ReferenceEnd(std::string_view text, std::size_t at, std::string_view name) {
  if (text.substr(at, 1) != "$") return std::string_view::npos;
  std::size_t i = at + 1;
  const bool braced = text.substr(i, 1) == "{";
  if (braced) ++i;
  if (text.substr(i, name.size()) != name) return std::string_view::npos;
  i += name.size();
  if (braced) return text.substr(i, 1) == "}" ? i + 1 : std::string_view::npos;
  return i < text.size() && util::IsShellNameChar(text[i]) ? std::string_view::npos : i;
}

// Whether the word starting at `word` is written to: a redirection's target,
// or an argument of a `tee` command.
bool IsWrittenTo(std::string_view text, std::size_t word) {
  std::size_t i = word;
  while (i > 0 && IsBlank(text[i - 1])) --i;
  if (i > 0 && text[i - 1] == '>') return true;                         // `>`, `>>`, `&>>`
  if (i >= 2 && text[i - 1] == '|' && text[i - 2] == '>') return true;  // `>|`
  // The simple command the word belongs to, from its first word.
  std::size_t start = word;
  while (start > 0) {
    const char c = text[start - 1];
    if (c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == '{' || c == '`') break;
    --start;
  }
  while (start < word && IsBlank(text[start])) ++start;
  const std::string_view first = text.substr(start, 4);
  return first == "tee" || first == "tee " || first == "tee\t";
}

}  // namespace

std::string WithoutCiFileWrites(std::string_view command,
                                const std::vector<std::string>& variables) {
  std::string out;
  out.reserve(command.size());
  std::size_t copied = 0;
  for (std::size_t at = command.find('$'); at != std::string_view::npos;
       at = command.find('$', at + 1)) {
    if (at < copied) continue;
    std::size_t end = std::string_view::npos;
    for (const std::string& name : variables) {
      end = ReferenceEnd(command, at, name);
      if (end != std::string_view::npos) break;
    }
    if (end == std::string_view::npos) continue;
    std::size_t begin = at;
    if (begin > 0 && command[begin - 1] == '"' && end < command.size() && command[end] == '"') {
      --begin;
      ++end;
    }
    if (!IsWrittenTo(command, begin)) continue;
    out.append(command.substr(copied, begin - copied));
    constexpr std::string_view kNull = "/dev/null";
    out.append(kNull);
    if (end - begin > kNull.size()) out.append(end - begin - kNull.size(), ' ');
    copied = end;
  }
  out.append(command.substr(copied));
  return out;
}

}  // namespace togmal::scan
