#include "tables.h"

#include <re2/re2.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>

#include "togmal/util/glob.h"
#include "togmal/util/paths.h"
#include "togmal/util/text.h"
#include "togmal/util/yaml.h"

namespace togmal::policy {
namespace {

// A planted_code pattern RE2 accepts (checked when the tables are read; the
// classifier compiles it on the first write it judges).
Result<void> ValidPlantedPattern(const std::string& pattern) {
  if (pattern.size() > 2000) return Fail("`pattern` is longer than 2000 characters");
  RE2::Options options;
  options.set_log_errors(false);
  const RE2 compiled(pattern, options);
  if (!compiled.ok())
    return Fail("`pattern` is not an RE2 regular expression: " + compiled.error());
  return {};
}

/// Errors name the file and line of the node at fault.
class Loader {
 public:
  explicit Loader(std::string_view source) : source_(source) {}

  Error At(const YAML::Node& node, const std::string& message) const {
    const YAML::Mark mark = node.Mark();
    std::string where(source_);
    if (mark.line >= 0) where += ":" + std::to_string(mark.line + 1);
    return Fail(where + ": " + message);
  }

  Result<Level> ParseLevelNode(const YAML::Node& node) const {
    if (!node.IsScalar()) return At(node, "expected a level L0..L3");
    auto level = ParseLevel(node.Scalar());
    if (!level) return At(node, "'" + node.Scalar() + "' is not a level (L0, L1, L2 or L3)");
    return *level;
  }

  Result<std::vector<std::string>> Strings(const YAML::Node& node) const {
    std::vector<std::string> values;
    if (node.IsScalar()) {
      values.push_back(node.Scalar());
      return values;
    }
    if (!node.IsSequence()) return At(node, "expected a list of strings");
    for (const YAML::Node& item : node) {
      if (!item.IsScalar()) return At(item, "expected a string");
      values.push_back(item.Scalar());
    }
    return values;
  }

  Result<void> CheckKeys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                         std::string_view what) const {
    for (const auto& entry : map) {
      const std::string key = entry.first.Scalar();
      bool known = false;
      for (std::string_view name : allowed) known = known || key == name;
      if (!known) return At(entry.first, "unknown key '" + key + "' in " + std::string(what));
    }
    return {};
  }

  Result<ArgRule> ParseRule(const YAML::Node& node) const {
    if (!node.IsMap()) return At(node, "a rule is a map with level, why and conditions");
    if (auto ok =
            CheckKeys(node,
                      {"level", "why", "any_flag", "all_flags", "none_flag", "any_arg", "all_args",
                       "any_word", "no_args", "min_args", "max_args", "profile", "local_urls"},
                      "a rule");
        !ok) {
      return Fail(ok.error());
    }
    ArgRule rule;
    if (!node["level"]) return At(node, "a rule needs a level");
    auto level = ParseLevelNode(node["level"]);
    if (!level) return Fail(level.error());
    rule.level = *level;
    if (node["why"]) rule.why = node["why"].as<std::string>();
    struct ListField {
      const char* key;
      std::vector<std::string>* target;
    };
    for (ListField field :
         {ListField{"any_flag", &rule.any_flag}, ListField{"none_flag", &rule.none_flag},
          ListField{"any_arg", &rule.any_arg}, ListField{"all_args", &rule.all_args},
          ListField{"any_word", &rule.any_word}}) {
      if (!node[field.key]) continue;
      auto values = Strings(node[field.key]);
      if (!values) return Fail(values.error());
      *field.target = std::move(*values);
    }
    if (const YAML::Node groups = node["all_flags"]) {
      if (!groups.IsSequence()) return At(groups, "all_flags is a list of lists of options");
      for (const YAML::Node& group : groups) {
        auto values = Strings(group);
        if (!values) return Fail(values.error());
        rule.all_flags.push_back(std::move(*values));
      }
    }
    if (const YAML::Node no_args = node["no_args"]) rule.no_args = no_args.as<bool>();
    if (const YAML::Node min_args = node["min_args"]) rule.min_args = min_args.as<int>();
    if (const YAML::Node max_args = node["max_args"]) {
      rule.max_args = max_args.as<int>();
      if (rule.max_args < 0) return At(max_args, "max_args is a count of words (0 or more)");
    }
    if (const YAML::Node profile = node["profile"]) {
      auto parsed = ParseProfileNode(profile);
      if (!parsed) return Fail(parsed.error());
      rule.profile = *parsed;
    }
    if (const YAML::Node local = node["local_urls"]) rule.local_urls = local.as<bool>();
    const bool has_condition = rule.local_urls || !rule.any_flag.empty() ||
                               !rule.all_flags.empty() || !rule.none_flag.empty() ||
                               !rule.any_arg.empty() || !rule.all_args.empty() ||
                               !rule.any_word.empty() || rule.no_args.has_value() ||
                               rule.min_args > 0 || rule.max_args >= 0 || rule.profile.has_value();
    if (!has_condition) return At(node, "a rule needs at least one condition");
    return rule;
  }

  Result<TextRule> ParseTextRule(const YAML::Node& node) const {
    if (!node.IsMap()) return At(node, "a code rule is a map with level, why, contains");
    if (auto ok = CheckKeys(node, {"level", "why", "contains", "unless"}, "a code rule"); !ok) {
      return Fail(ok.error());
    }
    TextRule rule;
    auto level = ParseLevelNode(node["level"]);
    if (!level) return Fail(level.error());
    rule.level = *level;
    if (node["why"]) rule.why = node["why"].as<std::string>();
    if (node["contains"]) {
      auto values = Strings(node["contains"]);
      if (!values) return Fail(values.error());
      rule.contains = std::move(*values);
    }
    if (node["unless"]) {
      auto values = Strings(node["unless"]);
      if (!values) return Fail(values.error());
      rule.unless = std::move(*values);
    }
    for (std::string& text : rule.contains) {
      text = util::AsciiLower(text);
    }
    for (std::string& text : rule.unless) {
      text = util::AsciiLower(text);
    }
    return rule;
  }

  /// archive_options and writes_archive come together, as options; a short
  /// archive option takes a value, as it does in a cluster (`-cf ARCHIVE`).
  Result<void> CheckArchiveOptions(const std::string& name, const YAML::Node& node,
                                   const CommandNode& command) const {
    if (command.archive_options.empty() != command.writes_archive.empty()) {
      return At(node, "command '" + name + "': archive_options and writes_archive go together");
    }
    for (auto [key, options] : {std::pair{"archive_options", &command.archive_options},
                                std::pair{"writes_archive", &command.writes_archive}}) {
      for (const std::string& option : *options) {
        if (option.size() < 2 || option.front() != '-') {
          return At(node[key], "command '" + name + "': " + key + " option '" + option +
                                   "' does not start with '-'");
        }
        if (options == &command.archive_options && option.size() == 2 &&
            !util::NameIn(option, command.options_with_value)) {
          return At(node[key], "command '" + name + "': archive option '" + option +
                                   "' takes a value: list it in options_with_value");
        }
      }
    }
    return {};
  }

  Result<CommandNode> ParseCommand(const std::string& name, const YAML::Node& node,
                                   std::vector<std::string>* aliases, int depth) const {
    CommandNode command;
    command.name = name;
    if (depth > 8) return At(node, "subcommands nested too deeply");
    if (node.IsScalar()) {
      auto level = ParseLevelNode(node);
      if (!level) return Fail(level.error());
      command.level = *level;
      return command;
    }
    if (!node.IsMap()) return At(node, "command '" + name + "': expected a level or a map");
    if (auto ok = CheckKeys(node,
                            {"level",
                             "why",
                             "aliases",
                             "options_with_value",
                             "subcommands",
                             "rules",
                             "runs",
                             "code_options",
                             "code_rules",
                             "query_options",
                             "default_command",
                             "input_listers",
                             "skip_positionals",
                             "in_container",
                             "data_args",
                             "writes_args",
                             "writes_last_arg",
                             "writes_stdin",
                             "print_only",
                             "loads_project",
                             "single_dash_long",
                             "safe_options",
                             "options_end",
                             "operand_values",
                             "output_options",
                             "key_options",
                             "archive_options",
                             "writes_archive",
                             "old_style_options",
                             "max_operands",
                             "writes_operand",
                             "analyser"},
                            "command '" + name + "'");
        !ok) {
      return Fail(ok.error());
    }
    if (!node["level"]) return At(node, "command '" + name + "' needs a level");
    auto level = ParseLevelNode(node["level"]);
    if (!level) return Fail(level.error());
    command.level = *level;
    if (node["why"]) command.why = node["why"].as<std::string>();
    if (node["aliases"]) {
      if (aliases == nullptr) return At(node["aliases"], "aliases are allowed on commands only");
      auto values = Strings(node["aliases"]);
      if (!values) return Fail(values.error());
      *aliases = std::move(*values);
    }
    for (auto [key, target] : {std::pair{"options_with_value", &command.options_with_value},
                               std::pair{"code_options", &command.code_options},
                               std::pair{"query_options", &command.query_options},
                               std::pair{"input_listers", &command.input_listers},
                               std::pair{"print_only", &command.print_only},
                               std::pair{"options_end", &command.options_end},
                               std::pair{"operand_values", &command.operand_values},
                               std::pair{"output_options", &command.output_options},
                               std::pair{"key_options", &command.key_options},
                               std::pair{"archive_options", &command.archive_options},
                               std::pair{"writes_archive", &command.writes_archive}}) {
      if (!node[key]) continue;
      auto values = Strings(node[key]);
      if (!values) return Fail(values.error());
      *target = std::move(*values);
    }
    if (const YAML::Node safe = node["safe_options"]) {
      // `--format=` (a trailing `=`) takes a value: it joins options_with_value.
      auto values = Strings(safe);
      if (!values) return Fail(values.error());
      auto owned = std::make_shared<std::vector<std::string>>();
      for (std::string& option : *values) {
        if (option.size() > 2 && option.back() == '=') {
          option.pop_back();
          if (!util::NameIn(option, command.options_with_value))
            command.options_with_value.push_back(option);
        }
        if (option.size() < 2 || option.front() != '-') {
          return At(safe,
                    "command '" + name + "': safe option '" + option + "' does not start with '-'");
        }
        owned->push_back(std::move(option));
      }
      command.safe_options.assign(owned->begin(), owned->end());
      command.owned_options = std::move(owned);
      IndexSafeOptions(command);
    }
    if (const YAML::Node rules = node["rules"]) {
      if (!rules.IsSequence()) return At(rules, "rules is a list");
      for (const YAML::Node& item : rules) {
        auto rule = ParseRule(item);
        if (!rule) return Fail(rule.error());
        command.rules.push_back(std::move(*rule));
      }
    }
    if (const YAML::Node rules = node["code_rules"]) {
      if (!rules.IsSequence()) return At(rules, "code_rules is a list");
      for (const YAML::Node& item : rules) {
        auto rule = ParseTextRule(item);
        if (!rule) return Fail(rule.error());
        command.code_rules.push_back(std::move(*rule));
      }
    }
    if (const YAML::Node runs = node["runs"]) {
      static constexpr std::pair<std::string_view, Runs> kRuns[] = {
          {"wrapper", Runs::kWrapper},
          {"shell", Runs::kShell},
          {"interpreter", Runs::kInterpreter},
          {"eval", Runs::kEval},
          {"find", Runs::kFind},
          {"sql", Runs::kSql},
          {"command_string", Runs::kCommandString},
          {"windows_shell", Runs::kWindowsShell}};
      bool found = false;
      for (auto [text, value] : kRuns) {
        if (runs.Scalar() == text) {
          command.runs = value;
          found = true;
        }
      }
      if (!found) {
        return At(runs,
                  "runs must be one of wrapper, shell, interpreter, eval, find, sql, "
                  "command_string, windows_shell");
      }
    }
    if (node["default_command"])
      command.default_command = node["default_command"].as<std::string>();
    if (node["skip_positionals"]) command.skip_positionals = node["skip_positionals"].as<int>();
    if (const YAML::Node in_container = node["in_container"]) {
      command.in_container = in_container.as<bool>();
      if (command.in_container && command.runs != Runs::kWrapper) {
        return At(in_container,
                  "command '" + name + "': in_container is for a wrapper (runs: wrapper)");
      }
    }
    if (node["data_args"]) command.data_args = node["data_args"].as<bool>();
    if (node["writes_args"]) command.writes_args = node["writes_args"].as<bool>();
    if (node["writes_last_arg"]) command.writes_last_arg = node["writes_last_arg"].as<bool>();
    if (node["writes_stdin"]) command.writes_stdin = node["writes_stdin"].as<bool>();
    if (node["loads_project"]) command.loads_project = node["loads_project"].as<bool>();
    if (node["single_dash_long"]) command.single_dash_long = node["single_dash_long"].as<bool>();
    if (node["old_style_options"]) {
      command.old_style_options = node["old_style_options"].as<bool>();
    }
    if (auto ok = CheckArchiveOptions(name, node, command); !ok) return Fail(ok.error());
    if (node["max_operands"]) command.max_operands = node["max_operands"].as<int>();
    if (node["writes_operand"]) command.writes_operand = node["writes_operand"].as<int>();
    if (const YAML::Node analyser = node["analyser"]) {
      command.analyser = analyser.as<std::string>();
      bool known = false;
      for (std::string_view text : {"sed", "awk", "shell_bodies", "package_script", "git"})
        known = known || command.analyser == text;
      if (!known) {
        return At(analyser, "analyser must be one of sed, awk, shell_bodies, package_script, git");
      }
    }
    if (const YAML::Node subcommands = node["subcommands"]) {
      if (!subcommands.IsMap()) return At(subcommands, "subcommands is a map name → entry");
      for (const auto& entry : subcommands) {
        auto child = ParseCommand(entry.first.Scalar(), entry.second, nullptr, depth + 1);
        if (!child) return Fail(child.error());
        command.subcommands.push_back(std::move(*child));
      }
    }
    return command;
  }

  Result<Profile> ParseProfileNode(const YAML::Node& node) const {
    const std::string name = node.IsScalar() ? node.Scalar() : "";
    if (name == "standard") return Profile::kStandard;
    if (name == "strict") return Profile::kStrict;
    return At(node, "a profile is standard or strict");
  }

  Result<void> ApplySettings(const YAML::Node& settings, Settings& target) const {
    for (const auto& entry : settings) {
      const std::string key = entry.first.Scalar();
      Level* field = key == "unknown_command"        ? &target.unknown_command
                     : key == "unknown_tool"         ? &target.unknown_tool
                     : key == "substitution_minimum" ? &target.substitution_minimum
                     : key == "unparsed_minimum"     ? &target.unparsed_minimum
                     : key == "too_deep"             ? &target.too_deep
                     : key == "sensitive_minimum"    ? &target.sensitive_minimum
                     : key == "secrets_output"       ? &target.secrets_output
                                                     : nullptr;
      if (field == nullptr) return At(entry.first, "unknown setting '" + key + "'");
      auto level = ParseLevelNode(entry.second);
      if (!level) return Fail(level.error());
      *field = *level;
    }
    return {};
  }

  Result<void> Load(const YAML::Node& root, Tables& tables) const {
    if (!root.IsMap()) return At(root, "expected a map at the top level");
    if (auto ok = CheckKeys(root,
                            {"version", "settings", "profiles", "paths", "tools", "assignments",
                             "commands", "planted_code"},
                            "the top level");
        !ok) {
      return ok;
    }
    if (const YAML::Node version = root["version"]; version && version.as<int>() != 1) {
      return At(version, "unsupported version (this togmal reads version 1)");
    }
    if (const YAML::Node settings = root["settings"]) {
      if (!settings.IsMap()) return At(settings, "settings is a map");
      // Settings apply under every profile; `profiles:` below may differ.
      for (Settings* target : {&tables.settings, &tables.strict_settings}) {
        if (auto ok = ApplySettings(settings, *target); !ok) return ok;
      }
    }
    if (const YAML::Node profiles = root["profiles"]) {
      if (!profiles.IsMap()) return At(profiles, "profiles is a map of profile name to settings");
      for (const auto& entry : profiles) {
        auto profile = ParseProfileNode(entry.first);
        if (!profile) return Fail(profile.error());
        if (auto ok = CheckKeys(entry.second, {"settings"}, "a profile"); !ok) return ok;
        const YAML::Node settings = entry.second["settings"];
        if (!settings) continue;
        if (!settings.IsMap()) return At(settings, "a profile's settings is a map");
        Settings& target = *profile == Profile::kStrict ? tables.strict_settings : tables.settings;
        if (auto ok = ApplySettings(settings, target); !ok) return ok;
      }
    }
    if (const YAML::Node paths = root["paths"]) {
      if (!paths.IsMap()) return At(paths, "paths is a map");
      for (const auto& entry : paths) {
        const std::string key = entry.first.Scalar();
        if (key == "runs_later_content") {
          auto judges = ContentJudges(entry.second);
          if (!judges) return Fail(judges.error());
          tables.runs_later_content = std::move(*judges);
          continue;
        }
        // `config` and `build_files` are the two lists that became
        // runs_later: in an older user file they add to it (never replace it).
        const bool old_name = key == "config" || key == "build_files";
        PathList* target = key == "sensitive"        ? &tables.sensitive
                           : key == "not_sensitive"  ? &tables.not_sensitive
                           : key == "runs_later"     ? &tables.runs_later
                           : old_name                ? &tables.runs_later
                           : key == "system"         ? &tables.system
                           : key == "scratch"        ? &tables.scratch
                           : key == "guard"          ? &tables.guard
                           : key == "audit_database" ? &tables.audit_database
                                                     : nullptr;
        if (target == nullptr) return At(entry.first, "unknown path list '" + key + "'");
        auto values = Strings(entry.second);
        if (!values) return Fail(values.error());
        if (target != &tables.scratch) {
          for (std::string& pattern : *values) {
            pattern = util::AsciiLower(pattern);
          }
        }
        if (old_name) {
          target->Append(*values);
        } else {
          *target = std::move(*values);
        }
      }
    }
    if (const YAML::Node planted = root["planted_code"]) {
      auto shapes = PlantedShapes(planted);
      if (!shapes) return Fail(shapes.error());
      tables.planted_code = std::move(*shapes);
    }
    if (const YAML::Node tools = root["tools"]) {
      if (!tools.IsMap()) return At(tools, "tools is a map name → entry");
      std::vector<ToolEntry> loaded;
      for (const auto& entry : tools) {
        auto tool = ParseTool(entry.first.Scalar(), entry.second);
        if (!tool) return Fail(tool.error());
        std::erase_if(loaded, [&](const ToolEntry& t) { return t.name == tool->name; });
        loaded.push_back(std::move(*tool));
      }
      // An entry replaces the earlier layers' entry of its name and the
      // narrower ones its pattern covers: a user's `mcp__github__*` decides
      // for the built-in mcp__github__get_* too.
      for (ToolEntry& tool : loaded) {
        std::erase_if(tables.tools, [&](const ToolEntry& t) {
          return t.name == tool.name || util::GlobMatches(tool.name, t.name);
        });
      }
      for (ToolEntry& tool : loaded) tables.tools.push_back(std::move(tool));
    }
    if (const YAML::Node assignments = root["assignments"]) {
      if (!assignments.IsMap()) return At(assignments, "assignments is a map name → entry");
      for (const auto& entry : assignments) {
        AssignmentEntry assignment;
        const YAML::Node& value = entry.second;
        const YAML::Node& level_node = value.IsMap() ? value["level"] : value;
        auto level = ParseLevelNode(level_node);
        if (!level) return Fail(level.error());
        assignment.level = *level;
        if (value.IsMap() && value["why"]) assignment.why = value["why"].as<std::string>();
        tables.assignments[entry.first.Scalar()] = std::move(assignment);
      }
    }
    if (const YAML::Node commands = root["commands"]) {
      if (!commands.IsMap()) return At(commands, "commands is a map name → entry");
      for (const auto& entry : commands) {
        std::vector<std::string> aliases;
        const std::string name = entry.first.Scalar();
        auto command = ParseCommand(name, entry.second, &aliases, 0);
        if (!command) return Fail(command.error());
        auto shared = std::make_shared<const CommandNode>(std::move(*command));
        tables.commands[name] = shared;
        for (const std::string& alias : aliases) tables.commands[alias] = shared;
      }
    }
    return {};
  }

  /// `planted_code`: a list of {level, why, all: [[alternative, …], …],
  /// pattern: RE2} (`all`, `pattern` or both).
  Result<std::vector<PlantedCode>> PlantedShapes(const YAML::Node& node) const {
    if (!node.IsSequence()) return At(node, "planted_code is a list of {level, why, all}");
    std::vector<PlantedCode> shapes;
    for (const YAML::Node& item : node) {
      if (!item.IsMap()) return At(item, "a planted_code entry is a map {level, why, all}");
      if (auto ok = CheckKeys(item, {"level", "why", "all", "pattern"}, "planted_code"); !ok) {
        return Fail(ok.error());
      }
      PlantedCode shape;
      auto level = ParseLevelNode(item["level"]);
      if (!level) return Fail(level.error());
      shape.level = *level;
      if (item["why"]) shape.why = item["why"].as<std::string>();
      if (const YAML::Node pattern = item["pattern"]) {
        if (!pattern.IsScalar() || pattern.Scalar().empty()) {
          return At(pattern, "planted_code: `pattern` is one RE2 regular expression");
        }
        if (auto valid = ValidPlantedPattern(pattern.Scalar()); !valid) {
          return At(pattern, "planted_code: " + valid.error());
        }
        shape.pattern = pattern.Scalar();
      }
      const YAML::Node all = item["all"];
      if (!all && !shape.pattern.empty()) {
        shapes.push_back(std::move(shape));
        continue;
      }
      if (!all || !all.IsSequence() || all.size() == 0) {
        return At(item, "planted_code: `all` is a list of groups of alternatives");
      }
      for (const YAML::Node& group : all) {
        auto alternatives = Strings(group);
        if (!alternatives || alternatives->empty()) {
          return At(group, "planted_code: a group is a list of text alternatives");
        }
        std::string joined;
        for (std::string& value : *alternatives) {
          value = util::AsciiLower(value);
          if (value.find(PlantedCode::kSeparator) != std::string::npos) {
            return At(group, "planted_code: an alternative holds a control character");
          }
          if (!joined.empty()) joined += PlantedCode::kSeparator;
          joined += value;
        }
        shape.groups.push_back(std::move(joined));
      }
      shapes.push_back(std::move(shape));
    }
    return shapes;
  }

  /// `runs_later_content`: a list of {format: json|code|keys|commands, files: […], keys: […]}.
  Result<std::vector<ContentJudge>> ContentJudges(const YAML::Node& node) const {
    if (!node.IsSequence()) return At(node, "runs_later_content is a list of judges");
    std::vector<ContentJudge> judges;
    for (const YAML::Node& item : node) {
      if (!item.IsMap()) return At(item, "a judge is a map {format, files, keys}");
      if (auto ok = CheckKeys(item, {"format", "files", "keys"}, "runs_later_content"); !ok) {
        return Fail(ok.error());
      }
      ContentJudge judge;
      const std::string format = item["format"] ? item["format"].as<std::string>() : "";
      if (format == "json") {
        judge.format = ContentFormat::kJson;
      } else if (format == "code") {
        judge.format = ContentFormat::kCode;
      } else if (format == "keys") {
        judge.format = ContentFormat::kKeys;
      } else if (format == "commands") {
        judge.format = ContentFormat::kCommands;
      } else if (format == "directives") {
        judge.format = ContentFormat::kDirectives;
      } else {
        return At(item, "format is json, code, keys, commands or directives");
      }
      std::vector<std::string> files;
      for (auto [key, target] : {std::pair{"files", &files}, std::pair{"keys", &judge.keys}}) {
        if (!item[key]) {
          if (std::string_view(key) == "keys" && format == "commands") continue;
          return At(item, std::string("a judge needs ") + key);
        }
        auto values = Strings(item[key]);
        if (!values) return Fail(values.error());
        for (std::string& value : *values) {
          value = util::AsciiLower(value);
        }
        *target = std::move(*values);
      }
      judge.files = std::move(files);
      judges.push_back(std::move(judge));
    }
    return judges;
  }

  Result<ToolEntry> ParseTool(const std::string& name, const YAML::Node& node) const {
    ToolEntry tool;
    tool.name = name;
    if (node.IsScalar()) {
      auto level = ParseLevelNode(node);
      if (!level) return Fail(level.error());
      tool.level = *level;
      return tool;
    }
    if (!node.IsMap()) return At(node, "tool '" + name + "': expected a level or a map");
    if (auto ok = CheckKeys(node,
                            {"level", "why", "outside_project", "reads", "writes", "command",
                             "searches", "url", "reference_hosts", "sends"},
                            "tool '" + name + "'");
        !ok) {
      return Fail(ok.error());
    }
    auto level = ParseLevelNode(node["level"]);
    if (!level) return Fail(level.error());
    tool.level = *level;
    if (node["why"]) tool.why = node["why"].as<std::string>();
    if (node["outside_project"]) {
      auto outside = ParseLevelNode(node["outside_project"]);
      if (!outside) return Fail(outside.error());
      tool.outside_project = *outside;
    }
    for (auto [key, target] :
         {std::pair{"reads", &tool.reads}, std::pair{"writes", &tool.writes},
          std::pair{"searches", &tool.searches},
          std::pair{"reference_hosts", &tool.reference_hosts}, std::pair{"sends", &tool.sends}}) {
      if (!node[key]) continue;
      auto values = Strings(node[key]);
      if (!values) return Fail(values.error());
      *target = std::move(*values);
    }
    if (node["command"]) tool.command = node["command"].as<std::string>();
    if (node["url"]) tool.url = node["url"].as<std::string>();
    return tool;
  }

 private:
  std::string_view source_;
};

}  // namespace

Result<void> ParseTables(std::string_view yaml, std::string_view source, Tables& tables) {
  // Bounded (aliases, depth), with room for the tables themselves: the
  // built-in file is about 200,000 nodes with its aliases expanded, and a
  // person's override may be a copy of it.
  constexpr util::YamlLimits kLimits{.max_nodes = 1'000'000};
  auto parsed = util::ParseYaml(yaml, source, kLimits);
  if (!parsed) return Fail(parsed.error());
  const YAML::Node& root = *parsed;
  try {
    return Loader(source).Load(root, tables);
  } catch (const YAML::Exception& error) {
    std::string where(source);
    if (error.mark.line >= 0) where += ":" + std::to_string(error.mark.line + 1);
    return Fail(where + ": " + error.msg);
  }
}

void IndexSafeOptions(CommandNode& node) {
  node.safe_sorted.clear();
  node.safe_globs.clear();
  for (const std::string_view option : node.safe_options) {
    (option.find_first_of("*?[") == std::string_view::npos ? node.safe_sorted : node.safe_globs)
        .push_back(option);
  }
  std::sort(node.safe_sorted.begin(), node.safe_sorted.end());
}

std::string NormalizePath(std::string_view path) {
  std::string text(path);
  for (std::string_view home_var : {"${HOME}", "$HOME"}) {
    if (text.rfind(home_var, 0) == 0) text = "~" + text.substr(home_var.size());
  }
  if (const std::string_view home_dir = util::Home(); home_dir.size() > 1) {
    if (text.rfind(home_dir, 0) == 0 &&
        (text.size() == home_dir.size() || text[home_dir.size()] == '/')) {
      text = "~" + text.substr(home_dir.size());
    }
  }
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '/' && !out.empty() && out.back() == '/') continue;
    out.push_back(c);
  }
  while (out.size() >= 2 && out.compare(0, 2, "./") == 0 && out.size() > 2) out.erase(0, 2);
  while (out.size() >= 2 && out.compare(out.size() - 2, 2, "/.") == 0) out.erase(out.size() - 1);
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

std::string FoldPath(std::string_view normalized_path) {
  // Windows also separates names with `\` (`.claude\settings.json`).
  std::string lower;
  lower.reserve(normalized_path.size());
  for (char c : normalized_path) {
    c = c == '\\' ? '/' : util::AsciiLower(c);
    if (c == '/' && !lower.empty() && lower.back() == '/') continue;
    lower.push_back(c);
  }
  if (lower.ends_with("::$data")) lower.resize(lower.size() - 7);
  if (const std::string_view home = util::Home(); home.size() > 1) {
    std::string home_dir(home);
    home_dir = util::AsciiLower(home_dir);
    while (home_dir.size() > 1 && home_dir.back() == '/') home_dir.pop_back();
    if (lower.rfind(home_dir, 0) == 0 &&
        (lower.size() == home_dir.size() || lower[home_dir.size()] == '/')) {
      lower = "~" + lower.substr(home_dir.size());
    }
  }
  // Windows opens `settings.json.` and `.claude ./x` as `settings.json` and
  // `.claude/x`; `.` and `..` keep their meaning.
  std::string out;
  out.reserve(lower.size());
  std::size_t begin = 0;
  while (begin <= lower.size()) {
    const std::size_t end = std::min(lower.find('/', begin), lower.size());
    std::string_view name = std::string_view(lower).substr(begin, end - begin);
    if (name.find_first_not_of('.') != std::string_view::npos) {
      while (!name.empty() && (name.back() == '.' || name.back() == ' ')) name.remove_suffix(1);
    }
    out += name;
    if (end == lower.size()) break;
    out.push_back('/');
    begin = end + 1;
  }
  return out;
}

}  // namespace togmal::policy
