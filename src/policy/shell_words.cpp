// Words: quoting (single, double, ANSI-C `$'…'`), parameter and arithmetic
// expansions, command and process substitutions, and the substitutions
// hidden inside expansions the lexer skips as a whole. ParseWord reads one
// word a quoting or expansion at a time. The other half of the parser is in
// shell_lexer.cpp.
#include <algorithm>
#include <cctype>
#include <utility>

#include "shell_parser.h"
#include "togmal/util/text.h"

namespace togmal::policy::shell_parser {

Word Parser::ParseWord(int depth, int parent) {
  Word word;
  while (!AtEnd()) {
    const char c = Peek();
    if (IsMeta(c)) {
      if (c == '(' && ParenthesesInWord(word, depth, parent)) continue;
      break;
    }
    if (c == '\\') {
      if (Peek(1) == '\n') {
        pos_ += 2;
        continue;
      }
      word.quoted = true;
      if (pos_ + 1 < src_.size()) word.text.push_back(src_[pos_ + 1]);
      pos_ += 2;
      continue;
    }
    if (c == '\'') {
      ParseSingleQuoted(word);
      continue;
    }
    if (c == '"') {
      word.quoted = true;
      ++pos_;
      ParseDoubleQuoted(word, depth, parent, /*until_eof=*/false);
      continue;
    }
    if (c == '$' && Peek(1) == '\'') {
      ParseAnsiCQuoted(word);
      continue;
    }
    if (c == '$' && Peek(1) == '"') {
      word.quoted = true;
      pos_ += 2;
      ParseDoubleQuoted(word, depth, parent, /*until_eof=*/false);
      continue;
    }
    if (c == '$') {
      ParseDollar(word, depth, parent);
      continue;
    }
    if (c == '`') {
      ParseBackticks(word, depth, parent);
      continue;
    }
    word.text.push_back(c);
    ++pos_;
  }
  return word;
}

bool Parser::ParenthesesInWord(Word& word, int depth, int parent) {
  if (word.text.empty()) return false;
  const char last = word.text.back();
  // `name=(a b c)`: an array assignment keeps its parentheses.
  // Substitutions in its elements (`a=($(…))`, `a=([$(…)]=1)`) run now.
  const bool array = last == '=' && IsAssignment(word.text);
  // extglob `@(a|b)`, `!(x)`: part of the word (a substitution in it runs).
  const bool extglob = last == '@' || last == '!' || last == '+' || last == '?' || last == '*';
  if (!array && !extglob) return false;
  const std::size_t from = word.text.size();
  SkipBalanced('(', ')', word);
  ScanInsideExpansion(word, from, depth, parent);
  return true;
}

void Parser::ParseSingleQuoted(Word& word) {
  word.quoted = true;
  const std::size_t end = src_.find('\'', pos_ + 1);
  if (end == std::string_view::npos) {
    out_.problems.push_back("unterminated single quote");
    word.text.append(src_.substr(pos_ + 1));
    pos_ = src_.size();
    return;
  }
  word.text.append(src_.substr(pos_ + 1, end - pos_ - 1));
  pos_ = end + 1;
}

void Parser::ParseAnsiCQuoted(Word& word) {
  word.quoted = true;
  pos_ += 2;
  while (!AtEnd()) {
    const char c = Peek();
    if (c == '\'') {
      ++pos_;
      return;
    }
    if (c == '\\' && pos_ + 1 < src_.size()) {
      ParseAnsiCEscape(word);
      continue;
    }
    word.text.push_back(c);
    ++pos_;
  }
  out_.problems.push_back("unterminated $'…' quote");
}

void Parser::ParseAnsiCEscape(Word& word) {
  const char e = src_[pos_ + 1];
  pos_ += 2;
  switch (e) {
    case 'n':
      word.text.push_back('\n');
      break;
    case 't':
      word.text.push_back('\t');
      break;
    case 'r':
      word.text.push_back('\r');
      break;
    case 'x': {
      int value = 0, digits = 0;
      while (digits < 2 && !AtEnd() && std::isxdigit(static_cast<unsigned char>(Peek()))) {
        const char h = Peek();
        value = value * 16 + (IsDigit(h) ? h - '0' : (util::AsciiLower(h) - 'a' + 10));
        ++pos_;
        ++digits;
      }
      word.text.push_back(static_cast<char>(value));
      break;
    }
    default:
      if (e >= '0' && e <= '7') {
        int value = e - '0', digits = 1;
        while (digits < 3 && !AtEnd() && Peek() >= '0' && Peek() <= '7') {
          value = value * 8 + (Peek() - '0');
          ++pos_;
          ++digits;
        }
        word.text.push_back(static_cast<char>(value & 0xff));
      } else {
        word.text.push_back(e);
      }
  }
}

void Parser::ParseDoubleQuoted(Word& word, int depth, int parent, bool until_eof) {
  while (!AtEnd()) {
    const char c = Peek();
    if (c == '"' && !until_eof) {
      ++pos_;
      return;
    }
    if (c == '\\') {
      const char next = Peek(1);
      if (next == '\n') {
        pos_ += 2;
        continue;
      }
      if (next == '$' || next == '`' || next == '"' || next == '\\') {
        word.text.push_back(next);
        pos_ += 2;
        continue;
      }
      word.text.push_back('\\');
      ++pos_;
      continue;
    }
    if (c == '$') {
      ParseDollar(word, depth, parent);
      continue;
    }
    if (c == '`') {
      ParseBackticks(word, depth, parent);
      continue;
    }
    word.text.push_back(c);
    ++pos_;
  }
  if (!until_eof) out_.problems.push_back("unterminated double quote");
}

void Parser::SkipBalanced(char open, char close, Word& word) {
  // Appends text from the current `open` to its matching `close`, honouring
  // quotes; used for constructs whose inside runs nothing we classify.
  int level = 0;
  while (!AtEnd()) {
    const char c = Peek();
    if (c == '\\' && pos_ + 1 < src_.size()) {
      word.text.append(src_.substr(pos_, 2));
      pos_ += 2;
      continue;
    }
    if (c == '\'' || c == '"') {
      const std::size_t end = src_.find(c, pos_ + 1);
      const std::size_t stop = end == std::string_view::npos ? src_.size() : end + 1;
      word.text.append(src_.substr(pos_, stop - pos_));
      pos_ = stop;
      continue;
    }
    word.text.push_back(c);
    ++pos_;
    if (c == open) ++level;
    if (c == close && --level == 0) return;
  }
  out_.problems.push_back(std::string("missing '") + close + "'");
}

void Parser::ParseDollar(Word& word, int depth, int parent) {
  const char next = Peek(1);
  if (next == '(' && Peek(2) == '(') {
    // $(( arithmetic )). A `$( (subshell) )` would also start this way; rare.
    word.expands = true;
    ++pos_;
    word.text.push_back('$');
    const std::size_t from = word.text.size();
    SkipBalanced('(', ')', word);
    ScanInsideExpansion(word, from, depth, parent);
    return;
  }
  if (next == '(') {
    const std::size_t start = pos_;
    pos_ += 2;
    word.substitutes = true;
    ParseList(depth + 1, Nesting::kCommandSubstitution, parent, Terminator::kParen);
    word.text.append(src_.substr(start, std::min(pos_, src_.size()) - start));
    return;
  }
  if (next == '{') {
    word.expands = true;
    ++pos_;
    word.text.push_back('$');
    const std::size_t from = word.text.size();
    SkipBalanced('{', '}', word);
    ScanInsideExpansion(word, from, depth, parent);
    return;
  }
  if (IsNameStart(next)) {
    word.expands = true;
    word.text.push_back('$');
    ++pos_;
    while (!AtEnd() && IsNameChar(Peek())) word.text.push_back(src_[pos_++]);
    return;
  }
  if (IsDigit(next) || next == '@' || next == '*' || next == '#' || next == '?' || next == '-' ||
      next == '$' || next == '!') {
    word.expands = true;
    word.text.append(src_.substr(pos_, 2));
    pos_ += 2;
    return;
  }
  word.text.push_back('$');
  ++pos_;
}

void Parser::ScanInsideExpansion(Word& word, std::size_t from, int depth, int parent) {
  const std::string_view inner = std::string_view(word.text).substr(from);
  if (inner.find("$(") == std::string_view::npos && inner.find('`') == std::string_view::npos) {
    return;  // the common case costs one scan
  }
  if (!Deeper(depth + 1)) return;
  const std::string body(inner);
  Parser nested(body, out_);
  Word scanned;
  nested.ParseDoubleQuoted(scanned, depth + 1, parent, /*until_eof=*/true);
  if (scanned.substitutes) word.substitutes = true;
}

void Parser::ParseBackticks(Word& word, int depth, int parent) {
  // The body ends at the first unescaped backtick; inside it, \` \\ \$ are
  // escapes. The unescaped body is lexed as its own command line.
  const std::size_t start = pos_;
  ++pos_;
  std::string body;
  bool closed = false;
  while (!AtEnd()) {
    const char c = Peek();
    if (c == '\\' && pos_ + 1 < src_.size()) {
      const char e = src_[pos_ + 1];
      if (e == '`' || e == '\\' || e == '$') {
        body.push_back(e);
      } else {
        body.push_back('\\');
        body.push_back(e);
      }
      pos_ += 2;
      continue;
    }
    if (c == '`') {
      ++pos_;
      closed = true;
      break;
    }
    body.push_back(c);
    ++pos_;
  }
  if (!closed) out_.problems.push_back("unterminated backtick");
  word.substitutes = true;
  word.text.append(src_.substr(start, pos_ - start));
  if (!Deeper(depth + 1)) return;
  Parser nested(body, out_);
  nested.ParseList(depth + 1, Nesting::kBackticks, parent, Terminator::kEof);
}

void Parser::ParseProcessSubstitution(Word& word, int depth, int parent) {
  const std::size_t start = pos_;
  pos_ += 2;
  word.substitutes = true;
  ParseList(depth + 1, Nesting::kProcessSubstitution, parent, Terminator::kParen);
  word.text.append(src_.substr(start, std::min(pos_, src_.size()) - start));
}

}  // namespace togmal::policy::shell_parser
