#include "ignore_comments.h"

namespace togmal::scan {
namespace {

constexpr std::string_view kMarker = "togmal:";
constexpr std::string_view kIgnore = "ignore";

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

}  // namespace

std::optional<std::string> IgnoreReason(std::string_view line, bool alone) {
  for (std::size_t at = line.find(kMarker); at != std::string_view::npos;
       at = line.find(kMarker, at + 1)) {
    // A comment opens before the marker: `#` or `//`, then only blanks.
    const std::string_view before = Trim(line.substr(0, at));
    std::size_t opener = std::string_view::npos;
    if (before.ends_with("#")) opener = before.size() - 1;
    if (before.ends_with("//")) opener = before.size() - 2;
    if (opener == std::string_view::npos) continue;
    if (alone && !Trim(before.substr(0, opener)).empty()) continue;
    std::string_view rest = Trim(line.substr(at + kMarker.size()));
    if (!rest.starts_with(kIgnore)) continue;
    rest.remove_prefix(kIgnore.size());
    if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t' && rest.front() != ':') {
      continue;  // `togmal: ignored`, another word
    }
    if (!rest.empty() && rest.front() == ':') rest.remove_prefix(1);
    rest = Trim(rest);
    // Closing comment marks of other syntaxes are not part of the reason.
    if (rest.ends_with("*/")) rest = Trim(rest.substr(0, rest.size() - 2));
    return std::string(rest);
  }
  return std::nullopt;
}

std::optional<IgnoreComment> IgnoreFor(const std::vector<std::string_view>& file_lines, int line) {
  if (line < 1 || static_cast<std::size_t>(line) > file_lines.size()) return std::nullopt;
  const auto index = static_cast<std::size_t>(line) - 1;
  if (auto reason = IgnoreReason(file_lines[index], false)) return IgnoreComment{line, *reason};
  if (index > 0) {
    if (auto reason = IgnoreReason(file_lines[index - 1], true)) {
      return IgnoreComment{line - 1, *reason};
    }
  }
  return std::nullopt;
}

}  // namespace togmal::scan
