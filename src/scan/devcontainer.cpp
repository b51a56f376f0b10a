// devcontainer.json (JSON with comments and trailing commas): the lifecycle
// commands. A string runs in a shell, an array runs without one, and an
// object holds named commands (either form) that run in parallel.
// `initializeCommand` runs on the host machine, not in the container.
#include <string>

#include "json_positions.h"
#include "togmal/scan/extractors.h"
#include "togmal/util/json_parse.h"
#include "togmal/util/text.h"

namespace togmal::scan {
namespace {

constexpr std::string_view kLifecycleCommands[] = {"initializeCommand",    "onCreateCommand",
                                                   "updateContentCommand", "postCreateCommand",
                                                   "postStartCommand",     "postAttachCommand"};

void AddCommand(const nlohmann::json& value, const std::string& pointer, std::string origin,
                const std::map<std::string, TextPosition>& positions, Extraction& out) {
  ScriptSource source;
  source.origin = std::move(origin);
  source.mapping = LineMapping::kFolded;
  const auto at = positions.find(pointer);
  if (at != positions.end()) source.line = at->second.line;
  if (value.is_string()) {
    source.text = value.get<std::string>();
    if (at != positions.end()) source.column = at->second.column + 1;
  } else if (value.is_array()) {
    for (const auto& word : value) {
      if (!word.is_string()) continue;
      if (!source.text.empty()) source.text.push_back(' ');
      source.text += util::ShellQuote(word.get<std::string>());
    }
  } else {
    out.problems.push_back({source.line, source.origin + " is not a string, array or object"});
    return;
  }
  if (!source.text.empty()) out.scripts.push_back(std::move(source));
}

}  // namespace

Extraction ExtractDevcontainer(std::string_view text) {
  Extraction out;
  const std::string clean = BlankJsoncExtras(text);
  auto parsed = util::ParseJson(clean);
  if (!parsed) {
    out.problems.push_back({LineOfParseError(parsed.error()), "not valid JSON: " + parsed.error()});
    return out;
  }
  if (!parsed->is_object()) return out;
  const auto positions = ValuePositions(clean);
  for (const std::string_view key : kLifecycleCommands) {
    const auto found = parsed->find(std::string(key));
    if (found == parsed->end()) continue;
    std::string origin = "devcontainer " + std::string(key);
    if (key == "initializeCommand") origin += " (runs on the host)";
    const std::string pointer = PointerAppend("", key);
    if (found->is_object()) {
      for (const auto& [name, command] : found->items()) {
        AddCommand(command, PointerAppend(pointer, name), origin + " " + name, positions, out);
      }
    } else {
      AddCommand(*found, pointer, origin, positions, out);
    }
  }
  return out;
}

}  // namespace togmal::scan
