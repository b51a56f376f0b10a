#pragma once
/// Small text helpers shared by every module: cutting text for people
/// (reasons, previews) without splitting a UTF-8 character, telling function
/// words apart, and turning JSON into text whatever bytes its strings hold.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace togmal::util {

/// `text` cut to at most `max_bytes` bytes on a UTF-8 character boundary,
/// with "…" appended when something was cut.
std::string Shorten(std::string_view text, std::size_t max_bytes);

/// Shorten() with newlines, carriage returns and tabs turned into spaces: one
/// line for a reason, a table cell or a log message.
std::string OneLine(std::string_view text, std::size_t max_bytes);

/// Whether `word` (lower case) is an English function word, too common to
/// say anything: skipped when texts are compared for similarity and when the
/// model names the words behind a detection.
bool IsStopword(std::string_view word);

/// `value` as JSON text (`indent` < 0: one line). Invalid UTF-8 inside
/// strings is replaced by U+FFFD instead of throwing: tool inputs are
/// whatever an agent sent.
std::string DumpJson(const nlohmann::json& value, int indent = -1);

}  // namespace togmal::util
