#pragma once
/// A quote-aware lexer for Bash command lines: turns a command string into the
/// simple commands that would run, and tells executed text from data.
///
/// It is a lexer with just enough grammar (lists, pipelines, subshells, groups,
/// function definitions, substitutions, heredocs) to find every simple command;
/// it does not expand anything. Words keep expansions as written (`$HOME`,
/// `$(...)`) and say so in their flags. What a command *does* with its words
/// (`bash -c`, `eval`, `xargs`, `find -exec`) is decided by the classifier's
/// tables, see classifier.h (`Classifier::ExecutedSegments`).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace togmal::policy {

/// The operator that ends a simple command (and joins it to the next one).
enum class Connector { kEnd, kAnd, kOr, kSemicolon, kPipe, kBackground, kNewline };

/// Where a simple command sits: at the top, or inside some construct.
enum class Nesting {
  kTopLevel,
  kCommandSubstitution,  ///< `$( … )`, also inside an unquoted heredoc body
  kBackticks,            ///< `` `…` ``
  kProcessSubstitution,  ///< `<( … )`, `>( … )`
  kSubshell,             ///< `( … )`
  kGroup,                ///< `{ …; }`
  kFunctionBody,         ///< the body of `name() { … }`
};

/// One word after quote removal.
struct Word {
  std::string text;          ///< quotes removed; expansions kept as written
  bool quoted = false;       ///< some part was quoted or escaped
  bool expands = false;      ///< contains `$VAR`, `${…}` or `$(( … ))`
  bool substitutes = false;  ///< contains `$( … )`, backticks or `<( … )`
};

/// A redirection such as `2>&1`, `> out.txt`, `<<'EOF'`.
struct Redirection {
  int fd = -1;     ///< explicit descriptor (`2>`), -1 if none
  std::string op;  ///< `>`, `>>`, `<`, `<<`, `<<-`, `<<<`, `>&`, `<&`, `&>`, `&>>`, `>|`, `<>`
  Word target;     ///< file, descriptor, heredoc delimiter or here-string
  std::string heredoc_body;     ///< for `<<`/`<<-`: the lines up to the delimiter
  bool heredoc_quoted = false;  ///< delimiter was quoted: the body is not expanded

  /// True for `>`, `>>`, `&>`, `&>>`, `>|`, `<>` to a file (not `>&2`).
  bool WritesFile() const;
  /// True for `<` from a file.
  bool ReadsFile() const;
  /// True for `<<`, `<<-` and `<<<`: the command's stdin is this text.
  bool FeedsText() const;
};

/// One simple command: assignments, words, redirections.
struct SimpleCommand {
  std::vector<std::string> assignments;  ///< `NAME=value` prefixes, quotes removed
  std::vector<Word> words;               ///< the command name and its arguments
  std::vector<Redirection> redirections;
  Connector connector = Connector::kEnd;  ///< the operator after this command
  Nesting nesting = Nesting::kTopLevel;
  int depth = 0;       ///< how many constructs enclose it
  int parent = -1;     ///< index of the command containing this one's substitution / function
  int pipe_from = -1;  ///< index of the command whose stdout is this one's stdin
  std::string function_name;  ///< set for `name() { … }`; the body's commands have parent = this
  std::string text;           ///< the source text of this command (trimmed)

  /// The words' texts (quotes removed).
  std::vector<std::string> Argv() const;
};

/// Everything Lex found.
struct LexResult {
  /// Every simple command that would run, nested ones included, in order of
  /// where they start.
  std::vector<SimpleCommand> commands;
  /// Syntax problems (unterminated quote, missing `)`, heredoc without end).
  std::vector<std::string> problems;
  /// Nesting went past kMaxNestingDepth; the rest was not analysed.
  bool too_deep = false;

  bool complete() const { return problems.empty() && !too_deep; }
};

/// Deeper nesting than this is not analysed (and LexResult::too_deep is set).
inline constexpr int kMaxNestingDepth = 24;

/// Lexes a Bash command line. Never fails: unterminated input is lexed as far
/// as it goes and reported in `problems`. Linear in the input size (bounded
/// by the nesting limit).
LexResult Lex(std::string_view command);

}  // namespace togmal::policy
