#pragma once
/// An agent host's JSON settings file, read so that it can be written back
/// as the person left it: keys in their order, the same indentation, the
/// same final newline. A file that does not parse is refused with its path
/// and line, never overwritten.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "togmal/util/result.h"

namespace togmal::install {

/// JSON that keeps its keys in the order they were read.
using OrderedJson = nlohmann::ordered_json;

/// How the file was laid out.
struct JsonStyle {
  int indent = 2;  ///< spaces (or tabs) per level; -1 = everything on one line
  char indent_char = ' ';
  bool final_newline = true;
};

struct JsonFile {
  std::filesystem::path path;
  bool existed = false;
  std::string text;  ///< as read ("" when the file did not exist)
  OrderedJson value = OrderedJson::object();
  JsonStyle style;
};

/// Reads `path` (a missing file is an empty object). Fails, naming
/// `path:line:column`, when the file is not JSON (comments included), or
/// when its top level is not an object.
Result<JsonFile> LoadJsonFile(const std::filesystem::path& path);

/// `value` laid out in `style`.
std::string RenderJson(const OrderedJson& value, const JsonStyle& style);

}  // namespace togmal::install
