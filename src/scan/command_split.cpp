#include "command_split.h"

#include <optional>

#include "togmal/policy/shell_lexer.h"
#include "togmal/util/text.h"

namespace togmal::scan {
namespace {

// Whether the shell would read another line before running `chunk`.
bool Continues(std::string_view chunk) {
  const std::string_view end = util::TrimRight(chunk);
  if (end.ends_with('\\') || end.ends_with("&&") || end.ends_with("||") ||
      (end.ends_with('|') && !end.ends_with(";;"))) {
    return true;
  }
  return !policy::Lex(chunk).problems.empty();
}

// Where an unquoted `)` ends a case arm's pattern (`a|b)`, `*'x'*)`,
// `(c)`) at the start of `line`; npos when the line starts no pattern.
std::size_t CasePatternEnd(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i < line.size() && line[i] == '(') ++i;
  char quote = 0;
  for (; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '\\') {
      ++i;
    } else if (c == ')') {
      return i;
    } else if (c == '(' || c == ';' || c == '&' || c == '$' || c == '`' || c == '<' || c == '>') {
      return std::string_view::npos;
    }
  }
  return std::string_view::npos;
}

bool EndsArm(std::string_view line) {
  line = util::TrimRight(line);
  return line.ends_with(";;") || line.ends_with(";&") || line.ends_with(";;&");
}

// The lexer reads `case` headers but not the arms' patterns, so a script's
// case statement is cut here: the header and `esac` are syntax, each arm's
// pattern is blanked (columns kept) and its body classified like any line.
class CaseTracker {
 public:
  /// `line` as the classifier should see it; nullopt when it is only syntax.
  std::optional<std::string> Filter(std::string_view line) {
    const std::string_view trimmed = util::TrimLeft(util::TrimRight(line));
    if (trimmed.starts_with("case ") && trimmed.ends_with(" in")) {
      ++depth_;
      expect_pattern_ = true;
      return std::nullopt;
    }
    if (depth_ == 0) return std::string(line);
    if (trimmed == "esac" || trimmed.starts_with("esac ") || trimmed.starts_with("esac;")) {
      --depth_;
      expect_pattern_ = depth_ > 0;
      return std::nullopt;
    }
    std::string out(line);
    if (expect_pattern_) {
      const std::size_t end = CasePatternEnd(line);
      if (end != std::string_view::npos) {
        for (std::size_t i = 0; i <= end; ++i) out[i] = ' ';
        expect_pattern_ = false;
      }
    }
    if (EndsArm(out)) {
      std::size_t end = util::TrimRight(out).size();
      out.resize(end);
      while (end > 0 && (out[end - 1] == ';' || out[end - 1] == '&')) out[--end] = ' ';
      expect_pattern_ = true;
    }
    if (util::TrimLeft(util::TrimRight(out)).empty()) return std::nullopt;
    return out;
  }

 private:
  int depth_ = 0;
  bool expect_pattern_ = false;
};

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

std::vector<CommandChunk> SplitCommands(std::string_view script, std::size_t max_chunks) {
  const std::vector<std::string_view> lines = Lines(script);
  std::vector<CommandChunk> chunks;
  CaseTracker cases;
  std::size_t i = 0;
  while (i < lines.size() && chunks.size() < max_chunks) {
    const std::string_view first = util::TrimLeft(lines[i]);
    if (first.empty() || first.front() == '#') {
      ++i;
      continue;
    }
    std::optional<std::string> filtered = cases.Filter(lines[i]);
    if (!filtered) {
      ++i;
      continue;
    }
    CommandChunk chunk{i, 1, std::move(*filtered)};
    while (i + 1 < lines.size() && chunk.line_count < kMaxChunkLines &&
           chunk.text.size() < kMaxChunkBytes && Continues(chunk.text)) {
      ++i;
      chunk.text.push_back('\n');
      chunk.text += cases.Filter(lines[i]).value_or(std::string());
      ++chunk.line_count;
    }
    chunks.push_back(std::move(chunk));
    ++i;
  }
  return chunks;
}

}  // namespace togmal::scan
