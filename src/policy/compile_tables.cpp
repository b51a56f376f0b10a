// Build-time tool: compiles config/classifier.yaml into a C++ source holding
// the tables as JSON (see tables_json.cpp): one document for everything but
// the commands, and one text per command entry so that a process parses only
// the entries it looks up. A table error fails the build with file:line.
//
//   togmal_compile_tables <classifier.yaml> <output.cpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tables.h"

namespace {

constexpr std::string_view kDelimiter = ")togmal\"";

// A raw string literal, split into adjacent pieces (some compilers limit the
// length of one literal).
std::string Literal(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size() || i == 0; i += 4000) {
    out += "R\"togmal(" + text.substr(i, 4000) + ")togmal\"";
    if (i + 4000 < text.size()) out += "\n    ";
  }
  return out;
}

}  // namespace

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
  nlohmann::json header = togmal::policy::TablesToJson(tables);
  const nlohmann::json commands = std::move(header["commands"]);
  header.erase("commands");

  std::vector<std::string> entries;
  std::vector<std::pair<std::string, std::size_t>> names;
  for (const nlohmann::json& command : commands) {
    for (const nlohmann::json& name : command.at("names")) {
      names.emplace_back(name.get<std::string>(), entries.size());
    }
    entries.push_back(command.at("entry").dump());
  }
  std::sort(names.begin(), names.end());  // LazyCommands binary-searches them
  std::vector<std::string> texts = entries;
  texts.push_back(header.dump());
  for (const std::string& text : texts) {
    if (text.find(kDelimiter) != std::string::npos) {
      std::cerr << "the tables contain the raw-string delimiter " << kDelimiter << "\n";
      return 65;
    }
  }

  std::ofstream out(argv[2], std::ios::binary);
  out << "// Generated from config/classifier.yaml by togmal_compile_tables. Do not edit.\n"
      << "#include \"tables.h\"\n\nnamespace togmal::policy {\nnamespace {\n\n"
      << "constexpr char kHeader[] =\n    " << Literal(header.dump()) << ";\n\n"
      << "constexpr std::string_view kEntries[] = {\n";
  for (const std::string& entry : entries) out << "    " << Literal(entry) << ",\n";
  out << "};\n\nconstexpr CompiledCommandName kNames[] = {\n";
  for (const auto& [name, entry] : names) {
    out << "    {" << Literal(name) << ", " << entry << "},\n";
  }
  out << "};\n\n}  // namespace\n\n"
      << "const CompiledTables kCompiledTables = {\n"
      << "    std::string_view(kHeader, sizeof(kHeader) - 1), kNames, kEntries};\n\n"
      << "}  // namespace togmal::policy\n";
  return out ? 0 : 73;
}
