#pragma once
/// Parsing JSON that comes from outside (a hook's stdin, an MCP line, a tool
/// argument holding JSON text) with bounds: nesting depth is checked before
/// anything is built, so 200,000 nested brackets are an error and not a
/// stack overflow in whatever walks the value later, and every failure
/// (syntax, a number too large for a double) is an error value, never an
/// exception that could end the process.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

#include "togmal/util/result.h"

namespace togmal::util {

/// The deepest nesting of arrays and objects accepted. Tool inputs, MCP
/// messages and JSON Schemas nest a few levels; 64 leaves wide room.
inline constexpr std::size_t kMaxJsonDepth = 64;

/// The deepest nesting of `[`/`{` in `text` outside strings (a linear scan
/// that does not validate anything else).
std::size_t JsonNestingDepth(std::string_view text);

/// Parses `text`; fails with a readable message on a syntax error, nesting
/// deeper than `max_depth`, or a number out of range.
Result<nlohmann::json> ParseJson(std::string_view text, std::size_t max_depth = kMaxJsonDepth);

/// Why JSON text could not be parsed, for callers that word the error
/// themselves (a protocol whose messages are pinned).
struct JsonParseFailure {
  enum class Kind {
    kTooDeep,     ///< nesting over the limit; nothing was built
    kSyntax,      ///< not JSON (including invalid UTF-8)
    kOutOfRange,  ///< valid syntax, but e.g. a number no double holds
    kUnusable,    ///< any other parser failure
  };
  Kind kind;
  std::string detail;  ///< the parser's message, or the depth found and allowed
};

/// ParseJson with the kind of failure kept apart; ParseJson words `detail`
/// after its kind.
std::variant<nlohmann::json, JsonParseFailure> ParseJsonOrFailure(
    std::string_view text, std::size_t max_depth = kMaxJsonDepth);

/// Whether `value` nests deeper than `max_depth` (for values that arrived
/// already parsed, e.g. inside a larger message).
bool JsonDeeperThan(const nlohmann::json& value, std::size_t max_depth);

}  // namespace togmal::util
