#include "pattern_lines.h"

#include <cctype>
#include <string>

namespace togmal::analysis {
namespace {

using Bytes = std::bitset<256>;

Bytes All() { return Bytes().set(); }

Bytes NonAscii() {
  Bytes bytes;
  for (std::size_t b = 0x80; b < 256; ++b) bytes.set(b);
  return bytes;
}

Bytes Range(unsigned char lo, unsigned char hi) {
  Bytes bytes;
  for (unsigned b = lo; b <= hi; ++b) bytes.set(b);
  return bytes;
}

/// `bytes` with every ASCII letter in both cases.
Bytes BothCases(Bytes bytes) {
  for (unsigned char c = 'a'; c <= 'z'; ++c) {
    const auto upper = static_cast<unsigned char>(c - 'a' + 'A');
    if (bytes[c] || bytes[upper]) bytes.set(c).set(upper);
  }
  return bytes;
}

Bytes Digits() { return Range('0', '9'); }
Bytes Word() { return Digits() | Range('a', 'z') | Range('A', 'Z') | Bytes().set('_'); }
Bytes Space() {  // RE2's \s: [\t\n\f\r ]
  return Bytes().set('\t').set('\n').set('\f').set('\r').set(' ');
}

/// One element of a pattern: a single character (`value` >= 0) or a set of
/// bytes (`value` < 0), such as `\d`.
struct Element {
  long value = -1;
  Bytes bytes;
  bool understood = true;
};

Element Character(long value) {
  Element e{value, {}, true};
  if (value >= 0 && value < 0x80) {
    e.bytes.set(static_cast<std::size_t>(value));
  } else {
    e.bytes = NonAscii();
  }
  return e;
}

Element Set(Bytes bytes) { return Element{-1, bytes, true}; }
Element NotUnderstood() { return Element{-1, All(), false}; }

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

/// Reads the escape at p[i] == '\\'; `i` ends past it.
Element ReadEscape(std::string_view p, std::size_t& i) {
  ++i;  // the backslash
  if (i >= p.size()) return NotUnderstood();
  const char c = p[i++];
  switch (c) {
    case 'n':
      return Character('\n');
    case 'a':
      return Character('\a');
    case 'f':
      return Character('\f');
    case 't':
      return Character('\t');
    case 'r':
      return Character('\r');
    case 'v':
      return Character('\v');
    case 'd':
      return Set(Digits());
    case 'w':
      return Set(Word());
    case 's':
      return Set(Space());
    case 'D':
      return Set(~Digits());
    case 'W':
      return Set(~Word());
    case 'S':
      return Set(~Space());
    case 'C':  // any byte
      return Set(All());
    case 'x': {
      std::string digits;
      if (i < p.size() && p[i] == '{') {
        const std::size_t close = p.find('}', i);
        if (close == std::string_view::npos) return NotUnderstood();
        digits = std::string(p.substr(i + 1, close - i - 1));
        i = close + 1;
      } else {
        digits = std::string(p.substr(i, 2));
        i += digits.size();
      }
      if (digits.empty() || digits.size() > 8) return NotUnderstood();
      for (char d : digits) {
        if (!std::isxdigit(static_cast<unsigned char>(d))) return NotUnderstood();
      }
      return Character(std::stol(digits, nullptr, 16));
    }
    default:
      break;
  }
  if (IsOctal(c)) {  // RE2 reads up to three octal digits
    long value = c - '0';
    for (int more = 0; more < 2 && i < p.size() && IsOctal(p[i]); ++more) {
      value = value * 8 + (p[i++] - '0');
    }
    return Character(value);
  }
  // Escaped ASCII punctuation is the character itself; any other letter (\p,
  // \P, \Q inside a class…) is not understood here.
  if (!std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80) {
    return Character(static_cast<unsigned char>(c));
  }
  return NotUnderstood();
}

/// Reads one literal character at p[i]; a multi-byte UTF-8 character counts
/// as one, standing for every non-ASCII byte.
Element ReadCharacter(std::string_view p, std::size_t& i) {
  const auto lead = static_cast<unsigned char>(p[i++]);
  if (lead < 0x80) return Character(lead);
  while (i < p.size() && (static_cast<unsigned char>(p[i]) & 0xC0) == 0x80) ++i;
  return Character(0x80);
}

/// Reads the class at p[i] == '['; `i` ends past its ']'. Answers the bytes
/// the class (negation applied) may match.
Bytes ReadClass(std::string_view p, std::size_t& i) {
  ++i;
  bool negated = false;
  if (i < p.size() && p[i] == '^') {
    negated = true;
    ++i;
  }
  Bytes listed;            // every byte an item of the class certainly holds
  bool understood = true;  // every item was read
  bool first = true;
  while (i < p.size() && (p[i] != ']' || first)) {
    first = false;
    if (p.substr(i, 2) == "[:") {  // a POSIX class: not read
      const std::size_t close = p.find(":]", i + 2);
      if (close == std::string_view::npos) return All();
      i = close + 2;
      understood = false;
      continue;
    }
    const Element lo = p[i] == '\\' ? ReadEscape(p, i) : ReadCharacter(p, i);
    if (i + 1 < p.size() && p[i] == '-' && p[i + 1] != ']') {
      ++i;
      const Element hi = p[i] == '\\' ? ReadEscape(p, i) : ReadCharacter(p, i);
      if (lo.value < 0 || hi.value < 0 || lo.value > hi.value) {
        understood = false;
      } else {
        listed |= Range(static_cast<unsigned char>(std::min(lo.value, 0x80L)),
                        static_cast<unsigned char>(std::min(hi.value, 0x80L)));
        if (hi.value >= 0x80) listed |= NonAscii();
      }
      continue;
    }
    if (!lo.understood) {
      understood = false;  // listed adds nothing: a negation must not exclude it
      continue;
    }
    listed |= lo.bytes;
  }
  if (i >= p.size()) return All();  // unterminated
  ++i;                              // the ']'
  if (negated) {
    // Everything but the listed ASCII bytes that are not letters (a letter's
    // other case might not be excluded) and never fewer non-ASCII bytes.
    Bytes excluded = listed & ~BothCases(Range('a', 'z')) & ~NonAscii();
    return ~excluded;
  }
  if (!understood) return All();
  return BothCases(listed);
}

}  // namespace

std::bitset<256> MatchableBytes(std::string_view p) {
  // The s flag anywhere lets every `.` match '\n' (where it holds is not tracked).
  bool dot_newline = false;
  for (std::size_t at = p.find("(?"); at != std::string_view::npos; at = p.find("(?", at + 2)) {
    for (std::size_t j = at + 2; j < p.size() && p[j] != ':' && p[j] != ')'; ++j) {
      if (p[j] == 'P' || p[j] == '<') break;  // a named group
      if (p[j] == 's') dot_newline = true;
    }
  }
  Bytes bytes = NonAscii();
  std::size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '\\') {
      if (p.substr(i, 2) == "\\Q") {  // literal text up to \E
        const std::size_t end = p.find("\\E", i + 2);
        const std::size_t stop = end == std::string_view::npos ? p.size() : end;
        for (std::size_t j = i + 2; j < stop;) bytes |= BothCases(ReadCharacter(p, j).bytes);
        i = end == std::string_view::npos ? p.size() : end + 2;
        continue;
      }
      const std::string_view two = p.substr(i, 2);
      if (two == "\\b" || two == "\\B" || two == "\\A" || two == "\\z") {
        i += 2;  // zero-width
        continue;
      }
      bytes |= BothCases(ReadEscape(p, i).bytes);
      continue;
    }
    if (c == '[') {
      bytes |= ReadClass(p, i);
      continue;
    }
    if (c == '.') {
      bytes |= dot_newline ? All() : ~Bytes().set('\n');
      ++i;
      continue;
    }
    if (c == '(' && p.substr(i, 2) == "(?") {
      i += 2;
      if (i < p.size() && (p[i] == 'P' || p[i] == '<')) {  // a named group: skip the name
        const std::size_t close = p.find('>', i);
        if (close == std::string_view::npos) return All();
        i = close + 1;
        continue;
      }
      while (i < p.size() && p[i] != ':' && p[i] != ')') ++i;  // flags
      if (i < p.size()) ++i;
      continue;
    }
    if (c == '(' || c == ')' || c == '|' || c == '*' || c == '+' || c == '?' || c == '^' ||
        c == '$') {
      ++i;  // syntax
      continue;
    }
    if (c == '{') {  // a repetition {n}, {n,} or {n,m}; otherwise a literal '{'
      std::size_t j = i + 1;
      while (j < p.size() && (std::isdigit(static_cast<unsigned char>(p[j])) || p[j] == ',')) ++j;
      if (j < p.size() && p[j] == '}' && j > i + 1 &&
          std::isdigit(static_cast<unsigned char>(p[i + 1]))) {
        i = j + 1;
        continue;
      }
    }
    bytes |= BothCases(ReadCharacter(p, i).bytes);
  }
  return bytes;
}

bool MayMatchNewline(std::string_view pattern) { return MatchableBytes(pattern)['\n']; }

}  // namespace togmal::analysis
