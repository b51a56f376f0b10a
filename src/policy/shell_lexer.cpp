// The shell lexer's lists, commands, redirections and heredocs: a command
// line becomes a flat list of simple commands, each knowing the command it
// is nested in and the one piping into it. ParseCommand reads one simple
// command a step at a time (its end, parentheses, braces, process
// substitutions, redirections, words); the words themselves are
// shell_words.cpp's.
#include "togmal/policy/shell_lexer.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <utility>

#include "shell_parser.h"

namespace togmal::policy {
namespace shell_parser {

std::size_t Parser::NewCommand(int depth, Nesting nesting, int parent) {
  SimpleCommand command;
  command.depth = depth;
  command.nesting = nesting;
  command.parent = parent;
  out_.commands.push_back(std::move(command));
  return out_.commands.size() - 1;
}

void Parser::SkipBlanks() {
  while (!AtEnd()) {
    if (IsBlank(Peek())) {
      ++pos_;
    } else if (Peek() == '\\' && Peek(1) == '\n') {
      pos_ += 2;  // line continuation
    } else {
      break;
    }
  }
}

void Parser::SkipComment() {
  while (!AtEnd() && Peek() != '\n') ++pos_;
}

void Parser::ReadPendingHeredocs() {
  std::vector<PendingHeredoc> pending = std::move(pending_);
  pending_.clear();
  for (const PendingHeredoc& heredoc : pending) {
    Redirection& redirection = out_.commands[heredoc.command].redirections[heredoc.redirection];
    const bool strip_tabs = redirection.op == "<<-";
    const std::string delimiter = redirection.target.text;
    std::string body;
    bool found = false;
    while (!AtEnd()) {
      std::size_t end = src_.find('\n', pos_);
      if (end == std::string_view::npos) end = src_.size();
      std::string_view line = src_.substr(pos_, end - pos_);
      pos_ = end < src_.size() ? end + 1 : end;
      std::string_view compared = line;
      if (strip_tabs) {
        while (!compared.empty() && compared.front() == '\t') compared.remove_prefix(1);
      }
      if (!compared.empty() && compared.back() == '\r') compared.remove_suffix(1);
      if (compared == delimiter) {
        found = true;
        break;
      }
      body.append(strip_tabs ? compared : line);
      body.push_back('\n');
    }
    if (!found) out_.problems.push_back("heredoc without its end line '" + delimiter + "'");
    const bool quoted = redirection.heredoc_quoted;
    redirection.heredoc_body = body;
    if (!quoted && body.find_first_of("$`") != std::string::npos) {
      // An unquoted heredoc body is expanded: its substitutions run.
      Parser nested(body, out_);
      nested.ScanExpandedText(out_.commands[heredoc.command].depth + 1,
                              static_cast<int>(heredoc.command));
    }
  }
}

void Parser::ScanExpandedText(int depth, int parent) {
  Word ignored;
  ParseDoubleQuoted(ignored, depth, parent, /*until_eof=*/true);
}

void Parser::ParseList(int depth, Nesting nesting, int parent, Terminator terminator) {
  if (!Deeper(depth)) return;
  int pipe_source = -1;
  while (true) {
    SkipBlanks();
    if (AtEnd()) {
      if (terminator == Terminator::kParen) out_.problems.push_back("missing ')'");
      if (terminator == Terminator::kBrace) out_.problems.push_back("missing '}'");
      if (!pending_.empty()) ReadPendingHeredocs();
      return;
    }
    const char c = Peek();
    if (c == '#') {
      SkipComment();
    } else if (c == '\n') {
      ++pos_;
      if (!pending_.empty()) ReadPendingHeredocs();
    } else if (c == ')') {
      ++pos_;
      if (terminator == Terminator::kParen) return;
      out_.problems.push_back("unexpected ')'");
    } else if (c == ';' || c == '&' || c == '|') {
      ++pos_;  // an operator with no command before it (`;;`, stray `&`)
    } else if (ParseCommand(depth, nesting, parent, terminator, pipe_source)) {
      return;  // closing brace of a group
    }
  }
}

bool Parser::ParseCommand(int depth, Nesting nesting, int parent, Terminator terminator,
                          int& pipe_source) {
  const std::size_t index = NewCommand(depth, nesting, parent);
  CommandAt(index).pipe_from = pipe_source;
  pipe_source = -1;
  const std::size_t begin = pos_;
  std::size_t end = std::string_view::npos;  // where the text stops (before the operator)
  bool closed_group = false;
  bool is_header = false;  // `for x in …` / `case … in`: a header, its words are data
  while (true) {
    SkipBlanks();
    if (AtEnd() || EndOfCommand(index, end, pipe_source)) break;
    const char c = Peek();
    const bool empty = CommandAt(index).words.empty() && CommandAt(index).assignments.empty();
    if (c == '(') {
      ParseParenthesis(index, depth, parent, empty);
      continue;
    }
    if (c == '{' && ParseBraceBody(index, depth, parent, empty)) continue;
    if (empty && c == '}' && (IsMeta(Peek(1)) || Peek(1) == '\0') &&
        terminator == Terminator::kBrace && CommandAt(index).redirections.empty()) {
      ++pos_;
      closed_group = true;
      break;
    }
    if ((c == '<' || c == '>') && Peek(1) == '(') {
      ParseProcessSubstitutionWord(index, depth);
      continue;
    }
    if (TryRedirection(index, depth)) continue;
    const AfterWord after = ParseCommandWord(index, depth, terminator, is_header);
    if (after == AfterWord::kGroupClosed) {
      closed_group = true;
      break;
    }
    if (after == AfterWord::kHeaderEnded) break;
  }
  if (end == std::string_view::npos) end = std::min(pos_, src_.size());
  CommandAt(index).text = std::string(Trim(src_.substr(begin, end - begin)));
  return closed_group;
}

bool Parser::EndOfCommand(std::size_t index, std::size_t& end, int& pipe_source) {
  SimpleCommand& command = CommandAt(index);
  const char c = Peek();
  if (c == '\n') {
    command.connector = Connector::kNewline;
    return true;
  }
  if (c == ')') return true;
  if (c == '#') {
    SkipComment();
    return true;
  }
  Connector connector = Connector::kEnd;
  std::size_t length = 1;
  if (c == '&' && Peek(1) == '&') {
    connector = Connector::kAnd;
    length = 2;
  } else if (c == '|' && Peek(1) == '|') {
    connector = Connector::kOr;
    length = 2;
  } else if (c == ';') {
    connector = Connector::kSemicolon;
    length = Peek(1) == ';' ? 2u : 1u;
  } else if (c == '|') {
    connector = Connector::kPipe;
    length = Peek(1) == '&' ? 2u : 1u;
  } else if (c == '&' && Peek(1) != '>') {
    connector = Connector::kBackground;
  } else {
    return false;
  }
  end = pos_;
  command.connector = connector;
  pos_ += length;
  if (connector == Connector::kPipe) {
    // A pipe from a subshell or group carries the output of its last command.
    if (command.words.empty() && command.redirections.empty()) {
      pipe_source = static_cast<int>(out_.commands.size()) - 1;
    } else {
      pipe_source = static_cast<int>(index);
    }
  }
  return true;
}

void Parser::ParseParenthesis(std::size_t index, int depth, int parent, bool empty) {
  if (empty && Peek(1) == '(') {
    // `(( arithmetic ))`: evaluates, runs nothing.
    Word word;
    SkipBalanced('(', ')', word);
    ScanInsideExpansion(word, 0, depth, static_cast<int>(index));
    word.text = "((";
    word.expands = true;
    CommandAt(index).words.push_back(std::move(word));
    return;
  }
  if (empty) {
    ++pos_;
    ParseList(depth + 1, Nesting::kSubshell, parent, Terminator::kParen);
    return;
  }
  if (CommandAt(index).words.size() == 1 && CommandAt(index).assignments.empty() &&
      ParseFunctionDefinition(index, depth)) {
    return;
  }
  out_.problems.push_back("unexpected '('");
  ++pos_;
}

bool Parser::ParseFunctionDefinition(std::size_t index, int depth) {
  std::size_t look = pos_ + 1;
  while (look < src_.size() && IsBlank(src_[look])) ++look;
  if (look >= src_.size() || src_[look] != ')') return false;
  pos_ = look + 1;
  SimpleCommand& command = CommandAt(index);  // held only until the body adds commands
  command.function_name = command.words.front().text;
  command.words.clear();
  while (!AtEnd() && (IsBlank(Peek()) || Peek() == '\n')) ++pos_;
  if (Peek() == '{') {
    ++pos_;
    ParseList(depth + 1, Nesting::kFunctionBody, static_cast<int>(index), Terminator::kBrace);
  } else if (Peek() == '(') {
    ++pos_;
    ParseList(depth + 1, Nesting::kFunctionBody, static_cast<int>(index), Terminator::kParen);
  }
  return true;
}

bool Parser::ParseBraceBody(std::size_t index, int depth, int parent, bool empty) {
  SimpleCommand& command = CommandAt(index);  // held only until the body adds commands
  if (command.words.size() == 2 && command.words[0].text == "function" &&
      !command.words[0].quoted) {
    // `function name { … }`
    ++pos_;
    command.function_name = command.words[1].text;
    command.words.clear();
    ParseList(depth + 1, Nesting::kFunctionBody, static_cast<int>(index), Terminator::kBrace);
    return true;
  }
  if (empty && (IsBlank(Peek(1)) || Peek(1) == '\n')) {
    ++pos_;
    ParseList(depth + 1, Nesting::kGroup, parent, Terminator::kBrace);
    return true;
  }
  return false;
}

void Parser::ParseProcessSubstitutionWord(std::size_t index, int depth) {
  Word word;
  ParseProcessSubstitution(word, depth, static_cast<int>(index));
  // The rest of the word (rare) continues as an ordinary word.
  if (!AtEnd() && !IsMeta(Peek())) {
    Word rest = ParseWord(depth, static_cast<int>(index));
    word.text += rest.text;
    word.quoted = word.quoted || rest.quoted;
    word.expands = word.expands || rest.expands;
  }
  CommandAt(index).words.push_back(std::move(word));
}

Parser::AfterWord Parser::ParseCommandWord(std::size_t index, int depth, Terminator terminator,
                                           bool& is_header) {
  const std::size_t word_start = pos_;
  Word word = ParseWord(depth, static_cast<int>(index));
  // Looked up after ParseWord, whose substitutions add commands.
  SimpleCommand& command = CommandAt(index);
  if (command.words.empty() && IsAssignment(src_.substr(word_start, pos_ - word_start)) &&
      !is_header) {
    command.assignments.push_back(std::move(word.text));
    return AfterWord::kNextWord;
  }
  if (command.words.empty() && !word.quoted && IsSkippedReservedWord(word.text)) {
    return word.text == "}" && terminator == Terminator::kBrace ? AfterWord::kGroupClosed
                                                                : AfterWord::kNextWord;
  }
  if (command.words.empty() && !word.quoted &&
      (word.text == "for" || word.text == "case" || word.text == "select")) {
    is_header = true;
  }
  if (is_header && !word.quoted && word.text == "do" && !command.words.empty()) {
    // `for x in a b; do` on one line without `;` is rare; `do` ends the header.
    return AfterWord::kHeaderEnded;
  }
  if (pos_ == word_start) {
    ++pos_;  // a character nothing above understands: skip it rather than loop
    return AfterWord::kNextWord;
  }
  command.words.push_back(std::move(word));
  return AfterWord::kNextWord;
}

bool Parser::TryRedirection(std::size_t command, int depth) {
  std::size_t look = pos_;
  int fd = -1;
  while (look < src_.size() && IsDigit(src_[look])) ++look;
  if (look > pos_) {
    if (look >= src_.size() || (src_[look] != '<' && src_[look] != '>')) return false;
    if (look - pos_ > 4) return false;
    fd = std::stoi(std::string(src_.substr(pos_, look - pos_)));
  }
  std::string_view rest = src_.substr(look);
  static constexpr std::string_view kOperators[] = {"&>>", "<<<", "<<-", "&>", ">>", ">&",
                                                    "<&",  ">|",  "<>",  "<<", ">",  "<"};
  std::string_view op;
  for (std::string_view candidate : kOperators) {
    if (rest.substr(0, candidate.size()) == candidate) {
      op = candidate;
      break;
    }
  }
  if (op.empty()) return false;
  if (fd >= 0 && op.front() == '&') return false;
  pos_ = look + op.size();
  SkipBlanks();
  Redirection redirection;
  redirection.fd = fd;
  redirection.op = std::string(op);
  if (!AtEnd() && !IsMeta(Peek())) {
    redirection.target = ParseWord(depth, static_cast<int>(command));
  } else if ((Peek() == '<' || Peek() == '>') && Peek(1) == '(') {
    ParseProcessSubstitution(redirection.target, depth, static_cast<int>(command));
  } else {
    out_.problems.push_back("redirection '" + std::string(op) + "' without a target");
  }
  if (op == "<<" || op == "<<-") {
    redirection.heredoc_quoted = redirection.target.quoted;
    out_.commands[command].redirections.push_back(std::move(redirection));
    pending_.push_back({command, out_.commands[command].redirections.size() - 1});
  } else {
    out_.commands[command].redirections.push_back(std::move(redirection));
  }
  return true;
}

}  // namespace shell_parser

namespace {

using shell_parser::Parser;
using shell_parser::Terminator;

/// Drops commands with nothing in them (left by `( … )`, `{ … }`, blank
/// lines) and renumbers parent/pipe_from.
void Compact(LexResult& result) {
  std::vector<SimpleCommand>& commands = result.commands;
  std::vector<int> new_index(commands.size(), -1);
  int next = 0;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const SimpleCommand& command = commands[i];
    const bool empty = command.words.empty() && command.assignments.empty() &&
                       command.redirections.empty() && command.function_name.empty();
    if (!empty) new_index[i] = next++;
  }
  auto remap = [&](int old) {
    while (old >= 0 && new_index[static_cast<std::size_t>(old)] < 0) {
      old = commands[static_cast<std::size_t>(old)].parent;
    }
    return old >= 0 ? new_index[static_cast<std::size_t>(old)] : -1;
  };
  std::vector<SimpleCommand> kept;
  kept.reserve(static_cast<std::size_t>(next));
  for (std::size_t i = 0; i < commands.size(); ++i) {
    if (new_index[i] < 0) continue;
    SimpleCommand command = std::move(commands[i]);
    command.parent = remap(command.parent);
    // A pipe from an empty command (a subshell) comes from its last command.
    int from = command.pipe_from;
    while (from >= 0 && new_index[static_cast<std::size_t>(from)] < 0) --from;
    command.pipe_from = from >= 0 ? new_index[static_cast<std::size_t>(from)] : -1;
    kept.push_back(std::move(command));
  }
  commands = std::move(kept);
}

}  // namespace

bool Redirection::WritesFile() const {
  return op == ">" || op == ">>" || op == "&>" || op == "&>>" || op == ">|" || op == "<>" ||
         (op == ">&" && !target.text.empty() && !shell_parser::IsDigit(target.text[0]) &&
          target.text != "-");
}

bool Redirection::ReadsFile() const { return op == "<" || op == "<>"; }

bool Redirection::FeedsText() const { return op == "<<" || op == "<<-" || op == "<<<"; }

std::vector<std::string> SimpleCommand::Argv() const {
  std::vector<std::string> argv;
  argv.reserve(words.size());
  for (const Word& word : words) argv.push_back(word.text);
  return argv;
}

LexResult Lex(std::string_view command) {
  LexResult result;
  Parser parser(command, result);
  parser.ParseList(0, Nesting::kTopLevel, -1, Terminator::kEof);
  Compact(result);
  return result;
}

}  // namespace togmal::policy
