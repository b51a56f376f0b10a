#pragma once
/// Small text helpers shared by every module: cutting text for people
/// (reasons, previews) without splitting a UTF-8 character, ASCII lower
/// case, looking a name up in a list, telling function words apart. JSON
/// text is json_dump.h's.

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <string>
#include <string_view>

namespace togmal::util {

/// `text` cut to at most `max_bytes` bytes on a UTF-8 character boundary,
/// with "…" appended when something was cut.
std::string Shorten(std::string_view text, std::size_t max_bytes);

/// Shorten() with newlines, carriage returns and tabs turned into spaces: one
/// line for a reason, a table cell or a log message.
std::string OneLine(std::string_view text, std::size_t max_bytes);

/// `c` with A-Z turned into a-z and every other byte as it is. Not
/// std::tolower: no locale, and no undefined behaviour for a negative char.
constexpr char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

/// `text` with A-Z turned into a-z; other bytes (UTF-8 included) unchanged.
std::string AsciiLower(std::string_view text);

/// `text` without the leading bytes found in `blanks` (by default spaces and tabs).
constexpr std::string_view TrimLeft(std::string_view text, std::string_view blanks = " \t") {
  const std::size_t start = text.find_first_not_of(blanks);
  return start == std::string_view::npos ? std::string_view() : text.substr(start);
}

/// `text` without the trailing bytes found in `blanks` (by default spaces and tabs).
constexpr std::string_view TrimRight(std::string_view text, std::string_view blanks = " \t") {
  const std::size_t end = text.find_last_not_of(blanks);
  return end == std::string_view::npos ? std::string_view() : text.substr(0, end + 1);
}

/// `text` without leading or trailing bytes found in `blanks`.
constexpr std::string_view Trim(std::string_view text, std::string_view blanks = " \t") {
  return TrimRight(TrimLeft(text, blanks), blanks);
}

/// Whether `c` may appear in a shell variable name: an ASCII letter, digit or `_`.
constexpr bool IsShellNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// `word` in single quotes for a POSIX shell (each `'` written as `'\''`).
std::string ShellQuote(std::string_view word);

/// Whether `name` is one of `names` (exact, case-sensitive).
inline bool NameIn(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

/// NameIn() over any range of names (array, span, vector of strings).
template <typename Names>
bool NameIn(std::string_view name, const Names& names) {
  return std::find(std::begin(names), std::end(names), name) != std::end(names);
}

/// Whether `word` (lower case) is an English function word, too common to
/// say anything: skipped when texts are compared for similarity and when the
/// model names the words behind a detection.
bool IsStopword(std::string_view word);

}  // namespace togmal::util
