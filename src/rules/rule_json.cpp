#include "rule_json.h"

namespace togmal::rules {
namespace {

using json = nlohmann::json;

json PatternToJson(const Pattern& pattern) {
  if (pattern.regex) return {{"regex", pattern.regex->pattern()}};
  return {{"glob", pattern.glob->pattern()}, {"ci", pattern.glob->case_insensitive()}};
}

Pattern PatternFromJson(const json& in) {
  Pattern pattern;
  if (const auto regex = in.find("regex"); regex != in.end()) {
    pattern.regex = std::make_shared<LazyRegex>(regex->get<std::string>());
  } else {
    pattern.glob.emplace(in.at("glob").get<std::string>(), in.at("ci").get<bool>());
  }
  return pattern;
}

json ConditionToJson(const Condition& condition) {
  json out = {{"kind", static_cast<int>(condition.kind)}, {"line", condition.line}};
  if (!condition.children.empty()) {
    out["children"] = json::array();
    for (const Condition& child : condition.children) {
      out["children"].push_back(ConditionToJson(child));
    }
  }
  if (!condition.key.empty()) out["key"] = condition.key;
  if (!condition.patterns.empty()) {
    out["patterns"] = json::array();
    for (const Pattern& pattern : condition.patterns) out["patterns"].push_back(PatternToJson(pattern));
  }
  if (condition.kind == Condition::Kind::kLevel) {
    out["comparison"] = static_cast<int>(condition.comparison);
    out["level"] = condition.level;
  }
  return out;
}

Condition ConditionFromJson(const json& in) {
  Condition condition;
  condition.kind = static_cast<Condition::Kind>(in.at("kind").get<int>());
  condition.line = in.at("line").get<int>();
  if (const auto children = in.find("children"); children != in.end()) {
    for (const json& child : *children) condition.children.push_back(ConditionFromJson(child));
  }
  condition.key = in.value("key", "");
  if (const auto patterns = in.find("patterns"); patterns != in.end()) {
    for (const json& pattern : *patterns) condition.patterns.push_back(PatternFromJson(pattern));
  }
  if (condition.kind == Condition::Kind::kLevel) {
    condition.comparison = static_cast<Comparison>(in.at("comparison").get<int>());
    condition.level = in.at("level").get<int>();
  }
  return condition;
}

}  // namespace

json RulesToJson(const std::vector<Rule>& rules) {
  json out = json::array();
  for (const Rule& rule : rules) {
    out.push_back({{"id", rule.id},
                   {"priority", rule.priority},
                   {"enabled", rule.enabled},
                   {"conditions", ConditionToJson(rule.conditions)},
                   {"action", static_cast<int>(rule.action)},
                   {"reason", rule.reason},
                   {"sampling_guidance", rule.sampling_guidance},
                   {"line", rule.line},
                   {"order", rule.order}});
  }
  return out;
}

std::vector<Rule> RulesFromJson(const json& in, const std::string& file, Layer layer) {
  std::vector<Rule> rules;
  for (const json& item : in) {
    Rule rule;
    rule.id = item.at("id").get<std::string>();
    rule.priority = item.at("priority").get<int>();
    rule.enabled = item.at("enabled").get<bool>();
    rule.conditions = ConditionFromJson(item.at("conditions"));
    rule.action = static_cast<Action>(item.at("action").get<int>());
    rule.reason = item.at("reason").get<std::string>();
    rule.sampling_guidance = item.at("sampling_guidance").get<std::string>();
    rule.line = item.at("line").get<int>();
    rule.order = item.at("order").get<std::size_t>();
    rule.layer = layer;
    rule.file = file;
    rules.push_back(std::move(rule));
  }
  return rules;
}

}  // namespace togmal::rules
