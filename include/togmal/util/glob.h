#pragma once
/// Shell-style globs: rule conditions (tool names, paths, cwd, agents) and the
/// classifier's path tables use this one matcher.
///
/// `*` matches any run of characters except `/`, `**` any run including `/`,
/// `?` one character except `/`, `[abc]`/`[a-z]`/`[!x]` one character of a set,
/// and `\x` a literal x. A leading `**/` also matches no directory at all
/// (`**/.env` matches `.env`, `a/**/b` matches `a/b`), a trailing `/**` also matches the directory
/// itself. The whole text must match. Matching simulates the pattern as an
/// automaton, so it is linear in the text: a 1 MB tool input costs no more
/// than reading it.

#include <string>
#include <string_view>
#include <vector>

namespace togmal::util {

class Glob {
 public:
  /// Compiles `pattern`; cheap (no allocation beyond one token per character).
  /// Malformed sets such as `[abc` are taken literally, as shells do.
  explicit Glob(std::string_view pattern, bool case_insensitive = false);

  /// Whether the whole of `text` matches.
  bool Matches(std::string_view text) const;

  const std::string& pattern() const { return pattern_; }
  bool case_insensitive() const { return case_insensitive_; }

 private:
  struct Token {
    enum class Kind { kChar, kAnyChar, kSet, kStar, kGlobStar };
    explicit Token(Kind k, char c = 0) : kind(k), ch(c) {}
    Kind kind;
    char ch = 0;           ///< kChar
    std::string set;       ///< kSet: the characters, ranges expanded
    bool negated = false;  ///< kSet
    std::size_t skip = 0;  ///< extra epsilon edge to token index + skip
  };
  bool Accepts(const Token& token, char c) const;
  void FindLiteralEnds();
  void Close(char* states) const;

  std::string pattern_;
  bool case_insensitive_;
  std::vector<Token> tokens_;
  std::string prefix_, suffix_;  ///< literal ends every match has (case-sensitive globs)
};

/// Whether `text` matches `pattern`; each pattern is compiled once per thread
/// (patterns come from configuration, texts from the agent).
bool GlobMatches(std::string_view pattern, std::string_view text);

/// Whether `text` holds a wildcard (`*`, `?`, `[`): as a shell word, it is
/// a pattern the shell expands at run time.
bool HasGlobChars(std::string_view text);

/// Whether some text matches both the shell word `shell_word` (with the
/// shell's rule that a wildcard takes no '.' starting a name) and `pattern`
/// (this file's rules): `~/.ss[h]/id_*` and `**/.ssh/**` do; `*` and `.env`
/// do not. Used where a command names files by a pattern, to ask whether
/// it can name a listed one (glob_intersect.cpp).
bool GlobsIntersect(std::string_view shell_word, std::string_view pattern);

}  // namespace togmal::util
