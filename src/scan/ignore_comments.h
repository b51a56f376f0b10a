#pragma once
// `togmal: ignore REASON` in a comment (`#` or `//`) on a finding's line, or
// alone on the line before it, keeps the finding out of the report. A reason
// is required: an ignore without one does not hide the finding and is named
// as a problem, so that every silenced finding says why.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace togmal::scan {

/// The reason of a `togmal: ignore` comment on `line`: nullopt when there is
/// none, "" when it has no reason. With `alone`, the comment must be the
/// whole line (the line before a finding).
std::optional<std::string> IgnoreReason(std::string_view line, bool alone);

/// The ignore comment that covers 1-based `line` of `file_lines` (that line,
/// then the line before), with the line it is on; nullopt when none does.
struct IgnoreComment {
  int line = 0;
  std::string reason;  ///< "" when the comment gives none
};
std::optional<IgnoreComment> IgnoreFor(const std::vector<std::string_view>& file_lines, int line);

}  // namespace togmal::scan
