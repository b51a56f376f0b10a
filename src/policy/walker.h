#pragma once
// The walk over a command line that turns it into findings (walker.cpp) and
// the helpers it shares with the program analysers (code strings, paths).
// Internal to togmal_policy.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tables.h"
#include "togmal/policy/classifier.h"
#include "togmal/policy/shell_lexer.h"

namespace togmal::policy {

/// Code strings inside code strings (`bash -c "bash -c '…'"`) are followed
/// this deep; deeper is itself a finding.
inline constexpr int kMaxCodeDepth = 6;

/// `sudo nice timeout 5 …`: wrappers inside wrappers are followed this deep.
inline constexpr int kMaxWrapped = 32;

std::string Lower(std::string_view text);
std::string Join(const std::vector<Word>& words, std::size_t from, std::size_t to);
/// A short text for a reason: long segments are cut.
std::string Shorten(std::string_view text, std::size_t limit = 160);
std::string_view GenericPhrase(Level level);
inline bool IsOptionWord(std::string_view word) { return word.size() > 1 && word.front() == '-'; }
bool Contains(const std::vector<std::string>& list, std::string_view value);

/// The words of one command from `from` on, split into options and
/// positional arguments, knowing which options take a value.
struct ArgView {
  std::vector<std::string_view> options;  // as written, `--x=y` included
  std::vector<std::string_view> positionals;
  std::vector<std::string_view> all;  // every word
  bool double_dash = false;
};

ArgView ViewArgs(const std::vector<Word>& words, std::size_t from,
                 const std::vector<std::string>& options_with_value);
/// `-rf` matches `-r` and `-f`; `--force=x` matches `--force`.
bool FlagMatches(std::string_view flag, std::string_view option);
bool AnyFlag(const ArgView& view, const std::vector<std::string>& flags);
bool ArgMatches(const std::vector<std::string>& patterns, std::string_view arg);
bool RuleMatches(const ArgRule& rule, const ArgView& view);
const CommandNode* FindChild(const CommandNode& node, std::string_view name);

/// Where a command's stdin comes from, when that matters (shells, SQL).
struct Stdin {
  enum class Kind { kNone, kText, kPipe } kind = Kind::kNone;
  std::string text;      // heredoc / here-string body, or what an echo in the pipe prints
  bool known = false;    // text is what the command will read
  std::string producer;  // for a pipe: the command feeding it
};

/// Walks a command line, collecting findings and executed segments.
class Walker {
 public:
  Walker(const Tables& tables, std::string_view cwd, std::vector<Finding>* findings,
         std::vector<ExecutedSegment>* segments)
      : tables_(tables), cwd_(cwd), findings_(findings), segments_(segments) {}

  void Line(std::string_view text, SegmentOrigin origin, int code_depth);

  void Add(Level level, std::string why, std::string_view segment) {
    if (findings_ != nullptr) findings_->push_back({level, std::move(why), Shorten(segment)});
  }

  /// Checks a path a command or tool reads or names.
  void CheckReadPath(std::string_view path, Level base, std::string_view segment);
  /// Checks a path written to; `inside_level` applies inside the project.
  void CheckWritePath(std::string_view path, Level inside_level, Level outside_level,
                      std::string_view segment, std::string_view what);
  bool InsideProject(std::string_view path) const;

 private:
  void Simple(const LexResult& lex, std::size_t index, SegmentOrigin origin, int code_depth);
  void Words(const std::vector<Word>& words, std::size_t start, const Stdin& stdin_source,
             std::string_view segment, SegmentOrigin origin, int code_depth);
  void Code(const CommandNode& node, Level level, const std::vector<Word>& words, std::size_t index,
            const Stdin& stdin_source, std::string_view segment, std::string_view name,
            int code_depth);
  void Wrapper(const CommandNode& node, Level level, const std::string& why,
               const std::vector<Word>& words, std::size_t index, const Stdin& stdin_source,
               std::string_view segment, int code_depth);
  Level ScanText(const CommandNode& node, std::string_view code, std::string* why) const;
  void CheckAssignment(std::string_view assignment, std::string_view segment);

  const Tables& tables_;
  std::string_view cwd_;
  std::vector<Finding>* findings_;
  std::vector<ExecutedSegment>* segments_;
  int wrapped_ = 0;  // wrappers inside wrappers (`nice nice … ls`), bounded
};

}  // namespace togmal::policy
