#include "yaml_script.h"

#include <cstddef>

#include "togmal/util/yaml.h"

namespace togmal::scan {

ScriptSource ScriptFromYaml(const YAML::Node& node, std::string_view file_text,
                            std::string origin) {
  ScriptSource source;
  source.text = node.Scalar();
  source.origin = std::move(origin);
  const YAML::Mark mark = node.Mark();
  const char first = mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < file_text.size()
                         ? file_text[static_cast<std::size_t>(mark.pos)]
                         : '\0';
  const bool multi_line = source.text.find('\n') != std::string::npos;
  if (first == '|' || first == '>') {
    // A block scalar: its content starts on the line after the indicator. A
    // literal block keeps its lines; a folded one joins them.
    source.line = mark.line + 2;
    source.mapping = first == '|' ? LineMapping::kKept : LineMapping::kFolded;
    return source;
  }
  source.line = mark.line + 1;
  source.column = mark.column + (first == '"' || first == '\'' ? 2 : 1);
  // A flow scalar over several lines is folded: its newlines are not the file's.
  if (multi_line) source.mapping = LineMapping::kFolded;
  return source;
}

std::optional<YAML::Node> ParseYamlFile(std::string_view text, Extraction& out) {
  // A scanned file is the repository's, not togmal's configuration: its own
  // tool decides what a repeated key means, and refusing the file would hide
  // every script in it from the scan.
  auto root = util::ParseYaml(text, "", {}, util::DuplicateKeys::kAllowed);
  if (root) return std::move(*root);
  // The message is ":LINE: why" (or ": why" without a line).
  std::string_view message = root.error();
  if (message.starts_with(':')) message.remove_prefix(1);
  int line = 0;
  std::size_t digits = 0;
  while (digits < message.size() && message[digits] >= '0' && message[digits] <= '9' &&
         digits < 9) {
    line = line * 10 + (message[digits] - '0');
    ++digits;
  }
  if (digits > 0 && digits < message.size() && message[digits] == ':') {
    message.remove_prefix(digits + 1);
  } else {
    line = 0;
  }
  while (message.starts_with(' ')) message.remove_prefix(1);
  out.problems.push_back({line, "not valid YAML: " + std::string(message)});
  return std::nullopt;
}

}  // namespace togmal::scan
