#include "ignore_comments.h"

#include "togmal/util/text.h"

namespace togmal::scan {
namespace {

constexpr std::string_view kMarker = "togmal:";
constexpr std::string_view kIgnore = "ignore";

}  // namespace

std::optional<std::string> IgnoreReason(std::string_view line, bool alone) {
  for (std::size_t at = line.find(kMarker); at != std::string_view::npos;
       at = line.find(kMarker, at + 1)) {
    // A comment opens before the marker: `#` or `//`, then only blanks.
    const std::string_view before = util::Trim(line.substr(0, at), " \t\r");
    std::size_t opener = std::string_view::npos;
    if (before.ends_with("#")) opener = before.size() - 1;
    if (before.ends_with("//")) opener = before.size() - 2;
    if (opener == std::string_view::npos) continue;
    if (alone && !util::Trim(before.substr(0, opener), " \t\r").empty()) continue;
    std::string_view rest = util::Trim(line.substr(at + kMarker.size()), " \t\r");
    if (!rest.starts_with(kIgnore)) continue;
    rest.remove_prefix(kIgnore.size());
    if (!rest.empty() && rest.front() != ' ' && rest.front() != '\t' && rest.front() != ':') {
      continue;  // `togmal: ignored`, another word
    }
    if (!rest.empty() && rest.front() == ':') rest.remove_prefix(1);
    rest = util::Trim(rest, " \t\r");
    // Closing comment marks of other syntaxes are not part of the reason.
    if (rest.ends_with("*/")) rest = util::Trim(rest.substr(0, rest.size() - 2), " \t\r");
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
