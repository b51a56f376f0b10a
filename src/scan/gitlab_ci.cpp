// GitLab CI: `script`, `before_script` and `after_script` of every job (hidden
// `.templates` too: jobs extend them), of `default:` and of the top level.
// Each may be a string or a list, and lists may nest (GitLab flattens them).
#include <string>

#include "togmal/scan/extractors.h"
#include "yaml_script.h"

namespace togmal::scan {
namespace {

constexpr std::string_view kScriptKeys[] = {"before_script", "script", "after_script"};

void AddScripts(const YAML::Node& node, const std::string& origin, std::string_view text, int depth,
                Extraction& out) {
  if (node.IsScalar()) {
    out.scripts.push_back(ScriptFromYaml(node, text, origin));
    return;
  }
  // `!reference [job, script]` names another job's script, scanned there.
  if (!node.IsSequence() || node.Tag() == "!reference" || depth > 8) return;
  for (const YAML::Node& item : node) AddScripts(item, origin, text, depth + 1, out);
}

void AddJob(const YAML::Node& job, const std::string& where, std::string_view text,
            Extraction& out) {
  for (const std::string_view key : kScriptKeys) {
    if (const YAML::Node scripts = job[std::string(key)]) {
      if (!scripts.IsScalar() && !scripts.IsSequence()) {
        out.problems.push_back({LineOf(scripts), std::string(key) + " is not a string or a list"});
        continue;
      }
      AddScripts(scripts, where + " " + std::string(key) + ":", text, 0, out);
    }
  }
}

}  // namespace

Extraction ExtractGitlabCi(std::string_view text) {
  Extraction out;
  auto root = ParseYamlFile(text, out);
  if (!root) return out;
  if (!root->IsMap()) return out;
  for (const auto& entry : *root) {
    const std::string name = entry.first.Scalar();
    if (name == "before_script" || name == "after_script") {
      AddScripts(entry.second, "GitLab CI " + name + ":", text, 0, out);
    } else if (entry.second.IsMap()) {
      AddJob(entry.second, name == "default" ? "GitLab CI default" : "GitLab CI job " + name, text,
             out);
    }
  }
  return out;
}

}  // namespace togmal::scan
