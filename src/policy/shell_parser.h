#pragma once
// The shell lexer's parser, shared by its two files: shell_lexer.cpp (lists,
// commands, redirections, heredocs) and shell_words.cpp (words: quoting,
// expansions and the substitutions inside them). Private to src/policy.

#include <string_view>
#include <vector>

#include "togmal/policy/shell_lexer.h"

namespace togmal::policy::shell_parser {

inline bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

inline bool IsNameStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsNameChar(char c) { return IsNameStart(c) || (c >= '0' && c <= '9'); }
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }

/// Characters that end an unquoted word.
inline bool IsMeta(char c) {
  return IsBlank(c) || c == '\n' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' ||
         c == '(' || c == ')';
}

/// `NAME=` or `NAME+=` at the start of a word makes it an assignment.
inline bool IsAssignment(std::string_view text) {
  if (text.empty() || !IsNameStart(text[0])) return false;
  std::size_t i = 1;
  while (i < text.size() && IsNameChar(text[i])) ++i;
  if (i < text.size() && text[i] == '+') ++i;
  return i < text.size() && text[i] == '=';
}

inline std::string_view Trim(std::string_view text) {
  while (!text.empty() && (IsBlank(text.front()) || text.front() == '\n')) text.remove_prefix(1);
  while (!text.empty() && (IsBlank(text.back()) || text.back() == '\n')) text.remove_suffix(1);
  return text;
}

/// Words that open or close compound commands; they are syntax, not commands.
inline bool IsSkippedReservedWord(std::string_view word) {
  return word == "if" || word == "then" || word == "else" || word == "elif" || word == "fi" ||
         word == "do" || word == "done" || word == "while" || word == "until" || word == "!" ||
         word == "esac" || word == "{" || word == "}";
}

enum class Terminator { kEof, kParen, kBrace };

struct PendingHeredoc {
  std::size_t command;
  std::size_t redirection;
};

/// One pass over one source string. Nested constructs in the same string are
/// parsed by recursive calls; backtick bodies and heredoc bodies (other
/// strings) get their own Parser writing into the same LexResult.
class Parser {
 public:
  Parser(std::string_view src, LexResult& out) : src_(src), out_(out) {}

  void ParseList(int depth, Nesting nesting, int parent, Terminator terminator);
  /// Scans text that is expanded like a double-quoted string (an unquoted
  /// heredoc body) for substitutions.
  void ScanExpandedText(int depth, int parent);

 private:
  bool AtEnd() const { return pos_ >= src_.size(); }
  char Peek(std::size_t ahead = 0) const {
    return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
  }
  bool Deeper(int depth) {
    if (depth <= kMaxNestingDepth) return true;
    out_.too_deep = true;
    pos_ = src_.size();  // stop: the rest is not analysed
    return false;
  }
  void SkipBlanks();
  void SkipComment();
  void ReadPendingHeredocs();
  /// out_.commands grows while nested constructs are parsed: a command is
  /// looked up by its index again after each, never held across one.
  SimpleCommand& CommandAt(std::size_t index) { return out_.commands[index]; }
  /// Returns true when the command closed the enclosing brace group.
  bool ParseCommand(int depth, Nesting nesting, int parent, Terminator terminator,
                    int& pipe_source);
  /// At an operator, a comment or the end of a line: records the connector
  /// (and, for an operator, where the command's text ends), consumes it and
  /// returns true. A `|` makes the command the next one's pipe_source.
  bool EndOfCommand(std::size_t index, std::size_t& end, int& pipe_source);
  /// `((…))`, a subshell, or the body of `name ( ) …`.
  void ParseParenthesis(std::size_t index, int depth, int parent, bool empty);
  /// `name ( ) compound-command`; false when no `)` follows the `(`.
  bool ParseFunctionDefinition(std::size_t index, int depth);
  /// `function name { … }` or a group `{ …; }`; false when the brace opens neither.
  bool ParseBraceBody(std::size_t index, int depth, int parent, bool empty);
  /// `<(…)`/`>(…)` as a word (with the rest of the word, if any).
  void ParseProcessSubstitutionWord(std::size_t index, int depth);
  /// What a word ends: nothing (the next word follows), the enclosing brace
  /// group (`}`) or a `for`/`case`/`select` header (`do`).
  enum class AfterWord { kNextWord, kGroupClosed, kHeaderEnded };
  /// A word of the command: an assignment, a reserved word, or one of its words.
  AfterWord ParseCommandWord(std::size_t index, int depth, Terminator terminator, bool& is_header);
  bool TryRedirection(std::size_t command, int depth);
  Word ParseWord(int depth, int parent);
  /// `name=(a b)`, `@(a|b)`: parentheses that are part of the word; false
  /// when the `(` ends it.
  bool ParenthesesInWord(Word& word, int depth, int parent);
  void ParseSingleQuoted(Word& word);
  /// `$'…'`: ANSI-C quoting, with its escapes (`\n`, `\x41`, `\101`).
  void ParseAnsiCQuoted(Word& word);
  void ParseAnsiCEscape(Word& word);
  void ParseDoubleQuoted(Word& word, int depth, int parent, bool until_eof);
  void ParseDollar(Word& word, int depth, int parent);
  void ParseBackticks(Word& word, int depth, int parent);
  void ParseProcessSubstitution(Word& word, int depth, int parent);
  void SkipBalanced(char open, char close, Word& word);
  /// `${x:-$(cmd)}`, `$(( $(cmd) ))`: the substitutions inside an expansion
  /// the lexer skips as a whole (word.text from `from` on) still run.
  void ScanInsideExpansion(Word& word, std::size_t from, int depth, int parent);
  std::size_t NewCommand(int depth, Nesting nesting, int parent);

  std::string_view src_;
  LexResult& out_;
  std::size_t pos_ = 0;
  std::vector<PendingHeredoc> pending_;
};

}  // namespace togmal::policy::shell_parser
