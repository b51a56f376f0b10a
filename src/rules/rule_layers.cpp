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
  std::filesystem::path user = options.user_file.value_or(UserRulesPath());
  std::error_code error;
  if (!user.empty() && std::filesystem::exists(user, error)) {
    auto file = ReadRuleFile(user, Layer::kUser, options.compile_regexes);
    if (!file) return Fail(file.error());
    files.push_back(std::move(*file));
  }
  if (auto project = FindProjectRules(options.cwd)) {
    auto file = ReadRuleFile(*project, Layer::kProject, options.compile_regexes);
    if (!file) return Fail(file.error());
    files.push_back(std::move(*file));
  }
  return CombineRuleFiles(std::move(files));
}

}  // namespace togmal::rules
