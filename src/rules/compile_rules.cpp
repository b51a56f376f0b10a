// Build-time tool: compiles config/rules.yaml into a C++ source holding the
// rules as JSON (see rule_json.h). The file is parsed and every regex compiled
// here, so a broken built-in rule fails the build with file:line.
//
//   togmal_compile_rules <rules.yaml> <output.cpp>

#include <fstream>
#include <iostream>

#include "rule_json.h"
#include "togmal/util/build_tool.h"

int main(int argc, char** argv) {
  namespace tool = togmal::util::build_tool;
  int exit_code = 0;
  const auto yaml = tool::ReadInput(argc, argv, "togmal_compile_rules", exit_code);
  if (!yaml) return exit_code;
  auto file = togmal::rules::ParseRuleFile(*yaml, argv[1], togmal::rules::Layer::kBuiltin,
                                           /*compile_regexes=*/true);
  if (!file) {
    std::cerr << file.error() << "\n";
    return tool::kDataErr;
  }
  const auto literal = tool::RawLiteral(togmal::rules::RulesToJson(file->rules).dump());
  if (!literal) {
    std::cerr << "the rules contain the raw-string delimiter\n";
    return tool::kDataErr;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << "// Generated from config/rules.yaml by togmal_compile_rules. Do not edit.\n"
      << "#include \"rule_json.h\"\n\nnamespace togmal::rules {\nnamespace {\n"
      << "constexpr char kJson[] =\n    " << *literal << ";\n}  // namespace\n\n"
      << "const std::string_view kCompiledBuiltinRules(kJson, sizeof(kJson) - 1);\n\n"
      << "}  // namespace togmal::rules\n";
  return out ? 0 : tool::kCantCreat;
}
