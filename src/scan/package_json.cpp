// package.json: every entry of `scripts`. npm runs the lifecycle ones
// (preinstall, install, postinstall, prepare, …) by itself on `npm install`,
// so their origin says so.
#include <string>

#include "json_positions.h"
#include "togmal/scan/extractors.h"
#include "togmal/util/json_parse.h"

namespace togmal::scan {
namespace {

constexpr std::string_view kRunOnInstall[] = {"preinstall",  "install",     "postinstall",
                                              "prepublish",  "preprepare",  "prepare",
                                              "postprepare", "dependencies"};

}  // namespace

Extraction ExtractPackageJson(std::string_view text) {
  Extraction out;
  auto parsed = util::ParseJson(text);
  if (!parsed) {
    out.problems.push_back({LineOfParseError(parsed.error()), "not valid JSON: " + parsed.error()});
    return out;
  }
  if (!parsed->is_object()) return out;
  const auto scripts = parsed->find("scripts");
  if (scripts == parsed->end() || !scripts->is_object()) return out;
  const auto positions = ValuePositions(text);
  for (const auto& [name, body] : scripts->items()) {
    if (!body.is_string()) continue;
    ScriptSource source;
    source.text = body.get<std::string>();
    source.mapping = LineMapping::kFolded;
    source.origin = "package.json script " + name;
    for (const std::string_view lifecycle : kRunOnInstall) {
      if (name == lifecycle) source.origin += " (runs on npm install)";
    }
    if (auto at = positions.find(PointerAppend("/scripts", name)); at != positions.end()) {
      source.line = at->second.line;
      source.column = at->second.column + 1;  // after the opening quote
    }
    out.scripts.push_back(std::move(source));
  }
  return out;
}

}  // namespace togmal::scan
