// The compiled built-in rules (constant data written by togmal_compile_rules)
// turned into Rules, once per process that loads the rule layers.

#include "rules_raw.h"

#include <memory>

namespace togmal::rules {
namespace {

Pattern PatternFromRaw(const RawPattern& raw) {
  Pattern pattern;
  if (raw.regex != nullptr) {
    pattern.regex = std::make_shared<LazyRegex>(raw.regex);
  } else {
    pattern.glob.emplace(raw.glob, raw.case_insensitive);
  }
  return pattern;
}

Condition ConditionFromRaw(const RawCondition& raw) {
  Condition condition;
  condition.kind = raw.kind;
  condition.line = raw.line;
  condition.key = raw.key;
  condition.patterns.reserve(raw.patterns.size);
  for (const RawPattern& pattern : raw.patterns) {
    condition.patterns.push_back(PatternFromRaw(pattern));
  }
  condition.comparison = raw.comparison;
  condition.level = static_cast<policy::Level>(raw.level);
  condition.children.reserve(raw.children.size);
  for (const RawCondition& child : raw.children) {
    condition.children.push_back(ConditionFromRaw(child));
  }
  return condition;
}

}  // namespace

std::vector<Rule> RulesFromRaw(util::RawList<RawRule> raw, const std::string& file, Layer layer) {
  std::vector<Rule> rules;
  rules.reserve(raw.size);
  for (const RawRule& item : raw) {
    Rule& rule = rules.emplace_back();
    rule.id = item.id;
    rule.priority = item.priority;
    rule.enabled = item.enabled;
    rule.conditions = ConditionFromRaw(item.conditions);
    rule.action = item.action;
    rule.reason = item.reason;
    rule.sampling_guidance = item.sampling_guidance;
    rule.layer = layer;
    rule.file = file;
    rule.line = item.line;
    rule.order = item.order;
  }
  return rules;
}

}  // namespace togmal::rules
