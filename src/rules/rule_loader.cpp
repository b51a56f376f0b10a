#include "togmal/rules/rule_loader.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "togmal/util/config_file.h"
#include "togmal/util/paths.h"
#include "togmal/util/system_paths.h"
#include "togmal/util/yaml.h"

namespace togmal::rules {
namespace {

namespace fs = std::filesystem;

int LineOf(const YAML::Node& node) { return node.Mark().line + 1; }

// Parsing state for one file; errors are thrown as ParseError and turned into
// a Result at the file boundary, so the recursive descent stays readable.
struct ParseError {
  std::string message;
};

class FileParser {
 public:
  FileParser(const std::string& file, bool compile) : file_(file), compile_(compile) {}

  [[noreturn]] void Throw(const YAML::Node& node, const std::string& message) const {
    throw ParseError{file_ + ":" + std::to_string(LineOf(node)) + ": " + message};
  }

  std::string Scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) Throw(node, what + " must be a string");
    return node.Scalar();
  }

  Pattern ParsePattern(const YAML::Node& node, const std::string& what, bool regex_default,
                       bool case_insensitive) const {
    std::string text;
    bool is_regex = regex_default;
    if (node.IsScalar()) {
      text = node.Scalar();
    } else if (node.IsMap() && node.size() == 1) {
      auto entry = *node.begin();
      std::string kind = Scalar(entry.first, what);
      if (kind == "regex") {
        is_regex = true;
      } else if (kind == "glob") {
        is_regex = false;
      } else {
        Throw(node, what + ": expected a string, {glob: …} or {regex: …}, got {" + kind + ": …}");
      }
      text = Scalar(entry.second, what);
    } else {
      Throw(node, what + ": expected a string, {glob: …} or {regex: …}");
    }
    Pattern pattern;
    if (is_regex) {
      if (case_insensitive && text.rfind("(?i)", 0) != 0) text = "(?i)" + text;
      pattern.regex = std::make_shared<LazyRegex>(text);
      if (compile_) {
        if (auto compiled = pattern.regex->Compile(); !compiled) {
          Throw(node, what + ": " + compiled.error());
        }
      }
    } else {
      pattern.glob.emplace(text, case_insensitive);
    }
    return pattern;
  }

  // A pattern or a list of them.
  std::vector<Pattern> ParsePatterns(const YAML::Node& node, const std::string& what,
                                     bool regex_default, bool case_insensitive = false) const {
    std::vector<Pattern> patterns;
    if (node.IsSequence()) {
      if (node.size() == 0) Throw(node, what + ": an empty list matches nothing");
      for (const YAML::Node& item : node) {
        patterns.push_back(ParsePattern(item, what, regex_default, case_insensitive));
      }
    } else {
      patterns.push_back(ParsePattern(node, what, regex_default, case_insensitive));
    }
    return patterns;
  }

  Condition ParseLevel(const YAML::Node& node) const {
    std::string text = Scalar(node, "level");
    std::string compact;
    for (char c : text) {
      if (c != ' ') compact.push_back(c);
    }
    Condition condition;
    condition.kind = Condition::Kind::kLevel;
    condition.line = LineOf(node);
    struct Operator {
      std::string_view text;
      Comparison comparison;
    };
    static constexpr Operator kOperators[] = {
        {">=", Comparison::kGreaterEqual}, {"<=", Comparison::kLessEqual},
        {"==", Comparison::kEqual},        {">", Comparison::kGreater},
        {"<", Comparison::kLess},          {"=", Comparison::kEqual},
    };
    std::string_view rest = compact;
    condition.comparison = Comparison::kEqual;
    for (const Operator& op : kOperators) {
      if (rest.substr(0, op.text.size()) == op.text) {
        condition.comparison = op.comparison;
        rest.remove_prefix(op.text.size());
        break;
      }
    }
    auto level = policy::ParseLevel(rest);
    if (!level)
      Throw(node,
            "level: expected L0..L3 with an optional >=, >, <=, < or ==, got \"" + text + "\"");
    condition.level = *level;
    return condition;
  }

  Condition ParseConditions(const YAML::Node& node) const {
    if (!node.IsMap()) Throw(node, "conditions must be a map of condition: value");
    Condition all;
    all.kind = Condition::Kind::kAll;
    all.line = LineOf(node);
    for (const auto& entry : node) {
      std::string key = Scalar(entry.first, "condition name");
      const YAML::Node& value = entry.second;
      Condition condition;
      condition.line = LineOf(entry.first);
      using Kind = Condition::Kind;
      if (key == "tool_name") {
        condition.kind = Kind::kToolName;
        condition.patterns = ParsePatterns(value, "tool_name", false, /*case_insensitive=*/true);
      } else if (key == "cwd" || key == "agent_id" || key == "agent_type") {
        condition.kind = key == "cwd"        ? Kind::kCwd
                         : key == "agent_id" ? Kind::kAgentId
                                             : Kind::kAgentType;
        condition.patterns = ParsePatterns(value, key, false);
      } else if (key == "command") {
        condition.kind = Kind::kCommand;
        condition.patterns = ParsePatterns(value, "command", /*regex_default=*/true);
      } else if (key == "level") {
        condition = ParseLevel(value);
      } else if (key == "parameters") {
        if (!value.IsMap() || value.size() == 0) {
          Throw(value, "parameters must be a map of tool_input key: pattern");
        }
        // Several parameters must all match.
        condition.kind = Kind::kAll;
        for (const auto& parameter : value) {
          Condition one;
          one.kind = Kind::kParameter;
          one.key = Scalar(parameter.first, "parameter name");
          one.line = LineOf(parameter.first);
          one.patterns = ParsePatterns(parameter.second, "parameters." + one.key, false);
          condition.children.push_back(std::move(one));
        }
      } else if (key == "all" || key == "any") {
        condition.kind = key == "all" ? Kind::kAll : Kind::kAny;
        if (!value.IsSequence() || value.size() == 0) {
          Throw(value, key + " must be a non-empty list of condition maps");
        }
        for (const YAML::Node& item : value) condition.children.push_back(ParseConditions(item));
      } else if (key == "not") {
        condition.kind = Kind::kNot;
        condition.children.push_back(ParseConditions(value));
      } else {
        Throw(entry.first, "unknown condition \"" + key +
                               "\" (expected tool_name, parameters, command, cwd, agent_id, "
                               "agent_type, level, all, any or not)");
      }
      all.children.push_back(std::move(condition));
    }
    // Cheap conditions first: a regex is compiled only if they all matched.
    std::stable_sort(all.children.begin(), all.children.end(),
                     [](const Condition& a, const Condition& b) { return a.Cost() < b.Cost(); });
    return all;
  }

  Rule ParseRule(const YAML::Node& node, std::size_t order) const {
    if (!node.IsMap()) Throw(node, "each rule must be a map with id, conditions and action");
    Rule rule;
    rule.file = file_;
    rule.order = order;
    rule.line = LineOf(node);
    static const std::set<std::string> kKeys = {
        "id",     "priority", "enabled",           "conditions",
        "action", "reason",   "sampling_guidance", "description"};
    for (const auto& entry : node) {
      std::string key = Scalar(entry.first, "rule key");
      if (!kKeys.count(key)) {
        Throw(entry.first, "unknown rule key \"" + key +
                               "\" (expected id, priority, enabled, conditions, action, reason, "
                               "sampling_guidance)");
      }
    }
    if (!node["id"]) Throw(node, "rule without an id");
    rule.id = Scalar(node["id"], "id");
    if (rule.id.empty()) Throw(node["id"], "id must not be empty");
    rule.line = LineOf(node["id"]);
    std::string where = "rule " + rule.id + ": ";
    try {
      if (node["priority"]) rule.priority = node["priority"].as<int>();
      if (node["enabled"]) rule.enabled = node["enabled"].as<bool>();
    } catch (const YAML::Exception&) {
      Throw(node["priority"] ? node["priority"] : node["enabled"],
            where + "priority must be an integer and enabled true or false");
    }
    if (!rule.enabled && !node["action"]) return rule;  // switches off a lower layer's rule
    if (!node["action"]) Throw(node, where + "no action (ALLOW, PASS, ASK, DENY or SAMPLE)");
    std::string action = Scalar(node["action"], "action");
    auto parsed = ParseAction(action);
    if (!parsed) {
      Throw(node["action"],
            where + "action must be ALLOW, PASS, ASK, DENY or SAMPLE, got \"" + action + "\"");
    }
    rule.action = *parsed;
    if (!node["conditions"]) {
      Throw(node, where + "no conditions (write `conditions: {}` to match every tool call)");
    }
    const YAML::Node& conditions = node["conditions"];
    if (conditions.IsNull()) {
      rule.conditions = Condition();
    } else {
      rule.conditions = ParseConditions(conditions);
    }
    if (node["reason"]) rule.reason = Scalar(node["reason"], "reason");
    if (node["sampling_guidance"]) {
      rule.sampling_guidance = Scalar(node["sampling_guidance"], "sampling_guidance");
    }
    return rule;
  }

 private:
  const std::string& file_;
  bool compile_;
};

int LayerRank(Layer layer) {
  // At equal priority the higher layer goes first.
  switch (layer) {
    case Layer::kSystem:
      return 0;
    case Layer::kProject:
      return 1;
    case Layer::kUser:
      return 2;
    case Layer::kBuiltin:
      return 3;
  }
  return 3;
}

}  // namespace

Result<RuleFile> ParseRuleFile(std::string_view text, const std::string& file, Layer layer,
                               bool compile_regexes) {
  RuleFile result{file, layer, {}};
  try {
    auto parsed = util::ParseYaml(text, file);
    if (!parsed) return Fail(parsed.error());
    const YAML::Node& root = *parsed;
    if (!root || root.IsNull()) return result;  // an empty file has no rules
    FileParser parser(file, compile_regexes);
    if (!root.IsMap()) parser.Throw(root, "a rule file is a map with a `rules:` list");
    for (const auto& entry : root) {
      std::string key = parser.Scalar(entry.first, "top-level key");
      if (key != "rules" && key != "version") {
        parser.Throw(entry.first, "unknown top-level key \"" + key + "\" (expected rules)");
      }
    }
    YAML::Node rules = root["rules"];
    if (!rules || rules.IsNull()) return result;
    if (!rules.IsSequence()) parser.Throw(rules, "`rules` must be a list");
    std::map<std::string, int> seen;
    for (const YAML::Node& node : rules) {
      Rule rule = parser.ParseRule(node, result.rules.size());
      rule.layer = layer;
      if (auto [it, inserted] = seen.emplace(rule.id, rule.line); !inserted) {
        parser.Throw(node, "duplicate rule id " + rule.id + " (first at line " +
                               std::to_string(it->second) + ")");
      }
      result.rules.push_back(std::move(rule));
    }
  } catch (const ParseError& e) {
    return Fail(e.message);
  } catch (const YAML::Exception& e) {
    return Fail(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return result;
}

Result<RuleFile> ReadRuleFile(const fs::path& path, Layer layer, bool compile_regexes) {
  auto text = util::ReadConfigFile(path);
  if (!text) return Fail(text.error());
  if (!*text) return Fail(path.string() + ": no such file");
  return ParseRuleFile(**text, path.string(), layer, compile_regexes);
}

fs::path UserRulesPath() { return util::UserConfigFile("rules.yaml"); }

fs::path SystemRulesPath() { return util::SystemConfigFile("rules.yaml"); }

Result<std::optional<RuleFile>> ReadSystemRuleFile(const fs::path& path) {
  auto text = util::ReadSystemConfigFile(path);
  if (!text) return Fail(text.error());
  if (!*text) return std::optional<RuleFile>();
  auto parsed = ParseRuleFile(**text, path.string(), Layer::kSystem, /*compile_regexes=*/true);
  if (!parsed) return Fail(parsed.error());
  return std::optional<RuleFile>(std::move(*parsed));
}

std::vector<fs::path> FindProjectRuleFiles(const fs::path& cwd) {
  std::vector<fs::path> found;
  if (cwd.empty()) return found;
  std::error_code error;
  fs::path start = cwd.is_absolute() ? cwd : fs::absolute(cwd, error);
  if (error) return found;
  // Walked as text: `serve` looks once per call, and splitting paths into
  // fs::path components cost more than the two lstat calls per folder.
  std::string dir = start.lexically_normal().string();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  struct stat info {};
  for (int depth = 0; depth < 256; ++depth) {
    const std::string base = dir == "/" ? dir : dir + "/";
    // Anything there counts (a FIFO too, a dangling link): ReadRuleFile says
    // why it is not usable, and the call records that the file was left out.
    std::string candidate = base + ".togmal/rules.yaml";
    if (::lstat(candidate.c_str(), &info) == 0) found.emplace_back(std::move(candidate));
    if (::stat((base + ".git").c_str(), &info) == 0) break;  // the repository root
    const std::size_t slash = dir.rfind('/');
    if (dir == "/" || slash == std::string::npos) break;
    dir.resize(slash == 0 ? 1 : slash);
  }
  std::reverse(found.begin(), found.end());
  return found;
}

RuleSet CombineRuleFiles(std::vector<RuleFile> files) {
  RuleSet set;
  // id → index in set.rules of the rule that currently holds the id.
  std::map<std::string, std::size_t> by_id;
  for (RuleFile& file : files) {
    set.files.push_back(file.file);
    for (Rule& rule : file.rules) {
      auto existing = by_id.find(rule.id);
      if (existing != by_id.end() && file.layer != Layer::kSystem &&
          set.rules[existing->second].layer == Layer::kSystem) {
        set.warnings.push_back(
            rule.Where() + ": rule " + rule.id + " ignored: the system rule of the same id (" +
            set.rules[existing->second].Where() + ") cannot be replaced or switched off");
        continue;
      }
      if (file.layer == Layer::kSystem && rule.enabled &&
          (rule.action == Action::kAllow || rule.action == Action::kPass)) {
        set.warnings.push_back(rule.Where() + ": rule " + rule.id +
                               " ignored: a system rule is a ceiling the other layers cannot "
                               "loosen (DENY, ASK, SAMPLE), not " +
                               std::string(ActionName(rule.action)));
        continue;
      }
      if (file.layer == Layer::kProject) {
        if (existing != by_id.end()) {
          set.warnings.push_back(
              rule.Where() + ": rule " + rule.id + " ignored: a project file may not replace the " +
              std::string(LayerName(set.rules[existing->second].layer)) + " rule of the same id (" +
              set.rules[existing->second].Where() + ")");
          continue;
        }
        if (rule.enabled && (rule.action == Action::kAllow || rule.action == Action::kPass)) {
          set.warnings.push_back(rule.Where() + ": rule " + rule.id +
                                 " ignored: a project file may only tighten (DENY, ASK, SAMPLE), "
                                 "not " +
                                 std::string(ActionName(rule.action)));
          continue;
        }
      }
      if (existing != by_id.end()) {
        set.rules[existing->second] = std::move(rule);  // a higher layer replaces the rule
      } else {
        by_id.emplace(rule.id, set.rules.size());
        set.rules.push_back(std::move(rule));
      }
    }
  }
  std::stable_sort(set.rules.begin(), set.rules.end(), [](const Rule& a, const Rule& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.layer != b.layer) return LayerRank(a.layer) < LayerRank(b.layer);
    return a.order < b.order;
  });
  return set;
}

}  // namespace togmal::rules
