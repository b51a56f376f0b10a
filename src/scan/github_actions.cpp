// GitHub Actions: the `run:` of every step of every job (a workflow), or of
// a composite action's `runs.steps`. `${{ … }}` is pasted into the script
// before any shell sees it, so the shell text has a variable in its place,
// and a context an outsider sets is a finding of its own.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "togmal/scan/extractors.h"
#include "togmal/util/glob.h"
#include "togmal/util/text.h"
#include "yaml_script.h"

namespace togmal::scan {
namespace {

// `text` with each `${{ … }}` replaced by a shell variable (newlines inside
// an expression kept, so lines still match the file).
std::string ReplaceExpressions(std::string_view text) {
  std::string out;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find("${{", at);
    if (open == std::string_view::npos) break;
    const std::size_t close = text.find("}}", open + 3);
    if (close == std::string_view::npos) break;
    out.append(text.substr(at, open - at));
    out += "$GITHUB_EXPRESSION";
    for (std::size_t i = open; i < close; ++i) {
      if (text[i] == '\n') out.push_back('\n');
    }
    at = close + 2;
  }
  if (at == 0) return {};
  out.append(text.substr(at));
  return out;
}

struct Untrusted {
  std::string context;     ///< e.g. "github.head_ref"
  std::size_t offset = 0;  ///< where its `${{` starts in the script
};

// The first expression that reads a context an outsider sets, if any.
std::optional<Untrusted> FindUntrusted(std::string_view script, const Catalogue& catalogue) {
  std::size_t at = 0;
  while ((at = script.find("${{", at)) != std::string_view::npos) {
    const std::size_t close = script.find("}}", at + 3);
    if (close == std::string_view::npos) break;
    const std::string_view expression = script.substr(at + 3, close - at - 3);
    // Any dotted name inside the expression (format('{0}', github.head_ref) too).
    std::size_t i = 0;
    while (i < expression.size()) {
      const std::size_t start = i;
      while (i < expression.size() &&
             (std::isalnum(static_cast<unsigned char>(expression[i])) || expression[i] == '.' ||
              expression[i] == '_' || expression[i] == '-' || expression[i] == '*')) {
        ++i;
      }
      if (i == start) {
        ++i;
        continue;
      }
      const std::string name(expression.substr(start, i - start));
      for (const std::string& glob : catalogue.github_untrusted_contexts) {
        // A field of an untrusted object is untrusted too.
        if (util::GlobMatches(glob, name) || util::GlobMatches(glob + ".**", name)) {
          return Untrusted{name, at};
        }
      }
    }
    at = close + 2;
  }
  return std::nullopt;
}

void AddStep(const YAML::Node& step, std::size_t index, const std::string& where,
             const std::string& default_shell, std::string_view text, const Catalogue& catalogue,
             Extraction& out) {
  if (!step.IsMap()) return;
  const YAML::Node run = step["run"];
  if (!run) return;
  if (!run.IsScalar()) {
    out.problems.push_back({LineOf(run), "run: is not a string"});
    return;
  }
  std::string origin = where + " step " + std::to_string(index + 1);
  if (const YAML::Node name = step["name"]; name && name.IsScalar()) {
    origin += " (" + std::string(util::Trim(name.Scalar(), " ")) + ")";
  } else if (const YAML::Node id = step["id"]; id && id.IsScalar()) {
    origin += " (" + std::string(util::Trim(id.Scalar(), " ")) + ")";
  }
  origin += " run:";
  ScriptSource source = ScriptFromYaml(run, text, origin);
  std::string shell = default_shell;
  if (const YAML::Node step_shell = step["shell"]; step_shell && step_shell.IsScalar()) {
    shell = step_shell.Scalar();
  }
  // bash, sh and custom `bash -e {0}` forms are shell; pwsh, python, cmd are not.
  if (!shell.empty() && !shell.starts_with("bash") && !shell.starts_with("sh")) {
    out.problems.push_back(
        {source.line, origin + " runs in '" + shell + "', not a POSIX shell: not classified"});
    return;
  }
  if (auto untrusted = FindUntrusted(source.text, catalogue)) {
    const std::string_view script = source.text;
    const std::size_t line_start = script.rfind('\n', untrusted->offset);
    const std::size_t begin = line_start == std::string_view::npos ? 0 : line_start + 1;
    const std::size_t end = std::min(script.find('\n', untrusted->offset), script.size());
    FormatFinding finding;
    finding.reason = "${{ " + untrusted->context +
                     " }} is text an outsider sets, pasted into the script before the shell "
                     "parses it (script injection): pass it through env: and use \"$VAR\"";
    finding.line = source.line;
    if (source.mapping == LineMapping::kKept) {
      finding.line += static_cast<int>(
          std::count(script.begin(), script.begin() + static_cast<std::ptrdiff_t>(begin), '\n'));
    }
    finding.command = std::string(script.substr(begin, end - begin));
    finding.origin = origin;
    out.findings.push_back(std::move(finding));
  }
  source.shell = ReplaceExpressions(source.text);
  out.scripts.push_back(std::move(source));
}

// `node[key]` when node is a map that has it; a null node otherwise (yaml-cpp
// throws when a missing child is indexed further).
YAML::Node Child(const YAML::Node& node, const char* key) {
  if (!node || !node.IsMap()) return YAML::Node(YAML::NodeType::Null);
  const YAML::Node child = node[key];
  return child ? child : YAML::Node(YAML::NodeType::Null);
}

std::string DefaultShell(const YAML::Node& node) {
  const YAML::Node shell = Child(Child(Child(node, "defaults"), "run"), "shell");
  return shell.IsScalar() ? shell.Scalar() : std::string();
}

}  // namespace

Extraction ExtractGithubActions(std::string_view text, const Catalogue& catalogue) {
  Extraction out;
  auto root = ParseYamlFile(text, out);
  if (!root) return out;
  if (!root->IsMap()) return out;
  const std::string workflow_shell = DefaultShell(*root);
  if (const YAML::Node jobs = (*root)["jobs"]; jobs && jobs.IsMap()) {
    for (const auto& job : jobs) {
      if (!job.second.IsMap()) continue;
      const YAML::Node steps = job.second["steps"];
      if (!steps || !steps.IsSequence()) continue;
      std::string shell = DefaultShell(job.second);
      if (shell.empty()) shell = workflow_shell;
      const std::string where = "GitHub Actions job " + job.first.Scalar();
      for (std::size_t i = 0; i < steps.size(); ++i) {
        AddStep(steps[i], i, where, shell, text, catalogue, out);
      }
    }
  }
  if (const YAML::Node runs = (*root)["runs"]; runs && runs.IsMap()) {
    const YAML::Node steps = runs["steps"];
    if (steps && steps.IsSequence()) {
      for (std::size_t i = 0; i < steps.size(); ++i) {
        AddStep(steps[i], i, "GitHub composite action", {}, text, catalogue, out);
      }
    }
  }
  return out;
}

}  // namespace togmal::scan
