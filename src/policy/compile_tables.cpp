// Build-time tool: compiles config/classifier.yaml into a C++ source holding
// the tables as JSON (see tables_json.cpp). A table error fails the build
// with file:line.
//
//   togmal_compile_tables <classifier.yaml> <output.cpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "tables.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: togmal_compile_tables <classifier.yaml> <output.cpp>\n";
    return 64;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 66;
  }
  std::ostringstream yaml;
  yaml << in.rdbuf();
  togmal::policy::Tables tables;
  if (auto ok = togmal::policy::ParseTables(yaml.str(), argv[1], tables); !ok) {
    std::cerr << ok.error() << "\n";
    return 65;
  }
  const std::string json = togmal::policy::TablesToJson(tables).dump();
  if (json.find(")togmal\"") != std::string::npos) {
    std::cerr << "the tables contain the raw-string delimiter )togmal\"\n";
    return 65;
  }
  std::ofstream out(argv[2], std::ios::binary);
  // Raw string literals are limited in length by some compilers: split.
  out << "// Generated from config/classifier.yaml by togmal_compile_tables. Do not edit.\n"
      << "#include <string_view>\n\nnamespace togmal::policy {\nnamespace {\n"
      << "constexpr char kJson[] =\n";
  for (std::size_t i = 0; i < json.size(); i += 4000) {
    out << "    R\"togmal(" << json.substr(i, 4000) << ")togmal\"\n";
  }
  out << ";\n}  // namespace\n\nextern const std::string_view kCompiledTables;\n"
      << "const std::string_view kCompiledTables(kJson, sizeof(kJson) - 1);\n\n"
      << "}  // namespace togmal::policy\n";
  return out ? 0 : 73;
}
