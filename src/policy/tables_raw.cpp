// The compiled tables (constant data written by togmal_compile_tables) turned
// into the classifier's structs: the header once per process, a command entry
// when a call first names it.

#include <algorithm>

#include "tables.h"
#include "togmal/util/glob.h"

namespace togmal::policy {
namespace {

std::vector<std::string> Strings(RawStrings raw) { return {raw.begin(), raw.end()}; }

ArgRule RuleFromRaw(const RawArgRule& raw) {
  ArgRule rule;
  rule.level = raw.level;
  rule.why = raw.why;
  rule.any_flag = Strings(raw.any_flag);
  for (RawStrings group : raw.all_flags) rule.all_flags.push_back(Strings(group));
  rule.none_flag = Strings(raw.none_flag);
  rule.any_arg = Strings(raw.any_arg);
  rule.all_args = Strings(raw.all_args);
  rule.any_word = Strings(raw.any_word);
  if (raw.no_args >= 0) rule.no_args = raw.no_args != 0;
  rule.min_args = raw.min_args;
  rule.max_args = raw.max_args;
  if (raw.profile >= 0) rule.profile = static_cast<Profile>(raw.profile);
  rule.local_urls = raw.local_urls;
  return rule;
}

}  // namespace

CommandNode NodeFromRaw(const RawCommandNode& raw) {
  CommandNode node;
  node.name = raw.name;
  node.level = raw.level;
  node.why = raw.why;
  node.options_with_value = Strings(raw.options_with_value);
  node.raw = &raw;
  if (raw.subcommands.size > 0) node.lazy = std::make_shared<LazyChildren>(raw.subcommands.size);
  node.rules.reserve(raw.rules.size);
  for (const RawArgRule& rule : raw.rules) node.rules.push_back(RuleFromRaw(rule));
  node.runs = raw.runs;
  node.code_options = Strings(raw.code_options);
  for (const RawTextRule& rule : raw.code_rules) {
    node.code_rules.push_back({rule.level, rule.why, Strings(rule.contains), Strings(rule.unless)});
  }
  node.query_options = Strings(raw.query_options);
  node.default_command = raw.default_command;
  node.input_listers = Strings(raw.input_listers);
  node.skip_positionals = raw.skip_positionals;
  node.in_container = raw.in_container;
  node.data_args = raw.data_args;
  node.writes_args = raw.writes_args;
  node.writes_last_arg = raw.writes_last_arg;
  node.writes_stdin = raw.writes_stdin;
  node.print_only = Strings(raw.print_only);
  node.loads_project = raw.loads_project;
  node.single_dash_long = raw.single_dash_long;
  node.safe_options.assign(raw.safe_options.begin(), raw.safe_options.end());
  IndexSafeOptions(node);
  node.options_end = Strings(raw.options_end);
  node.operand_values = Strings(raw.operand_values);
  node.output_options = Strings(raw.output_options);
  node.key_options = Strings(raw.key_options);
  node.archive_options = Strings(raw.archive_options);
  node.writes_archive = Strings(raw.writes_archive);
  node.old_style_options = raw.old_style_options;
  node.max_operands = raw.max_operands;
  node.writes_operand = raw.writes_operand;
  node.analyser = raw.analyser;
  return node;
}

void TablesFromCompiled(const CompiledTables& compiled, Tables& tables) {
  tables.settings = compiled.settings;
  tables.strict_settings = compiled.strict_settings;
  tables.sensitive = PathList(compiled.sensitive);
  tables.not_sensitive = PathList(compiled.not_sensitive);
  tables.runs_later = PathList(compiled.runs_later);
  tables.system = PathList(compiled.system);
  tables.scratch = PathList(compiled.scratch);
  tables.guard = PathList(compiled.guard);
  tables.audit_database = PathList(compiled.audit_database);
  for (const RawContentJudge& raw : compiled.runs_later_content) {
    tables.runs_later_content.push_back({raw.format, PathList(raw.files), Strings(raw.keys)});
  }
  for (const RawPlantedCode& raw : compiled.planted_code) {
    tables.planted_code.push_back(
        {raw.level, std::string(raw.why), Strings(raw.groups), std::string(raw.pattern)});
  }
  for (const RawToolEntry& raw : compiled.tools) {
    ToolEntry tool;
    tool.name = raw.name;
    tool.level = raw.level;
    if (raw.outside_project >= 0) tool.outside_project = static_cast<Level>(raw.outside_project);
    tool.why = raw.why;
    tool.reads = Strings(raw.reads);
    tool.writes = Strings(raw.writes);
    tool.command = raw.command;
    tool.searches = Strings(raw.searches);
    tool.url = raw.url;
    tool.reference_hosts = Strings(raw.reference_hosts);
    tool.sends = Strings(raw.sends);
    tables.tools.push_back(std::move(tool));
  }
  tables.compiled_assignments = compiled.assignments;
}

const CommandNode* LazyChildren::Get(std::size_t index, const RawCommandNode& raw) {
  std::lock_guard lock(mutex_);
  std::unique_ptr<const CommandNode>& slot = nodes_[index];
  if (!slot) slot = std::make_unique<const CommandNode>(NodeFromRaw(raw));
  return slot.get();
}

bool CommandNode::HasSubcommands() const {
  return !subcommands.empty() || (raw != nullptr && raw->subcommands.size > 0);
}

LazyCommands::LazyCommands(const CompiledTables& compiled)
    : compiled_(compiled), parsed_(compiled.entries.size) {}

const CommandNode* LazyCommands::Find(std::string_view name) const {
  const auto found = std::lower_bound(
      compiled_.names.begin(), compiled_.names.end(), name,
      [](const CompiledCommandName& item, std::string_view key) { return item.name < key; });
  if (found == compiled_.names.end() || found->name != name) return nullptr;
  std::lock_guard lock(mutex_);
  std::unique_ptr<const CommandNode>& slot = parsed_[found->entry];
  if (!slot)
    slot = std::make_unique<const CommandNode>(NodeFromRaw(compiled_.entries.data[found->entry]));
  return slot.get();
}

std::optional<AssignmentEntry> Tables::FindAssignment(std::string_view name) const {
  if (auto found = assignments.find(std::string(name)); found != assignments.end()) {
    return found->second;
  }
  const auto compiled = std::lower_bound(compiled_assignments.begin(), compiled_assignments.end(),
                                         name, [](const RawAssignment& item, std::string_view key) {
                                           return std::string_view(item.name) < key;
                                         });
  if (compiled != compiled_assignments.end() && std::string_view(compiled->name) == name) {
    return AssignmentEntry{compiled->level, compiled->why};
  }
  // Numbered families such as GIT_CONFIG_KEY_0 are globs in the table.
  for (const auto& [pattern, entry] : assignments) {
    if (pattern.find('*') != std::string::npos && util::GlobMatches(pattern, name)) return entry;
  }
  for (const RawAssignment& raw : compiled_assignments) {
    if (std::string_view(raw.name).find('*') != std::string_view::npos &&
        util::GlobMatches(raw.name, name)) {
      return AssignmentEntry{raw.level, raw.why};
    }
  }
  return std::nullopt;
}

const CommandNode* Tables::FindCommand(const std::string& name) const {
  if (const auto found = commands.find(name); found != commands.end()) return found->second.get();
  return compiled_commands ? compiled_commands->Find(name) : nullptr;
}

}  // namespace togmal::policy
