#include "pattern_lines.h"

#include <cctype>
#include <string>

namespace togmal::analysis {
namespace {

constexpr long kNewline = '\n';

/// What one element of a pattern (an escape, a character or a class item)
/// can match, as far as '\n' goes.
enum class Newline {
  kNo,       ///< never '\n'
  kYes,      ///< certainly matches '\n' (e.g. `\n`, `\s`)
  kUnknown,  ///< not understood: treated as "may"
};

/// A single character read from the pattern: its value, or -1 for a
/// character class escape (`\s`, `\d`…), whose answer is in `newline`.
struct Element {
  long value = -1;
  Newline newline = Newline::kNo;
};

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

/// Reads the escape at p[i] == '\\'; `i` ends past it.
Element ReadEscape(std::string_view p, std::size_t& i) {
  ++i;  // the backslash
  if (i >= p.size()) return {-1, Newline::kUnknown};
  const char c = p[i++];
  switch (c) {
    case 'n':
      return {kNewline, Newline::kYes};
    case 's':  // [\t\n\f\r ]
    case 'W':  // [^0-9A-Za-z_]
    case 'D':  // [^0-9]
    case 'C':  // any byte
      return {-1, Newline::kYes};
    case 'S':
    case 'w':
    case 'd':
      return {-1, Newline::kNo};
    case 'a':
      return {'\a', Newline::kNo};
    case 'f':
      return {'\f', Newline::kNo};
    case 't':
      return {'\t', Newline::kNo};
    case 'r':
      return {'\r', Newline::kNo};
    case 'v':
      return {'\v', Newline::kNo};
    case 'x': {
      std::string digits;
      if (i < p.size() && p[i] == '{') {
        const std::size_t close = p.find('}', i);
        if (close == std::string_view::npos) return {-1, Newline::kUnknown};
        digits = std::string(p.substr(i + 1, close - i - 1));
        i = close + 1;
      } else {
        digits = std::string(p.substr(i, 2));
        i += digits.size();
      }
      if (digits.empty() || digits.size() > 8) return {-1, Newline::kUnknown};
      for (char d : digits) {
        if (!std::isxdigit(static_cast<unsigned char>(d))) return {-1, Newline::kUnknown};
      }
      const long value = std::stol(digits, nullptr, 16);
      return {value, value == kNewline ? Newline::kYes : Newline::kNo};
    }
    default:
      break;
  }
  if (IsOctal(c)) {  // RE2 reads up to three octal digits
    long value = c - '0';
    for (int more = 0; more < 2 && i < p.size() && IsOctal(p[i]); ++more) {
      value = value * 8 + (p[i++] - '0');
    }
    return {value, value == kNewline ? Newline::kYes : Newline::kNo};
  }
  // Escaped punctuation is the character itself; any other letter (\p, \P,
  // \Q inside a class…) is not understood here.
  if (!std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80) {
    return {static_cast<unsigned char>(c), Newline::kNo};
  }
  return {-1, Newline::kUnknown};
}

/// Reads one character of a class (not an escape) at p[i]; a multi-byte
/// UTF-8 character counts as one, with a value above any ASCII byte.
Element ReadClassCharacter(std::string_view p, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(p[i++]);
  if (lead < 0x80) return {lead, lead == kNewline ? Newline::kYes : Newline::kNo};
  while (i < p.size() && (static_cast<unsigned char>(p[i]) & 0xC0) == 0x80) ++i;
  return {0x80, Newline::kNo};
}

/// Reads the class at p[i] == '['; `i` ends past its ']'. Answers whether the
/// class (negation applied) may match '\n'.
Newline ReadClass(std::string_view p, std::size_t& i) {
  ++i;
  bool negated = false;
  if (i < p.size() && p[i] == '^') {
    negated = true;
    ++i;
  }
  bool certainly = false;  // the class as written certainly holds '\n'
  bool maybe = false;      // it holds something not understood
  bool first = true;
  while (i < p.size() && (p[i] != ']' || first)) {
    first = false;
    if (p.substr(i, 2) == "[:") {  // a POSIX class: not read
      const std::size_t close = p.find(":]", i + 2);
      if (close == std::string_view::npos) return Newline::kUnknown;
      i = close + 2;
      maybe = true;
      continue;
    }
    const Element lo = p[i] == '\\' ? ReadEscape(p, i) : ReadClassCharacter(p, i);
    if (i + 1 < p.size() && p[i] == '-' && p[i + 1] != ']') {
      ++i;
      const Element hi = p[i] == '\\' ? ReadEscape(p, i) : ReadClassCharacter(p, i);
      if (lo.value < 0 || hi.value < 0) {
        maybe = true;
      } else if (lo.value <= kNewline && kNewline <= hi.value) {
        certainly = true;
      }
      continue;
    }
    if (lo.newline == Newline::kYes) certainly = true;
    if (lo.newline == Newline::kUnknown) maybe = true;
  }
  if (i >= p.size()) return Newline::kUnknown;  // unterminated
  ++i;                                          // the ']'
  if (negated) return certainly ? Newline::kNo : Newline::kUnknown;
  if (certainly) return Newline::kYes;
  return maybe ? Newline::kUnknown : Newline::kNo;
}

}  // namespace

bool MayMatchNewline(std::string_view p) {
  std::size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '\n') return true;
    if (c == '\\') {
      if (p.substr(i, 2) == "\\Q") {  // literal text up to \E
        const std::size_t end = p.find("\\E", i + 2);
        const std::string_view literal =
            p.substr(i + 2, end == std::string_view::npos ? std::string_view::npos : end - i - 2);
        if (literal.find('\n') != std::string_view::npos) return true;
        if (end == std::string_view::npos) return false;
        i = end + 2;
        continue;
      }
      if (p.substr(i, 2) == "\\b" || p.substr(i, 2) == "\\B" || p.substr(i, 2) == "\\A" ||
          p.substr(i, 2) == "\\z") {
        i += 2;  // zero-width
        continue;
      }
      if (ReadEscape(p, i).newline != Newline::kNo) return true;
      continue;
    }
    if (c == '[') {
      if (ReadClass(p, i) != Newline::kNo) return true;
      continue;
    }
    if (c == '(' && p.substr(i, 2) == "(?") {
      i += 2;
      if (i < p.size() && (p[i] == 'P' || p[i] == '<')) {  // a named group: skip the name
        const std::size_t close = p.find('>', i);
        if (close == std::string_view::npos) return true;
        i = close + 1;
        continue;
      }
      // Flags up to ':' or ')'. The s flag lets `.` match '\n'; where it
      // holds is not tracked, so anywhere counts.
      while (i < p.size() && p[i] != ':' && p[i] != ')') {
        if (p[i] == 's') return true;
        ++i;
      }
      continue;
    }
    ++i;  // a literal character, `.` (no s flag), or syntax: ( ) | * + ? {n,m} ^ $
  }
  return false;
}

}  // namespace togmal::analysis
