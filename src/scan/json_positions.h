#pragma once
// Where values sit in JSON text. nlohmann/json parses without positions, so
// a small second pass over the same (already validated) text records the
// line and column of every value by its JSON pointer ("/scripts/build").

#include <map>
#include <string>
#include <string_view>

namespace togmal::scan {

struct TextPosition {
  int line = 1;    ///< 1-based
  int column = 1;  ///< 1-based, in bytes
};

/// `text` with comments (`//`, `/* */`) and trailing commas replaced by
/// spaces, so that every other byte keeps its line and column: JSON with
/// comments (devcontainer.json) for a strict parser.
std::string BlankJsoncExtras(std::string_view text);

/// The position of the first byte of every value in `json` (valid JSON),
/// keyed by JSON pointer; nesting beyond `max_depth` is not entered.
std::map<std::string, TextPosition> ValuePositions(std::string_view json, int max_depth = 64);

/// The line a JSON parser's message names ("… at line 3, column 5: …"); 0 if none.
int LineOfParseError(std::string_view message);

/// `/a/b` for a key path; `~` and `/` escaped as JSON pointers do.
std::string PointerAppend(std::string_view pointer, std::string_view key);

}  // namespace togmal::scan
