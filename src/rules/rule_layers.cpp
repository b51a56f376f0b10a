// The rule layers: the built-in one, the constant data that
// togmal_compile_rules made of config/rules.yaml at build time, and LoadRules,
// which stacks it with the user's and the project's files. Kept apart from
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

Result<RuleSet> LoadRules(const LoadOptions& options) {
  std::vector<RuleFile> files;
  if (options.include_builtin) {
    auto builtin = BuiltinRuleFile(options.compile_regexes);
    if (!builtin) return Fail(builtin.error());
    files.push_back(std::move(*builtin));
  }
  // A broken file is left out and named: the layers that did load, and the
  // built-in policy, keep their full strength.
  std::vector<std::string> ignored;
  // Their regexes are compiled now, whatever compile_regexes says: a file is
  // validated whole before any of it counts (the built-in one was at build
  // time).
  auto add = [&](const std::filesystem::path& path, Layer layer) {
    auto file = ReadRuleFile(path, layer, /*compile_regexes=*/true);
    if (file) {
      files.push_back(std::move(*file));
    } else {
      ignored.push_back(file.error());
    }
  };
  // The administrator's ceiling, whatever the home directory or the project
  // say: its path is fixed at build time.
  auto system = ReadSystemRuleFile(options.system_file.value_or(SystemRulesPath()));
  if (!system) {
    ignored.push_back(system.error());
  } else if (*system) {
    files.push_back(std::move(**system));
  }
  std::filesystem::path user = options.user_file.value_or(UserRulesPath());
  std::error_code error;
  if (!user.empty() && std::filesystem::exists(std::filesystem::symlink_status(user, error))) {
    add(user, Layer::kUser);
  }
  for (const std::filesystem::path& project : FindProjectRuleFiles(options.cwd)) {
    add(project, Layer::kProject);
  }
  RuleSet set = CombineRuleFiles(std::move(files));
  set.ignored = std::move(ignored);
  return set;
}

}  // namespace togmal::rules
