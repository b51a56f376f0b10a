#include "togmal/scan/catalogue.h"

#include <spdlog/spdlog.h>

#include <array>
#include <cstdlib>

#include "togmal/util/embedded.h"
#include "togmal/util/yaml.h"

namespace togmal::scan {
namespace {

constexpr std::array<std::pair<FileKind, std::string_view>, 8> kKindNames = {{
    {FileKind::kShellScript, "shell_script"},
    {FileKind::kGithubActions, "github_actions"},
    {FileKind::kGitlabCi, "gitlab_ci"},
    {FileKind::kDockerfile, "dockerfile"},
    {FileKind::kMakefile, "makefile"},
    {FileKind::kPackageJson, "package_json"},
    {FileKind::kPreCommitConfig, "pre_commit_config"},
    {FileKind::kDevcontainer, "devcontainer"},
}};

std::string At(std::string_view source, const YAML::Node& node) {
  return std::string(source) + ":" + std::to_string(node.Mark().line + 1) + ": ";
}

Result<std::vector<std::string>> Strings(const YAML::Node& node, std::string_view source,
                                         std::string_view key) {
  std::vector<std::string> out;
  if (!node) return out;
  if (!node.IsSequence()) return Fail(At(source, node) + std::string(key) + " is not a list");
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) return Fail(At(source, item) + std::string(key) + ": not a string");
    out.push_back(item.Scalar());
  }
  return out;
}

}  // namespace

std::string_view FileKindName(FileKind kind) {
  for (const auto& [k, name] : kKindNames) {
    if (k == kind) return name;
  }
  return "none";
}

Result<Catalogue> Catalogue::FromYaml(std::string_view yaml, std::string_view source) {
  auto root = util::ParseYaml(yaml, source);
  if (!root) return Fail(root.error());
  if (!root->IsMap()) return Fail(std::string(source) + ": not a map");
  Catalogue catalogue;
  const YAML::Node kinds = (*root)["file_kinds"];
  if (!kinds || !kinds.IsMap()) return Fail(std::string(source) + ": file_kinds is not a map");
  for (const auto& entry : kinds) {
    const std::string& name = entry.first.Scalar();
    FileKind kind = FileKind::kNone;
    for (const auto& [k, known] : kKindNames) {
      if (known == name) kind = k;
    }
    if (kind == FileKind::kNone) return Fail(At(source, entry.first) + "unknown kind " + name);
    auto globs = Strings(entry.second, source, name);
    if (!globs) return Fail(globs.error());
    for (std::string& glob : *globs) catalogue.file_globs.emplace_back(kind, std::move(glob));
  }
  auto hooks = Strings((*root)["git_hooks"], source, "git_hooks");
  if (!hooks) return Fail(hooks.error());
  catalogue.git_hooks = std::move(*hooks);
  auto skip = Strings((*root)["skip_folders"], source, "skip_folders");
  if (!skip) return Fail(skip.error());
  catalogue.skip_folders = std::move(*skip);
  auto untrusted =
      Strings((*root)["github_untrusted_contexts"], source, "github_untrusted_contexts");
  if (!untrusted) return Fail(untrusted.error());
  catalogue.github_untrusted_contexts = std::move(*untrusted);
  auto ci_files = Strings((*root)["ci_output_files"], source, "ci_output_files");
  if (!ci_files) return Fail(ci_files.error());
  catalogue.ci_output_files = std::move(*ci_files);
  if (const YAML::Node settings = (*root)["classifier_settings"]) {
    if (!settings.IsMap()) return Fail(At(source, settings) + "classifier_settings is not a map");
    for (const auto& entry : settings) {
      if (!entry.second.IsScalar()) return Fail(At(source, entry.second) + "not a level");
      catalogue.classifier_settings[entry.first.Scalar()] = entry.second.Scalar();
    }
  }
  if (const YAML::Node builtins = (*root)["make_builtins"]) {
    if (!builtins.IsMap()) return Fail(At(source, builtins) + "make_builtins is not a map");
    for (const auto& entry : builtins) {
      if (!entry.second.IsScalar()) return Fail(At(source, entry.second) + "not a string");
      catalogue.make_builtins[entry.first.Scalar()] = entry.second.Scalar();
    }
  }
  return catalogue;
}

const Catalogue& Catalogue::Builtin() {
  // Built once and never destroyed, like the classifier's tables.
  static const Catalogue* const kCatalogue = [] {
    const std::string_view text = util::FindEmbeddedFile("scan.yaml").value_or("");
    auto parsed = FromYaml(text, "scan.yaml");
    if (!parsed) {
      spdlog::critical("the built-in scan catalogue is broken: {}", parsed.error());
      std::abort();
    }
    return new Catalogue(std::move(*parsed));
  }();
  return *kCatalogue;
}

}  // namespace togmal::scan
