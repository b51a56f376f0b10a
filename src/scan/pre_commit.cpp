// .pre-commit-config.yaml: hooks of `repo: local` whose language runs a
// command of the repository (`system`, `script`, and their newer names
// `unsupported`, `unsupported_script`). pre-commit runs `entry` with `args`
// (and the file names) without a shell.
#include <string>

#include "togmal/scan/extractors.h"
#include "yaml_script.h"

namespace togmal::scan {
namespace {

constexpr std::string_view kCommandLanguages[] = {"system", "script", "unsupported",
                                                  "unsupported_script"};

std::string Scalar(const YAML::Node& node) {
  return node && node.IsScalar() ? node.Scalar() : std::string();
}

}  // namespace

Extraction ExtractPreCommitConfig(std::string_view text) {
  Extraction out;
  auto root = ParseYamlFile(text, out);
  if (!root || !root->IsMap()) return out;
  const YAML::Node repos = (*root)["repos"];
  if (!repos || !repos.IsSequence()) return out;
  for (const YAML::Node& repo : repos) {
    if (!repo.IsMap() || Scalar(repo["repo"]) != "local") continue;
    const YAML::Node hooks = repo["hooks"];
    if (!hooks || !hooks.IsSequence()) continue;
    for (const YAML::Node& hook : hooks) {
      if (!hook.IsMap()) continue;
      const std::string language = Scalar(hook["language"]);
      bool runs_command = false;
      for (const std::string_view known : kCommandLanguages) runs_command |= language == known;
      const YAML::Node entry = hook["entry"];
      if (!runs_command || !entry || !entry.IsScalar()) continue;
      ScriptSource source =
          ScriptFromYaml(entry, text, "pre-commit local hook " + Scalar(hook["id"]) + " entry:");
      // The arguments go after the entry, word for word.
      if (const YAML::Node args = hook["args"]; args && args.IsSequence()) {
        std::string shell = source.text;
        for (const YAML::Node& arg : args) {
          if (!arg.IsScalar()) continue;
          shell += " '";
          for (const char c : arg.Scalar())
            shell += c == '\'' ? std::string("'\\''") : std::string(1, c);
          shell += "'";
        }
        source.shell = std::move(shell);
        source.mapping = LineMapping::kFolded;
      }
      out.scripts.push_back(std::move(source));
    }
  }
  return out;
}

}  // namespace togmal::scan
