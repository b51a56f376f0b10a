// Build-time tool: compiles a rule file (config/rules.yaml) into a C++ source
// holding the rules as constant data (the Raw* structs of rules_raw.h). The
// file is parsed and every regex compiled here, so a broken built-in rule fails
// the build with file:line.
//
//   togmal_compile_rules <rules.yaml> <output.cpp> [SYMBOL]
//
// SYMBOL (default kCompiledBuiltinRules) names the util::RawList<RawRule> the
// output defines in togmal::rules; tests compile fixtures under other names.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "togmal/rules/rule_loader.h"
#include "togmal/util/build_tool.h"

namespace {

using togmal::rules::Condition;
using togmal::rules::Pattern;
using togmal::rules::Rule;
using togmal::util::build_tool::CppString;

template <typename Enum>
std::string EnumLiteral(const char* type, Enum value) {
  return std::string("static_cast<") + type + ">(" + std::to_string(static_cast<int>(value)) + ")";
}

// Writes the arrays a rule needs before the rule itself.
class Emitter : public togmal::util::build_tool::ArrayEmitter {
 public:
  std::string PatternItem(const Pattern& pattern) {
    if (pattern.regex) return "{.regex = " + CppString(pattern.regex->pattern()) + "}";
    return "{.glob = " + CppString(pattern.glob->pattern()) +
           (pattern.glob->case_insensitive() ? ", .case_insensitive = true}" : "}");
  }

  std::string ConditionItem(const Condition& condition) {
    const std::string patterns = ListOf(
        "RawPattern", condition.patterns, [this](const Pattern& p) { return PatternItem(p); },
        ", ");
    const std::string children = ListOf("RawCondition", condition.children,
                                        [this](const Condition& c) { return ConditionItem(c); });
    std::string out = "{.kind = " + EnumLiteral("Condition::Kind", condition.kind) +
                      ", .line = " + std::to_string(condition.line);
    if (!condition.key.empty()) out += ", .key = " + CppString(condition.key);
    Field(out, "patterns", patterns);
    if (condition.kind == Condition::Kind::kLevel) {
      out += ", .comparison = " + EnumLiteral("Comparison", condition.comparison) +
             ", .level = " + std::to_string(togmal::policy::Index(condition.level));
    }
    Field(out, "children", children);
    return out + "}";
  }

  std::string RuleItem(const Rule& rule) {
    return "{.id = " + CppString(rule.id) + ", .priority = " + std::to_string(rule.priority) +
           ", .enabled = " + (rule.enabled ? "true" : "false") +
           ", .conditions = " + ConditionItem(rule.conditions) +
           ", .action = " + EnumLiteral("Action", rule.action) +
           ", .reason = " + CppString(rule.reason) +
           ", .sampling_guidance = " + CppString(rule.sampling_guidance) +
           ", .line = " + std::to_string(rule.line) + ", .order = " + std::to_string(rule.order) +
           "}";
  }
};

}  // namespace

int main(int argc, char** argv) {
  namespace tool = togmal::util::build_tool;
  int exit_code = 0;
  const auto yaml = tool::ReadInput(argc, argv, "togmal_compile_rules", exit_code, "[SYMBOL]");
  if (!yaml) return exit_code;
  const std::string symbol = argc == 4 ? argv[3] : "kCompiledBuiltinRules";
  auto file = togmal::rules::ParseRuleFile(*yaml, argv[1], togmal::rules::Layer::kBuiltin,
                                           /*compile_regexes=*/true);
  if (!file) {
    std::cerr << file.error() << "\n";
    return tool::kDataErr;
  }
  Emitter emit;
  const std::string list = emit.ListOf("RawRule", file->rules,
                                       [&emit](const Rule& rule) { return emit.RuleItem(rule); });
  std::ofstream out(argv[2], std::ios::binary);
  out << "// Generated from " << std::filesystem::path(argv[1]).filename().string()
      << " by togmal_compile_rules. Do not edit.\n"
      << "#include \"rules_raw.h\"\n\n"
      << "// Designated initialisers name only the fields that differ from the default.\n"
      << "#pragma GCC diagnostic ignored \"-Wmissing-field-initializers\"\n\n"
      << "namespace togmal::rules {\nnamespace {\n\n"
      << emit.Definitions() << "\n}  // namespace\n\n"
      << "extern const util::RawList<RawRule> " << symbol << ";\n"
      << "const util::RawList<RawRule> " << symbol << " = " << list << ";\n\n"
      << "}  // namespace togmal::rules\n";
  return out ? 0 : tool::kCantCreat;
}
