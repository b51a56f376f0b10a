// Tables ↔ JSON: the build compiles config/classifier.yaml into JSON once
// (compile_tables.cpp) so that a hook process never parses YAML for the
// built-in tables. The shape mirrors the structs one to one.

#include <algorithm>
#include <map>

#include "tables.h"

namespace togmal::policy {
namespace {

using json = nlohmann::json;

json RuleToJson(const ArgRule& rule) {
  json out = {{"level", static_cast<int>(rule.level)}, {"why", rule.why}};
  if (!rule.any_flag.empty()) out["any_flag"] = rule.any_flag;
  if (!rule.all_flags.empty()) out["all_flags"] = rule.all_flags;
  if (!rule.none_flag.empty()) out["none_flag"] = rule.none_flag;
  if (!rule.any_arg.empty()) out["any_arg"] = rule.any_arg;
  if (!rule.all_args.empty()) out["all_args"] = rule.all_args;
  if (!rule.any_word.empty()) out["any_word"] = rule.any_word;
  if (rule.no_args) out["no_args"] = *rule.no_args;
  return out;
}

json NodeToJson(const CommandNode& node) {
  json out = {{"name", node.name}, {"level", static_cast<int>(node.level)}};
  if (!node.why.empty()) out["why"] = node.why;
  if (!node.options_with_value.empty()) out["options_with_value"] = node.options_with_value;
  if (!node.code_options.empty()) out["code_options"] = node.code_options;
  if (!node.query_options.empty()) out["query_options"] = node.query_options;
  if (!node.default_command.empty()) out["default_command"] = node.default_command;
  if (node.runs != Runs::kNothing) out["runs"] = static_cast<int>(node.runs);
  if (node.skip_positionals != 0) out["skip_positionals"] = node.skip_positionals;
  if (node.data_args) out["data_args"] = true;
  if (node.writes_args) out["writes_args"] = true;
  if (node.writes_last_arg) out["writes_last_arg"] = true;
  for (const ArgRule& rule : node.rules) out["rules"].push_back(RuleToJson(rule));
  for (const TextRule& rule : node.code_rules) {
    out["code_rules"].push_back({{"level", static_cast<int>(rule.level)},
                                 {"why", rule.why},
                                 {"contains", rule.contains},
                                 {"unless", rule.unless}});
  }
  for (const CommandNode& child : node.subcommands) out["subcommands"].push_back(NodeToJson(child));
  return out;
}

Level LevelOf(const json& value) {
  const int level = value.get<int>();
  return static_cast<Level>(level < 0 ? 0 : (level > 3 ? 3 : level));
}

template <typename T>
void Get(const json& object, const char* key, T& target) {
  if (const auto found = object.find(key); found != object.end()) found->get_to(target);
}

ArgRule RuleFromJson(const json& in) {
  ArgRule rule;
  rule.level = LevelOf(in.at("level"));
  Get(in, "why", rule.why);
  Get(in, "any_flag", rule.any_flag);
  Get(in, "all_flags", rule.all_flags);
  Get(in, "none_flag", rule.none_flag);
  Get(in, "any_arg", rule.any_arg);
  Get(in, "all_args", rule.all_args);
  Get(in, "any_word", rule.any_word);
  if (const auto found = in.find("no_args"); found != in.end()) rule.no_args = found->get<bool>();
  return rule;
}

CommandNode NodeFromJson(const json& in) {
  CommandNode node;
  node.name = in.at("name").get<std::string>();
  node.level = LevelOf(in.at("level"));
  Get(in, "why", node.why);
  Get(in, "options_with_value", node.options_with_value);
  Get(in, "code_options", node.code_options);
  Get(in, "query_options", node.query_options);
  Get(in, "default_command", node.default_command);
  if (const auto found = in.find("runs"); found != in.end()) {
    node.runs = static_cast<Runs>(found->get<int>());
  }
  Get(in, "skip_positionals", node.skip_positionals);
  Get(in, "data_args", node.data_args);
  Get(in, "writes_args", node.writes_args);
  Get(in, "writes_last_arg", node.writes_last_arg);
  if (const auto rules = in.find("rules"); rules != in.end()) {
    for (const json& rule : *rules) node.rules.push_back(RuleFromJson(rule));
  }
  if (const auto rules = in.find("code_rules"); rules != in.end()) {
    for (const json& item : *rules) {
      TextRule rule;
      rule.level = LevelOf(item.at("level"));
      Get(item, "why", rule.why);
      Get(item, "contains", rule.contains);
      Get(item, "unless", rule.unless);
      node.code_rules.push_back(std::move(rule));
    }
  }
  if (const auto children = in.find("subcommands"); children != in.end()) {
    for (const json& child : *children) node.subcommands.push_back(NodeFromJson(child));
  }
  return node;
}

}  // namespace

LazyCommands::LazyCommands(const CompiledTables& compiled)
    : compiled_(compiled), parsed_(compiled.entries.size()) {}

const CommandNode* LazyCommands::Find(std::string_view name) const {
  const auto names = compiled_.names;
  const auto found = std::lower_bound(
      names.begin(), names.end(), name,
      [](const CompiledCommandName& item, std::string_view key) { return item.name < key; });
  if (found == names.end() || found->name != name) return nullptr;
  std::lock_guard lock(mutex_);
  std::unique_ptr<const CommandNode>& slot = parsed_[found->entry];
  if (!slot) {
    // The text was produced and validated by togmal_compile_tables; a parse
    // error here would be a build defect, reported like any classifier error.
    slot = std::make_unique<const CommandNode>(
        NodeFromJson(json::parse(compiled_.entries[found->entry])));
  }
  return slot.get();
}

const CommandNode* Tables::FindCommand(const std::string& name) const {
  if (const auto found = commands.find(name); found != commands.end()) return found->second.get();
  return compiled_commands ? compiled_commands->Find(name) : nullptr;
}

json TablesToJson(const Tables& tables) {
  const Settings& settings = tables.settings;
  json out;
  out["settings"] = {static_cast<int>(settings.unknown_command),
                     static_cast<int>(settings.unknown_tool),
                     static_cast<int>(settings.substitution_minimum),
                     static_cast<int>(settings.unparsed_minimum),
                     static_cast<int>(settings.too_deep),
                     static_cast<int>(settings.sensitive_minimum)};
  out["paths"] = {{"sensitive", tables.sensitive},
                  {"not_sensitive", tables.not_sensitive},
                  {"config", tables.config},
                  {"system", tables.system},
                  {"scratch", tables.scratch}};
  // Aliases share one entry: write each entry once with all its names,
  // sorted so that the output is reproducible.
  std::map<const CommandNode*, std::vector<std::string>> names;
  for (const auto& [name, node] : tables.commands) names[node.get()].push_back(name);
  std::vector<std::pair<std::vector<std::string>, const CommandNode*>> entries;
  for (auto& [node, list] : names) {
    std::sort(list.begin(), list.end());
    entries.emplace_back(list, node);
  }
  std::sort(entries.begin(), entries.end());
  out["commands"] = json::array();
  for (const auto& [list, node] : entries) {
    out["commands"].push_back({{"names", list}, {"entry", NodeToJson(*node)}});
  }
  out["tools"] = json::array();
  for (const ToolEntry& tool : tables.tools) {
    json entry = {{"name", tool.name}, {"level", static_cast<int>(tool.level)}, {"why", tool.why},
                  {"reads", tool.reads}, {"writes", tool.writes}, {"command", tool.command}};
    if (tool.outside_project) entry["outside_project"] = static_cast<int>(*tool.outside_project);
    out["tools"].push_back(std::move(entry));
  }
  out["assignments"] = json::object();
  for (const auto& [name, assignment] : tables.assignments) {
    out["assignments"][name] = {{"level", static_cast<int>(assignment.level)},
                                {"why", assignment.why}};
  }
  return out;
}

Result<void> TablesFromJson(const json& in, Tables& tables) {
  try {
    const json& settings = in.at("settings");
    tables.settings.unknown_command = LevelOf(settings.at(0));
    tables.settings.unknown_tool = LevelOf(settings.at(1));
    tables.settings.substitution_minimum = LevelOf(settings.at(2));
    tables.settings.unparsed_minimum = LevelOf(settings.at(3));
    tables.settings.too_deep = LevelOf(settings.at(4));
    tables.settings.sensitive_minimum = LevelOf(settings.at(5));
    const json& paths = in.at("paths");
    paths.at("sensitive").get_to(tables.sensitive);
    paths.at("not_sensitive").get_to(tables.not_sensitive);
    paths.at("config").get_to(tables.config);
    paths.at("system").get_to(tables.system);
    paths.at("scratch").get_to(tables.scratch);
    for (const json& item : in.at("tools")) {
      ToolEntry tool;
      tool.name = item.at("name").get<std::string>();
      tool.level = LevelOf(item.at("level"));
      Get(item, "why", tool.why);
      Get(item, "reads", tool.reads);
      Get(item, "writes", tool.writes);
      Get(item, "command", tool.command);
      if (const auto found = item.find("outside_project"); found != item.end()) {
        tool.outside_project = LevelOf(*found);
      }
      tables.tools.push_back(std::move(tool));
    }
    for (const auto& [name, item] : in.at("assignments").items()) {
      tables.assignments[name] = {LevelOf(item.at("level")), item.value("why", "")};
    }
  } catch (const json::exception& error) {
    return Fail(std::string("compiled classifier tables: ") + error.what());
  }
  return {};
}

}  // namespace togmal::policy
