#include "command_split.h"

#include "togmal/policy/shell_lexer.h"

namespace togmal::scan {
namespace {

std::string_view TrimRight(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

std::string_view TrimLeft(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  return text;
}

// Whether the shell would read another line before running `chunk`.
bool Continues(std::string_view chunk) {
  const std::string_view end = TrimRight(chunk);
  if (end.ends_with('\\') || end.ends_with("&&") || end.ends_with("||") ||
      (end.ends_with('|') && !end.ends_with(";;"))) {
    return true;
  }
  return !policy::Lex(chunk).problems.empty();
}

}  // namespace

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    if (end == text.size()) break;
    start = end + 1;
  }
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

std::vector<CommandChunk> SplitCommands(std::string_view script) {
  const std::vector<std::string_view> lines = Lines(script);
  std::vector<CommandChunk> chunks;
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string_view first = TrimLeft(lines[i]);
    if (first.empty() || first.front() == '#') {
      ++i;
      continue;
    }
    CommandChunk chunk{i, 1, std::string(lines[i])};
    while (i + 1 < lines.size() && chunk.line_count < kMaxChunkLines &&
           chunk.text.size() < kMaxChunkBytes && Continues(chunk.text)) {
      ++i;
      chunk.text.push_back('\n');
      chunk.text += lines[i];
      ++chunk.line_count;
    }
    chunks.push_back(std::move(chunk));
    ++i;
  }
  return chunks;
}

}  // namespace togmal::scan
