#pragma once
// A YAML scalar that holds shell text, as a ScriptSource with the line its
// text starts on: yaml-cpp marks a block scalar at its `|`/`>` indicator,
// so the text starts on the next line.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>

#include "togmal/scan/script_source.h"

namespace togmal::scan {

/// `node` must be a scalar; `file_text` is the whole YAML file it came from.
ScriptSource ScriptFromYaml(const YAML::Node& node, std::string_view file_text, std::string origin);

/// The YAML document of `text` (aliases bounded, util::ParseYaml); a syntax
/// error becomes a problem in `out` with its line, and nullopt.
std::optional<YAML::Node> ParseYamlFile(std::string_view text, Extraction& out);

/// 1-based line of a node.
inline int LineOf(const YAML::Node& node) { return node.Mark().line + 1; }

}  // namespace togmal::scan
