#pragma once
/// YAML that people write, read with bounds, and the one conversion of YAML to
/// JSON. yaml-cpp shares the node an alias points to, so a 700-byte file of
/// nested aliases is small in memory but explodes for whoever walks it;
/// ParseYaml walks it once, with the aliases expanded, under a node budget,
/// and refuses a map that names a key twice.

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "togmal/util/result.h"

namespace togmal::util {

struct YamlLimits {
  /// Nodes visited with every alias expanded. The built-in settings and rules
  /// have a few thousand; the classifier tables raise it for themselves.
  std::size_t max_nodes = 200'000;
  /// Nesting of maps and sequences.
  std::size_t max_depth = 64;
};

/// Whether a map may name the same key twice. yaml-cpp keeps both and a
/// lookup finds the first; PyYAML and js-yaml keep the last. So in a file
/// togmal reads as configuration a duplicate is an error: whoever reviews it
/// with another tool would read the other value.
enum class DuplicateKeys { kError, kAllowed };

/// Parses `text`. Fails with "source:line: message" on a syntax error, when
/// the document (aliases expanded) exceeds `limits`, and on a key repeated
/// in one map (naming the line of both, unless `duplicates` allows it).
Result<YAML::Node> ParseYaml(std::string_view text, std::string_view source, YamlLimits limits = {},
                             DuplicateKeys duplicates = DuplicateKeys::kError);

/// How scalars become JSON: as their text (`kText`: `1` is "1"), or typed as
/// a YAML reader would (`kTyped`: plain `1`, `true`, `~` become a number, a
/// boolean, null; quoted scalars stay strings).
enum class YamlScalars { kText, kTyped };

/// The JSON of `node`: maps to objects (keys as text), sequences to arrays.
/// Walk only nodes that ParseYaml accepted: the conversion is not bounded.
nlohmann::json YamlToJson(const YAML::Node& node, YamlScalars scalars);

/// "file:line" of a node, for a settings error.
inline std::string YamlWhere(std::string_view file_name, const YAML::Node& node) {
  return std::string(file_name) + ":" + std::to_string(node.Mark().line + 1);
}

/// Reads the number `section[key]` into `out` when present, within [min, max];
/// fails with "file:line: WHAT must be MIN to MAX" or "… must be a number".
template <typename T>
Result<void> ReadBoundedNumber(const YAML::Node& section, const char* key,
                               std::string_view file_name, std::string_view what, T min, T max,
                               T& out) {
  const YAML::Node node = section[key];
  if (!node) return {};
  try {
    const T value = node.as<T>();
    if (value < min || value > max) {
      return Fail(YamlWhere(file_name, node) + ": " + std::string(what) + " must be " +
                  std::to_string(min) + " to " + std::to_string(max));
    }
    out = value;
    return {};
  } catch (const YAML::Exception&) {
    return Fail(YamlWhere(file_name, node) + ": " + std::string(what) + " must be a number");
  }
}

}  // namespace togmal::util
