// Build-time tool: compiles config/settings.yaml into a C++ source holding it
// as JSON, each scalar kept as its YAML text, so that a process reads the
// built-in settings without running yaml-cpp's scanner (0.8 M instructions
// for this short file: a sixth of what a hook call does). A YAML error fails
// the build with file:line.
//
//   togmal_compile_settings <settings.yaml> <output.cpp>

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "togmal/util/build_tool.h"
#include "togmal/util/yaml.h"

int main(int argc, char** argv) {
  namespace tool = togmal::util::build_tool;
  int exit_code = 0;
  const auto yaml = tool::ReadInput(argc, argv, "togmal_compile_settings", exit_code);
  if (!yaml) return exit_code;
  auto root = togmal::util::ParseYaml(*yaml, argv[1]);
  if (!root) {
    std::cerr << root.error() << "\n";
    return tool::kDataErr;
  }
  const nlohmann::json json = togmal::util::YamlToJson(*root, togmal::util::YamlScalars::kText);
  const auto literal = tool::RawLiteral(json.dump());
  if (!literal) {
    std::cerr << "the settings contain the raw-string delimiter\n";
    return tool::kDataErr;
  }
  std::ofstream out(argv[2], std::ios::binary);
  out << "// Generated from config/settings.yaml by togmal_compile_settings. Do not edit.\n"
      << "#include <string_view>\n\nnamespace togmal::util {\n\n"
      << "extern const std::string_view kCompiledSettings;\n"
      << "const std::string_view kCompiledSettings =\n    " << *literal << ";\n\n"
      << "}  // namespace togmal::util\n";
  return out ? 0 : tool::kCantCreat;
}
