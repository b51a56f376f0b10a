// Build-time tool: compiles config/rules.yaml into a C++ source holding the
// rules as JSON (see rule_json.h). The file is parsed and every regex compiled
// here, so a broken built-in rule fails the build with file:line.
//
//   togmal_compile_rules <rules.yaml> <output.cpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "rule_json.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: togmal_compile_rules <rules.yaml> <output.cpp>\n";
    return 64;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 66;
  }
  std::ostringstream yaml;
  yaml << in.rdbuf();
  auto file = togmal::rules::ParseRuleFile(yaml.str(), argv[1], togmal::rules::Layer::kBuiltin,
                                           /*compile_regexes=*/true);
  if (!file) {
    std::cerr << file.error() << "\n";
    return 65;
  }
  const std::string json = togmal::rules::RulesToJson(file->rules).dump();
  if (json.find(")togmal\"") != std::string::npos) {
    std::cerr << "the rules contain the raw-string delimiter )togmal\"\n";
    return 65;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << "// Generated from config/rules.yaml by togmal_compile_rules. Do not edit.\n"
      << "#include \"rule_json.h\"\n\nnamespace togmal::rules {\nnamespace {\n"
      << "constexpr char kJson[] =\n";
  for (std::size_t i = 0; i < json.size() || i == 0; i += 4000) {
    out << "    R\"togmal(" << json.substr(i, 4000) << ")togmal\"\n";
  }
  out << ";\n}  // namespace\n\n"
      << "const std::string_view kCompiledBuiltinRules(kJson, sizeof(kJson) - 1);\n\n"
      << "}  // namespace togmal::rules\n";
  return out ? 0 : 73;
}
