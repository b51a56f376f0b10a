#include "regex_prefilter.h"

#include <algorithm>

#include "togmal/util/text.h"

namespace togmal::rules {
namespace {

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Characters that stand for themselves outside a class in RE2's default
// syntax (no metacharacter, no whitespace-sensitive mode).
bool IsPlainLiteral(char c) {
  if (IsAsciiAlnum(c)) return true;
  return std::string_view(" _-/,:=@%~!#&'\"<>;`").find(c) != std::string_view::npos;
}

// `\c` that RE2 reads as the literal c: ASCII punctuation that is not a word
// character (RE2 refuses `\_`, and letters and digits are classes or
// back-references).
bool IsEscapablePunctuation(char c) { return c > 0x20 && c < 0x7f && !IsAsciiAlnum(c) && c != '_'; }

}  // namespace

std::optional<RegexPrefilter> RegexPrefilter::For(std::string_view pattern) {
  RegexPrefilter filter;
  if (pattern.starts_with("(?i)")) {
    filter.case_insensitive_ = true;
    pattern.remove_prefix(4);
  }
  std::string piece;
  auto end_piece = [&] {
    if (!piece.empty()) filter.pieces_.push_back(std::move(piece));
    piece.clear();
  };
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '\\') {
      if (i + 1 >= pattern.size()) return std::nullopt;
      const char next = pattern[++i];
      if (next == 'b' || next == 'B') {
        end_piece();
        continue;
      }
      if (!IsEscapablePunctuation(next)) return std::nullopt;
      c = next;
    } else if (c == '^' || c == '$') {
      end_piece();
      continue;
    } else if (!IsPlainLiteral(c)) {
      return std::nullopt;  // a class, group, alternation, quantifier or non-ASCII
    }
    piece.push_back(filter.case_insensitive_ ? util::AsciiLower(c) : c);
  }
  end_piece();
  return filter;
}

bool RegexPrefilter::MayMatch(std::string_view text) const {
  if (!case_insensitive_) {
    return std::all_of(pieces_.begin(), pieces_.end(), [&](const std::string& piece) {
      return text.find(piece) != std::string_view::npos;
    });
  }
  // RE2 folds case by Unicode rules (`k` also matches the Kelvin sign), which
  // an ASCII comparison cannot follow: any non-ASCII byte means "maybe".
  if (std::any_of(text.begin(), text.end(), [](char c) { return (c & 0x80) != 0; })) return true;
  const std::string lower = util::AsciiLower(text);
  return std::all_of(pieces_.begin(), pieces_.end(), [&](const std::string& piece) {
    return lower.find(piece) != std::string::npos;
  });
}

}  // namespace togmal::rules
