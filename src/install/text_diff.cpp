// A plain longest-common-subsequence diff: settings files are small, so the
// quadratic table is cheap, and the output reads like `diff -u`.
#include "togmal/install/text_diff.h"

#include <algorithm>
#include <cstddef>
#include <vector>

namespace togmal::install {
namespace {

constexpr std::size_t kContext = 3;
// Beyond this many lines on either side, the diff is only summarised.
constexpr std::size_t kMaxLines = 4000;

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    if (end == std::string_view::npos) {
      lines.push_back(text);
      break;
    }
    lines.push_back(text.substr(0, end));
    text.remove_prefix(end + 1);
  }
  return lines;
}

struct Op {
  char kind;  // ' ', '-', '+'
  std::string_view line;
  std::size_t old_line;  // 1-based position in before (of the next line for '+')
  std::size_t new_line;
};

std::vector<Op> Diff(const std::vector<std::string_view>& a,
                     const std::vector<std::string_view>& b) {
  const std::size_t n = a.size();
  const std::size_t m = b.size();
  std::vector<std::vector<std::size_t>> common(n + 1, std::vector<std::size_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t j = m; j-- > 0;) {
      common[i][j] =
          a[i] == b[j] ? common[i + 1][j + 1] + 1 : std::max(common[i + 1][j], common[i][j + 1]);
    }
  }
  std::vector<Op> ops;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back({' ', a[i], i + 1, j + 1});
      ++i;
      ++j;
    } else if (i < n && (j == m || common[i + 1][j] >= common[i][j + 1])) {
      // What goes is shown before what replaces it, as `diff -u` does.
      ops.push_back({'-', a[i], i + 1, j + 1});
      ++i;
    } else {
      ops.push_back({'+', b[j], i + 1, j + 1});
      ++j;
    }
  }
  return ops;
}

}  // namespace

std::string UnifiedDiff(std::string_view before, std::string_view after, std::string_view label) {
  if (before == after) return {};
  std::string out = "--- " + std::string(label) + "\n+++ " + std::string(label) + "\n";
  const auto a = Lines(before);
  const auto b = Lines(after);
  if (a.size() > kMaxLines || b.size() > kMaxLines) {
    return out + "@@ (" + std::to_string(a.size()) + " lines before, " + std::to_string(b.size()) +
           " after: too long to compare line by line) @@\n";
  }
  const std::vector<Op> ops = Diff(a, b);
  std::size_t k = 0;
  std::size_t printed = 0;  // ops before this one are in a hunk already
  while (k < ops.size()) {
    if (ops[k].kind == ' ') {
      ++k;
      continue;
    }
    // A hunk: from kContext lines before this change to kContext lines after
    // the last change that is at most 2*kContext lines further on.
    const std::size_t start = std::max(printed, k >= kContext ? k - kContext : 0);
    std::size_t end = k;
    std::size_t quiet = 0;
    for (std::size_t x = k; x < ops.size(); ++x) {
      if (ops[x].kind == ' ') {
        if (++quiet > 2 * kContext) break;
      } else {
        quiet = 0;
        end = x;
      }
    }
    const std::size_t stop = std::min(ops.size(), end + 1 + kContext);
    std::size_t old_count = 0;
    std::size_t new_count = 0;
    for (std::size_t x = start; x < stop; ++x) {
      if (ops[x].kind != '+') ++old_count;
      if (ops[x].kind != '-') ++new_count;
    }
    const std::size_t old_start = old_count == 0 ? ops[start].old_line - 1 : ops[start].old_line;
    const std::size_t new_start = new_count == 0 ? ops[start].new_line - 1 : ops[start].new_line;
    out += "@@ -" + std::to_string(old_start) + "," + std::to_string(old_count) + " +" +
           std::to_string(new_start) + "," + std::to_string(new_count) + " @@\n";
    for (std::size_t x = start; x < stop; ++x) {
      out.push_back(ops[x].kind);
      out.append(ops[x].line);
      out.push_back('\n');
    }
    k = stop;
    printed = stop;
  }
  return out;
}

}  // namespace togmal::install
