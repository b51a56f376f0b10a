#pragma once
// The classifier's tables in memory (parsed from config/classifier.yaml by
// tables.cpp) and the small matchers they use. Internal to togmal_policy.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "togmal/policy/classifier.h"
#include "togmal/policy/level.h"

namespace togmal::policy {

/// A condition on a command's words; the first matching rule of an entry decides.
struct ArgRule {
  Level level = Level::kL2;
  std::string why;
  std::vector<std::string> any_flag;
  std::vector<std::vector<std::string>> all_flags;
  std::vector<std::string> none_flag;
  std::vector<std::string> any_arg;
  std::vector<std::string> all_args;
  std::vector<std::string> any_word;
  std::optional<bool> no_args;
};

/// A check on code handed to an interpreter or SQL client (lower-cased text).
struct TextRule {
  Level level = Level::kL2;
  std::string why;
  std::vector<std::string> contains;
  std::vector<std::string> unless;
};

enum class Runs { kNothing, kWrapper, kShell, kInterpreter, kEval, kFind, kSql, kCommandString };

/// One command or subcommand entry.
struct CommandNode {
  std::string name;  ///< as written in the table (may be a glob for subcommands)
  Level level = Level::kL2;
  std::string why;
  std::vector<std::string> options_with_value;
  std::vector<CommandNode> subcommands;
  std::vector<ArgRule> rules;
  Runs runs = Runs::kNothing;
  std::vector<std::string> code_options;
  std::vector<TextRule> code_rules;
  std::vector<std::string> query_options;
  std::string default_command;
  int skip_positionals = 0;
  bool data_args = false;
  bool writes_args = false;
  bool writes_last_arg = false;
};

struct ToolEntry {
  std::string name;  ///< may be a glob (mcp__*)
  Level level = Level::kL2;
  std::optional<Level> outside_project;
  std::string why;
  std::vector<std::string> reads;
  std::vector<std::string> writes;
  std::string command;
};

struct AssignmentEntry {
  Level level = Level::kL1;
  std::string why;
};

struct Settings {
  Level unknown_command = Level::kL2;
  Level unknown_tool = Level::kL2;
  Level substitution_minimum = Level::kL2;
  Level unparsed_minimum = Level::kL2;
  Level too_deep = Level::kL3;
  Level sensitive_minimum = Level::kL2;
};

struct Tables {
  Settings settings;
  std::vector<std::string> sensitive, not_sensitive, config, system, scratch;
  std::unordered_map<std::string, std::shared_ptr<const CommandNode>> commands;
  std::vector<ToolEntry> tools;
  std::unordered_map<std::string, AssignmentEntry> assignments;
};

/// Parses `yaml` into `tables`, replacing entries of the same name.
Result<void> ParseTables(std::string_view yaml, std::string_view source, Tables& tables);

/// The tables as JSON, for compiling config/classifier.yaml at build time:
/// parsing that at run time is ~50x faster than parsing the YAML.
nlohmann::json TablesToJson(const Tables& tables);

/// Reads what TablesToJson wrote.
Result<void> TablesFromJson(const nlohmann::json& json, Tables& tables);

/// The built-in tables as compiled at build time (compiled_tables.cpp).
extern const std::string_view kCompiledTables;

/// Glob match: `*` and `?` stay within one path component, `**` crosses
/// components, `\x` is a literal x.
bool GlobMatch(std::string_view pattern, std::string_view text);

/// Path-list match: a pattern without '/' matches the file name; one with
/// '/' matches the whole path, or its tail when not anchored at / or ~.
bool PathListMatches(const std::vector<std::string>& patterns, std::string_view normalized_path);

/// Lexically normalises a path word for matching: `$HOME`/`${HOME}`/the home
/// directory → `~`, duplicate and trailing slashes and `./` removed.
std::string NormalizePath(std::string_view path);

}  // namespace togmal::policy
