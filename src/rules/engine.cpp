#include "togmal/rules/engine.h"

namespace togmal::rules {
namespace {

using json = nlohmann::json;

// Any pattern matches `text`.
Result<bool> AnyPatternMatches(const std::vector<Pattern>& patterns, std::string_view text,
                               const Rule& rule, const Condition& condition) {
  for (const Pattern& pattern : patterns) {
    if (pattern.glob) {
      if (pattern.glob->Matches(text)) return true;
      continue;
    }
    auto found = pattern.regex->Search(text);
    if (!found) {
      return Fail(rule.file + ":" + std::to_string(condition.line) + ": rule " + rule.id + ": " +
                  found.error());
    }
    if (*found) return true;
  }
  return false;
}

// The strings at a dotted path in the tool input. Arrays on the way are
// searched element by element, so `edits.new_string` reaches every edit of a
// MultiEdit call. Numbers and booleans are matched as their JSON text.
void CollectValues(const json& node, std::string_view path, std::vector<std::string>& out) {
  if (node.is_array()) {
    for (const json& element : node) CollectValues(element, path, out);
    return;
  }
  if (path.empty()) {
    if (node.is_string()) {
      out.push_back(node.get<std::string>());
    } else if (node.is_number() || node.is_boolean()) {
      out.push_back(node.dump());
    }
    return;
  }
  if (!node.is_object()) return;
  std::size_t dot = path.find('.');
  std::string head(path.substr(0, dot));
  std::string_view rest = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  auto it = node.find(head);
  if (it != node.end()) CollectValues(*it, rest, out);
}

bool Compare(policy::Level actual, Comparison comparison, policy::Level wanted) {
  switch (comparison) {
    case Comparison::kLess:
      return actual < wanted;
    case Comparison::kLessEqual:
      return actual <= wanted;
    case Comparison::kEqual:
      return actual == wanted;
    case Comparison::kGreaterEqual:
      return actual >= wanted;
    case Comparison::kGreater:
      return actual > wanted;
  }
  return false;
}

}  // namespace

const std::vector<std::string>& Facts::Segments() const {
  if (!segment_source) return executed_segments;
  if (!loaded_segments_) loaded_segments_ = segment_source();
  return *loaded_segments_;
}

bool LayerFilter::Includes(Layer layer) const {
  switch (layer) {
    case Layer::kBuiltin:
      return builtin;
    case Layer::kUser:
      return user;
    case Layer::kProject:
      return project;
    case Layer::kSystem:
      return system;
  }
  return false;
}

Result<bool> ConditionMatches(const Condition& condition, const Facts& facts, const Rule& rule) {
  using Kind = Condition::Kind;
  switch (condition.kind) {
    case Kind::kAll:
      for (const Condition& child : condition.children) {
        auto matched = ConditionMatches(child, facts, rule);
        if (!matched || !*matched) return matched;
      }
      return true;
    case Kind::kAny:
      for (const Condition& child : condition.children) {
        auto matched = ConditionMatches(child, facts, rule);
        if (!matched || *matched) return matched;
      }
      return false;
    case Kind::kNot: {
      auto matched = ConditionMatches(condition.children.at(0), facts, rule);
      if (!matched) return matched;
      return !*matched;
    }
    case Kind::kToolName:
      return AnyPatternMatches(condition.patterns, facts.call.tool_name, rule, condition);
    case Kind::kCwd:
      return AnyPatternMatches(condition.patterns, facts.call.cwd, rule, condition);
    case Kind::kAgentId:
      return AnyPatternMatches(condition.patterns, facts.call.agent_id, rule, condition);
    case Kind::kAgentType:
      return AnyPatternMatches(condition.patterns, facts.call.agent_type, rule, condition);
    case Kind::kLevel:
      return Compare(facts.level, condition.comparison, condition.level);
    case Kind::kParameter: {
      std::vector<std::string> values;
      CollectValues(facts.call.tool_input, condition.key, values);
      for (const std::string& value : values) {
        auto matched = AnyPatternMatches(condition.patterns, value, rule, condition);
        if (!matched || *matched) return matched;
      }
      return false;
    }
    case Kind::kCommand:
      for (const std::string& segment : facts.Segments()) {
        auto matched = AnyPatternMatches(condition.patterns, segment, rule, condition);
        if (!matched || *matched) return matched;
      }
      return false;
  }
  return false;
}

Result<const Rule*> FirstMatch(const RuleSet& set, const Facts& facts, LayerFilter layers) {
  for (const Rule& rule : set.rules) {
    if (!rule.enabled || !layers.Includes(rule.layer)) continue;
    auto matched = ConditionMatches(rule.conditions, facts, rule);
    if (!matched) return Fail(matched.error());
    if (*matched) return &rule;
  }
  return static_cast<const Rule*>(nullptr);
}

}  // namespace togmal::rules
