#pragma once
/// JSON text written straight into a string: the bytes of nlohmann's
/// `dump(indent, ' ', false, error_handler_t::replace)`, made without its
/// output adapter (a virtual call per character) and with plain ASCII strings
/// copied in runs. Every answer of `serve` and every audit entry is dumped,
/// several times per call; the rare value this writer does not spell itself
/// (a float, a string with non-ASCII bytes, binary) is handed to nlohmann's
/// own serializer, so the bytes never differ.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace togmal::util {

/// `value` as JSON text (`indent` < 0: one line). Invalid UTF-8 inside
/// strings is replaced by U+FFFD instead of throwing: tool inputs are
/// whatever an agent sent.
std::string DumpJson(const nlohmann::json& value, int indent = -1);

/// Appends `value` as JSON text to `out`: `indent` < 0 on one line, else
/// pretty-printed with `indent` spaces per level, exactly as nlohmann's dump().
void AppendJson(std::string& out, const nlohmann::json& value, int indent = -1);

/// Appends `text` as a JSON string (quoted and escaped) to `out`, the bytes
/// `nlohmann::json(text).dump()` gives (invalid UTF-8 becomes U+FFFD), without
/// building the json value.
void AppendJsonString(std::string& out, std::string_view text);

}  // namespace togmal::util
