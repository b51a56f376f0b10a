// The rule layers: the built-in one, the constant data that
// togmal_compile_rules made of config/rules.yaml at build time, the readers
// of the layers stacked on it (system, user, project) and LoadRules. Kept apart from
// rule_loader.cpp, which the build tool itself links.
#include "rules_raw.h"
#include "togmal/rules/rule_loader.h"

namespace togmal::rules {
namespace {

Result<void> CompileRegexes(const Condition& condition) {
  for (const Pattern& pattern : condition.patterns) {
    if (!pattern.regex) continue;
    if (auto compiled = pattern.regex->Compile(); !compiled) return compiled;
  }
  for (const Condition& child : condition.children) {
    if (auto compiled = CompileRegexes(child); !compiled) return compiled;
  }
  return {};
}

// Adds the user or project file at `path` to `layers`, or names it in
// `ignored` when it cannot be loaded: the layers that did load, and the
// built-in policy, keep their full strength. Its regexes are compiled now: a
// file is validated whole before any of it counts.
void AddLayerFile(const std::filesystem::path& path, Layer layer, LayerFiles& layers) {
  auto file = ReadRuleFile(path, layer, /*compile_regexes=*/true);
  if (file) {
    layers.files.push_back(std::move(*file));
  } else {
    layers.ignored.push_back(file.error());
  }
}

}  // namespace

Result<RuleFile> BuiltinRuleFile(bool compile_regexes) {
  RuleFile file{std::string(kBuiltinRulesName), Layer::kBuiltin, {}};
  file.rules = RulesFromRaw(kCompiledBuiltinRules, file.file, Layer::kBuiltin);
  if (compile_regexes) {
    for (const Rule& rule : file.rules) {
      if (auto compiled = CompileRegexes(rule.conditions); !compiled) {
        return Fail(rule.Where() + ": " + compiled.error());
      }
    }
  }
  return file;
}

Result<LayerFiles> ReadBaseLayers(const LoadOptions& options) {
  LayerFiles layers;
  if (options.include_builtin) {
    auto builtin = BuiltinRuleFile(options.compile_regexes);
    if (!builtin) return Fail(builtin.error());
    layers.files.push_back(std::move(*builtin));
  }
  // The administrator's ceiling, whatever the home directory or the project
  // say: its path is fixed at build time.
  auto system = ReadSystemRuleFile(options.system_file.value_or(SystemRulesPath()));
  if (!system) {
    layers.ignored.push_back(system.error());
  } else if (*system) {
    layers.files.push_back(std::move(**system));
  }
  // The user file's regexes are compiled whatever compile_regexes says (the
  // built-in rules' were checked at build time).
  const std::filesystem::path user = options.user_file.value_or(UserRulesPath());
  std::error_code error;
  if (!user.empty() && std::filesystem::exists(std::filesystem::symlink_status(user, error))) {
    AddLayerFile(user, Layer::kUser, layers);
  }
  return layers;
}

LayerFiles ReadProjectLayers(const std::vector<std::filesystem::path>& chain) {
  LayerFiles layers;
  for (const std::filesystem::path& path : chain) AddLayerFile(path, Layer::kProject, layers);
  return layers;
}

Result<RuleSet> LoadRules(const LoadOptions& options) {
  auto base = ReadBaseLayers(options);
  if (!base) return Fail(base.error());
  LayerFiles project = ReadProjectLayers(FindProjectRuleFiles(options.cwd));
  for (RuleFile& file : project.files) base->files.push_back(std::move(file));
  for (std::string& why : project.ignored) base->ignored.push_back(std::move(why));
  RuleSet set = CombineRuleFiles(std::move(base->files));
  set.ignored = std::move(base->ignored);
  return set;
}

}  // namespace togmal::rules
