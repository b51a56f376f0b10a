#pragma once
// A script cut into the commands a person would point at, each with the line
// it starts on: one per line, except that a line continues while the shell
// would keep reading (a trailing `\`, `|`, `&&` or `||`, an open quote,
// heredoc, group or function body).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace togmal::scan {

struct CommandChunk {
  std::size_t first_line = 0;  ///< 0-based line of the script it starts on
  std::size_t line_count = 1;
  std::string text;  ///< the lines, joined by '\n'
};

/// A chunk that never completes ends after this many lines (or bytes) and is
/// classified as it is: an unterminated quote must not make a script quadratic.
inline constexpr std::size_t kMaxChunkLines = 200;
inline constexpr std::size_t kMaxChunkBytes = 64u << 10;

/// The commands of `script`, at most `max_chunks` of them; blank and
/// comment-only lines are left out.
std::vector<CommandChunk> SplitCommands(std::string_view script, std::size_t max_chunks = SIZE_MAX);

/// The lines of `text` (split on '\n', a trailing '\r' removed).
std::vector<std::string_view> Lines(std::string_view text);

}  // namespace togmal::scan
