// Build-time tool: compiles config/classifier.yaml into a C++ source holding
// the tables as constant data (the Raw* structs of tables.h): static arrays of
// C strings and nested entries, sorted names for binary search. A process then
// never parses the built-in tables, and turns only the entries it looks up
// into CommandNodes. A table error fails the build with file:line.
//
//   togmal_compile_tables <classifier.yaml> <output.cpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tables.h"
#include "togmal/util/build_tool.h"

namespace {

using togmal::policy::ArgRule;
using togmal::policy::CommandNode;
using togmal::policy::ContentFormat;
using togmal::policy::ContentJudge;
using togmal::policy::Level;
using togmal::policy::PlantedCode;
using togmal::policy::Tables;
using togmal::policy::TextRule;
using togmal::policy::ToolEntry;

using togmal::util::build_tool::CppString;

const char* FormatLiteral(ContentFormat format) {
  switch (format) {
    case ContentFormat::kJson:
      return "ContentFormat::kJson";
    case ContentFormat::kCode:
      return "ContentFormat::kCode";
    case ContentFormat::kCommands:
      return "ContentFormat::kCommands";
    case ContentFormat::kDirectives:
      return "ContentFormat::kDirectives";
    case ContentFormat::kKeys:
      break;
  }
  return "ContentFormat::kKeys";
}

std::string LevelLiteral(Level level) {
  return "Level::kL" + std::to_string(static_cast<int>(level));
}

std::string SettingsLiteral(const togmal::policy::Settings& settings) {
  return "{" + LevelLiteral(settings.unknown_command) + ", " + LevelLiteral(settings.unknown_tool) +
         ", " + LevelLiteral(settings.substitution_minimum) + ", " +
         LevelLiteral(settings.unparsed_minimum) + ", " + LevelLiteral(settings.too_deep) + ", " +
         LevelLiteral(settings.sensitive_minimum) + ", " + LevelLiteral(settings.secrets_output) +
         ", static_cast<Profile>(" + std::to_string(static_cast<int>(settings.profile)) + ")}";
}

// Writes the arrays an entry needs before the entry itself.
class Emitter : public togmal::util::build_tool::ArrayEmitter {
 public:
  std::string Rule(const ArgRule& rule) {
    const std::string groups = ListOf(
        "RawStrings", rule.all_flags,
        [this](const std::vector<std::string>& group) { return Strings(group); }, ", ");
    std::string out = "{.level = " + LevelLiteral(rule.level) + ", .why = " + CppString(rule.why);
    Field(out, "any_flag", Strings(rule.any_flag));
    Field(out, "all_flags", groups);
    Field(out, "none_flag", Strings(rule.none_flag));
    Field(out, "any_arg", Strings(rule.any_arg));
    Field(out, "all_args", Strings(rule.all_args));
    Field(out, "any_word", Strings(rule.any_word));
    if (rule.no_args) out += ", .no_args = " + std::string(*rule.no_args ? "1" : "0");
    if (rule.min_args > 0) out += ", .min_args = " + std::to_string(rule.min_args);
    if (rule.max_args >= 0) out += ", .max_args = " + std::to_string(rule.max_args);
    if (rule.profile) out += ", .profile = " + std::to_string(static_cast<int>(*rule.profile));
    if (rule.local_urls) out += ", .local_urls = true";
    return out + "}";
  }

  std::string Node(const CommandNode& node) {
    const std::string subcommands = ListOf("RawCommandNode", node.subcommands,
                                           [this](const CommandNode& c) { return Node(c); });
    const std::string rules =
        ListOf("RawArgRule", node.rules, [this](const ArgRule& r) { return Rule(r); });
    const std::string code_rules =
        ListOf("RawTextRule", node.code_rules, [this](const TextRule& r) {
          return "{.level = " + LevelLiteral(r.level) + ", .why = " + CppString(r.why) +
                 ", .contains = " + Strings(r.contains) + ", .unless = " + Strings(r.unless) + "}";
        });
    std::string out = "{.name = " + CppString(node.name) +
                      ", .level = " + LevelLiteral(node.level) + ", .why = " + CppString(node.why);
    Field(out, "options_with_value", Strings(node.options_with_value));
    Field(out, "subcommands", subcommands);
    Field(out, "rules", rules);
    if (node.runs != togmal::policy::Runs::kNothing) {
      out += ", .runs = static_cast<Runs>(" + std::to_string(static_cast<int>(node.runs)) + ")";
    }
    Field(out, "code_options", Strings(node.code_options));
    Field(out, "code_rules", code_rules);
    Field(out, "query_options", Strings(node.query_options));
    if (!node.default_command.empty()) {
      out += ", .default_command = " + CppString(node.default_command);
    }
    Field(out, "input_listers", Strings(node.input_listers));
    if (node.skip_positionals != 0) {
      out += ", .skip_positionals = " + std::to_string(node.skip_positionals);
    }
    if (node.in_container) out += ", .in_container = true";
    if (node.data_args) out += ", .data_args = true";
    if (node.writes_args) out += ", .writes_args = true";
    if (node.writes_last_arg) out += ", .writes_last_arg = true";
    if (node.writes_stdin) out += ", .writes_stdin = true";
    Field(out, "print_only", Strings(node.print_only));
    if (node.loads_project) out += ", .loads_project = true";
    if (node.single_dash_long) out += ", .single_dash_long = true";
    Field(out, "safe_options",
          Strings(std::vector<std::string>(node.safe_options.begin(), node.safe_options.end())));
    Field(out, "options_end", Strings(node.options_end));
    Field(out, "operand_values", Strings(node.operand_values));
    Field(out, "output_options", Strings(node.output_options));
    Field(out, "key_options", Strings(node.key_options));
    Field(out, "archive_options", Strings(node.archive_options));
    Field(out, "writes_archive", Strings(node.writes_archive));
    if (node.old_style_options) out += ", .old_style_options = true";
    if (node.max_operands >= 0) out += ", .max_operands = " + std::to_string(node.max_operands);
    if (node.writes_operand != 0) {
      out += ", .writes_operand = " + std::to_string(node.writes_operand);
    }
    if (!node.analyser.empty()) out += ", .analyser = " + CppString(node.analyser);
    return out + "}";
  }

  std::string Tool(const ToolEntry& tool) {
    std::string out = "{.name = " + CppString(tool.name) + ", .level = " + LevelLiteral(tool.level);
    if (tool.outside_project) {
      out += ", .outside_project = " + std::to_string(static_cast<int>(*tool.outside_project));
    }
    out += ", .why = " + CppString(tool.why);
    Field(out, "reads", Strings(tool.reads));
    Field(out, "writes", Strings(tool.writes));
    if (!tool.command.empty()) out += ", .command = " + CppString(tool.command);
    Field(out, "searches", Strings(tool.searches));
    if (!tool.url.empty()) out += ", .url = " + CppString(tool.url);
    Field(out, "reference_hosts", Strings(tool.reference_hosts));
    Field(out, "sends", Strings(tool.sends));
    return out + "}";
  }
};

}  // namespace

int main(int argc, char** argv) {
  namespace tool = togmal::util::build_tool;
  int exit_code = 0;
  const auto yaml = tool::ReadInput(argc, argv, "togmal_compile_tables", exit_code);
  if (!yaml) return exit_code;
  Tables tables;
  if (auto ok = togmal::policy::ParseTables(*yaml, argv[1], tables); !ok) {
    std::cerr << ok.error() << "\n";
    return tool::kDataErr;
  }

  Emitter emit;
  // Aliases share one entry: each entry once with all its names; entries in
  // the order of their first name, so the output is reproducible.
  std::map<const CommandNode*, std::vector<std::string>> aliases;
  for (const auto& [name, node] : tables.commands) aliases[node.get()].push_back(name);
  std::vector<std::pair<std::vector<std::string>, const CommandNode*>> entries;
  for (auto& [node, names] : aliases) {
    std::sort(names.begin(), names.end());
    entries.emplace_back(names, node);
  }
  std::sort(entries.begin(), entries.end());
  std::string entry_items;
  std::vector<std::pair<std::string, std::size_t>> names;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    entry_items += emit.Node(*entries[i].second) + ",\n    ";
    for (const std::string& name : entries[i].first) names.emplace_back(name, i);
  }
  std::sort(names.begin(), names.end());  // LazyCommands binary-searches them
  std::string name_items;
  for (const auto& [name, entry] : names) {
    name_items += "{" + CppString(name) + ", " + std::to_string(entry) + "},\n    ";
  }
  const std::string entry_list = emit.Array("RawCommandNode", entry_items, entries.size());
  const std::string name_list = emit.Array("CompiledCommandName", name_items, names.size());
  const std::string tool_list = emit.ListOf(
      "RawToolEntry", tables.tools, [&emit](const ToolEntry& tool) { return emit.Tool(tool); });
  const std::map<std::string, togmal::policy::AssignmentEntry> sorted(tables.assignments.begin(),
                                                                      tables.assignments.end());
  const std::string assignment_list = emit.ListOf("RawAssignment", sorted, [](const auto& item) {
    return "{" + CppString(item.first) + ", " + LevelLiteral(item.second.level) + ", " +
           CppString(item.second.why) + "}";
  });
  const std::string sensitive = emit.Strings(tables.sensitive.Patterns());
  const std::string not_sensitive = emit.Strings(tables.not_sensitive.Patterns());
  const std::string runs_later = emit.Strings(tables.runs_later.Patterns());
  const std::string system = emit.Strings(tables.system.Patterns());
  const std::string scratch = emit.Strings(tables.scratch.Patterns());
  const std::string guard = emit.Strings(tables.guard.Patterns());
  const std::string audit_database = emit.Strings(tables.audit_database.Patterns());
  const std::string runs_later_content =
      emit.ListOf("RawContentJudge", tables.runs_later_content, [&emit](const ContentJudge& judge) {
        return "{" + std::string(FormatLiteral(judge.format)) + ", " +
               emit.Strings(judge.files.Patterns()) + ", " + emit.Strings(judge.keys) + "}";
      });

  const std::string planted_code =
      emit.ListOf("RawPlantedCode", tables.planted_code, [&emit](const PlantedCode& shape) {
        const std::vector<std::string>& groups = shape.groups;
        return "{" + std::string(LevelLiteral(shape.level)) + ", " + CppString(shape.why) + ", " +
               emit.Strings(groups) + ", " + CppString(shape.pattern) + "}";
      });

  std::ofstream out(argv[2], std::ios::binary);
  out << "// Generated from config/classifier.yaml by togmal_compile_tables. Do not edit.\n"
      << "#include \"tables.h\"\n\n"
      << "// Designated initialisers name only the fields that differ from the default.\n"
      << "#pragma GCC diagnostic ignored \"-Wmissing-field-initializers\"\n\n"
      << "namespace togmal::policy {\nnamespace {\n\n"
      << emit.Definitions() << "\n}  // namespace\n\n"
      << "const CompiledTables kCompiledTables = {\n"
      << "    .settings = " << SettingsLiteral(tables.settings) << ",\n"
      << "    .strict_settings = " << SettingsLiteral(tables.strict_settings) << ",\n"
      << "    .sensitive = " << sensitive << ",\n"
      << "    .not_sensitive = " << not_sensitive << ",\n"
      << "    .runs_later = " << runs_later << ",\n"
      << "    .system = " << system << ",\n"
      << "    .scratch = " << scratch << ",\n"
      << "    .guard = " << guard << ",\n"
      << "    .audit_database = " << audit_database << ",\n"
      << "    .runs_later_content = " << runs_later_content << ",\n"
      << "    .planted_code = " << planted_code << ",\n"
      << "    .tools = " << tool_list << ",\n"
      << "    .assignments = " << assignment_list << ",\n"
      << "    .names = " << name_list << ",\n"
      << "    .entries = " << entry_list << "};\n\n"
      << "}  // namespace togmal::policy\n";
  return out ? 0 : tool::kCantCreat;
}
