#pragma once
// A reader for well-formed JSON text, used before nlohmann's parser:
// nlohmann's lexer copies every byte twice (the token and the text kept for
// its error messages), about a hundred instructions per byte, and every MCP
// line is parsed. Private to util (json_parse.cpp).

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

namespace togmal::util {

/// The value nlohmann::json::parse(text) builds, or nullopt for any text it
/// does not read exactly as nlohmann does: invalid JSON of any kind, a number
/// that no 64-bit integer holds, a byte-order mark. The caller then hands the
/// text to nlohmann, which gives its own value or its own error; so this
/// reader only decides how fast a value arrives, never which.
std::optional<nlohmann::json> ReadPlainJson(std::string_view text);

}  // namespace togmal::util
