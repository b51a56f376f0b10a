#include "togmal/analysis/catalogue.h"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "togmal/util/config_file.h"
#include "togmal/util/embedded.h"
#include "togmal/util/paths.h"
#include "togmal/util/yaml.h"

namespace togmal::analysis {
namespace {

constexpr std::string_view kFileName = "detectors.yaml";

/// Collects the first error with its position; parsing continues only where
/// an error cannot cascade.
class Parser {
 public:
  explicit Parser(std::string_view file) : file_(file) {}

  Error At(const YAML::Node& node, const std::string& message) const {
    return Fail(file_ + ":" + std::to_string(node.Mark().line + 1) + ": " + message);
  }
  int Line(const YAML::Node& node) const { return node.Mark().line + 1; }

  Result<std::string> String(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) return At(node, what + " must be a string");
    return node.Scalar();
  }
  Result<double> Number(const YAML::Node& node, const std::string& what, double min,
                        double max) const {
    double value = 0;
    if (!node.IsScalar() || !YAML::convert<double>::decode(node, value)) {
      return At(node, what + " must be a number");
    }
    if (value < min || value > max) {
      return At(node, what + " must be between " + Format(min) + " and " + Format(max));
    }
    return value;
  }
  Result<bool> Bool(const YAML::Node& node, const std::string& what) const {
    bool value = false;
    if (!node.IsScalar() || !YAML::convert<bool>::decode(node, value)) {
      return At(node, what + " must be true or false");
    }
    return value;
  }
  /// Rejects keys not in `allowed` (typos would otherwise be silently ignored).
  Result<void> OnlyKeys(const YAML::Node& map, std::initializer_list<std::string_view> allowed,
                        const std::string& what) const {
    for (const auto& entry : map) {
      const std::string key = entry.first.Scalar();
      bool known = false;
      for (auto name : allowed) known = known || key == name;
      if (!known) return At(entry.first, "unknown key '" + key + "' in " + what);
    }
    return {};
  }

 private:
  static std::string Format(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
  }
  std::string file_;
};

// Early-return helpers for Result<T> (statements, safe after a bare `if`).
#define TOGMAL_TRY_ASSIGN(lhs, expr)                  \
  do {                                                \
    auto try_result = (expr);                         \
    if (!try_result) return Fail(try_result.error()); \
    lhs = std::move(try_result.value());              \
  } while (0)

#define TOGMAL_TRY(expr)                              \
  do {                                                \
    auto try_result = (expr);                         \
    if (!try_result) return Fail(try_result.error()); \
  } while (0)

/// Flattens a pattern list; nested lists come from YAML aliases (`*sources`).
Result<void> CollectPatterns(const Parser& p, const YAML::Node& node, CheckSpec& check) {
  if (node.IsScalar()) {
    check.patterns.push_back(node.Scalar());
    check.pattern_lines.push_back(p.Line(node));
    return {};
  }
  if (!node.IsSequence()) return p.At(node, "patterns must be a string or a list of strings");
  for (const auto& item : node) TOGMAL_TRY(CollectPatterns(p, item, check));
  return {};
}

Result<SignalSpec> ParseSignal(const Parser& p, const YAML::Node& node) {
  if (!node.IsMap()) return p.At(node, "a signal must be a map with name, pattern and score");
  TOGMAL_TRY(p.OnlyKeys(node,
                        {"name", "pattern", "score", "min_count", "unless", "structural",
                         "case_sensitive", "cancels", "note"},
                        "signal"));
  SignalSpec signal;
  signal.line = p.Line(node);
  if (!node["name"]) return p.At(node, "signal without a name");
  if (!node["pattern"]) return p.At(node, "signal without a pattern");
  if (!node["score"]) return p.At(node, "signal without a score");
  TOGMAL_TRY_ASSIGN(signal.name, p.String(node["name"], "name"));
  TOGMAL_TRY_ASSIGN(signal.pattern, p.String(node["pattern"], "pattern"));
  TOGMAL_TRY_ASSIGN(signal.score, p.Number(node["score"], "score", -1.0, 1.0));
  if (node["min_count"]) {
    double count = 1;
    TOGMAL_TRY_ASSIGN(count, p.Number(node["min_count"], "min_count", 1, 1000));
    signal.min_count = static_cast<int>(count);
  }
  if (node["unless"]) TOGMAL_TRY_ASSIGN(signal.unless_check, p.String(node["unless"], "unless"));
  if (const YAML::Node cancels = node["cancels"]) {
    if (!cancels.IsSequence()) return p.At(cancels, "cancels must be a list of check names");
    for (const auto& item : cancels) {
      std::string name;
      TOGMAL_TRY_ASSIGN(name, p.String(item, "cancels"));
      signal.cancels.push_back(std::move(name));
    }
  }
  if (node["structural"]) {
    TOGMAL_TRY_ASSIGN(signal.structural, p.Bool(node["structural"], "structural"));
  }
  if (node["case_sensitive"]) {
    TOGMAL_TRY_ASSIGN(signal.case_sensitive, p.Bool(node["case_sensitive"], "case_sensitive"));
  }
  signal.pattern_line = p.Line(node["pattern"]);
  return signal;
}

Result<CategorySpec> ParseCategory(const Parser& p, const YAML::Node& key, const YAML::Node& node,
                                   const Catalogue& catalogue) {
  CategorySpec category;
  category.line = p.Line(key);
  category.name = key.Scalar();
  const std::string what = "category '" + category.name + "'";
  if (!node.IsMap()) return p.At(key, what + " must be a map");
  TOGMAL_TRY(p.OnlyKeys(
      node,
      {"description", "weight", "threshold", "context_boost", "interventions", "checks", "signals"},
      what));
  if (node["description"]) {
    TOGMAL_TRY_ASSIGN(category.description, p.String(node["description"], "description"));
  }
  if (!node["weight"]) return p.At(key, what + " has no weight");
  TOGMAL_TRY_ASSIGN(category.weight, p.Number(node["weight"], "weight", 0, 10));
  if (node["threshold"]) {
    TOGMAL_TRY_ASSIGN(category.threshold, p.Number(node["threshold"], "threshold", 0.01, 1));
  }
  if (node["context_boost"]) {
    TOGMAL_TRY_ASSIGN(category.context_boost,
                      p.Number(node["context_boost"], "context_boost", 0, 1));
  }
  if (const YAML::Node list = node["interventions"]) {
    if (!list.IsSequence()) return p.At(list, "interventions must be a list");
    for (const auto& item : list) {
      std::string type;
      TOGMAL_TRY_ASSIGN(type, p.String(item, "intervention"));
      if (!catalogue.FindIntervention(type)) {
        return p.At(item, "unknown intervention '" + type + "' (define it under interventions:)");
      }
      category.interventions.push_back(type);
    }
  }
  std::set<std::string> check_names;
  if (const YAML::Node checks = node["checks"]) {
    if (!checks.IsMap())
      return p.At(checks, "checks must be a map of check name → {factor, patterns}");
    for (const auto& entry : checks) {
      CheckSpec check;
      check.name = entry.first.Scalar();
      check.line = p.Line(entry.first);
      const YAML::Node& body = entry.second;
      if (!body.IsMap()) return p.At(entry.first, "check '" + check.name + "' must be a map");
      TOGMAL_TRY(p.OnlyKeys(body, {"factor", "patterns"}, "check '" + check.name + "'"));
      if (!body["factor"]) return p.At(entry.first, "check '" + check.name + "' has no factor");
      TOGMAL_TRY_ASSIGN(check.factor, p.Number(body["factor"], "factor", 0, 1));
      if (!body["patterns"]) return p.At(entry.first, "check '" + check.name + "' has no patterns");
      TOGMAL_TRY(CollectPatterns(p, body["patterns"], check));
      if (check.patterns.empty()) return p.At(entry.first, "check '" + check.name + "' is empty");
      check_names.insert(check.name);
      category.checks.push_back(std::move(check));
    }
  }
  const YAML::Node signals = node["signals"];
  if (!signals || !signals.IsSequence() || signals.size() == 0) {
    return p.At(key, what + " needs a non-empty list of signals");
  }
  std::set<std::string> signal_names;
  bool any_positive = false;
  for (const auto& item : signals) {
    SignalSpec signal;
    TOGMAL_TRY_ASSIGN(signal, ParseSignal(p, item));
    if (!signal_names.insert(signal.name).second) {
      return p.At(item, "duplicate signal '" + signal.name + "' in " + what);
    }
    if (!signal.unless_check.empty() && !check_names.count(signal.unless_check)) {
      return p.At(item, "signal '" + signal.name + "' refers to unknown check '" +
                            signal.unless_check + "'");
    }
    for (const std::string& cancelled : signal.cancels) {
      if (!check_names.count(cancelled)) {
        return p.At(item, "signal '" + signal.name + "' cancels unknown check '" + cancelled + "'");
      }
    }
    any_positive = any_positive || signal.score > 0;
    category.signals.push_back(std::move(signal));
  }
  if (!any_positive) return p.At(key, what + " has no signal with a positive score");
  return category;
}

Result<Catalogue> ParseDocument(const Parser& p, const YAML::Node& root,
                                std::string_view file_name) {
  if (!root.IsMap()) return p.At(root, "the catalogue must be a map");
  TOGMAL_TRY(p.OnlyKeys(root, {"version", "risk_levels", "interventions", "categories", "shared"},
                        "the catalogue"));
  Catalogue catalogue;
  catalogue.source = std::string(file_name);
  if (root["version"]) {
    TOGMAL_TRY(p.Number(root["version"], "version", 1, 1));
  }
  if (const YAML::Node levels = root["risk_levels"]) {
    if (!levels.IsMap()) return p.At(levels, "risk_levels must be a map");
    TOGMAL_TRY(p.OnlyKeys(levels, {"critical", "high", "moderate"}, "risk_levels"));
    auto& t = catalogue.thresholds;
    if (levels["critical"])
      TOGMAL_TRY_ASSIGN(t.critical, p.Number(levels["critical"], "critical", 0, 100));
    if (levels["high"]) TOGMAL_TRY_ASSIGN(t.high, p.Number(levels["high"], "high", 0, 100));
    if (levels["moderate"])
      TOGMAL_TRY_ASSIGN(t.moderate, p.Number(levels["moderate"], "moderate", 0, 100));
    if (!(t.moderate <= t.high && t.high <= t.critical)) {
      return p.At(levels, "risk_levels must satisfy moderate ≤ high ≤ critical");
    }
  }
  const YAML::Node interventions = root["interventions"];
  if (!interventions || !interventions.IsMap()) {
    return p.At(interventions ? interventions : root,
                "interventions must be a map of type → {reason, suggestion}");
  }
  for (const auto& entry : interventions) {
    InterventionSpec spec;
    spec.type = entry.first.Scalar();
    if (!entry.second.IsMap())
      return p.At(entry.first, "intervention '" + spec.type + "' must be a map");
    TOGMAL_TRY(
        p.OnlyKeys(entry.second, {"reason", "suggestion"}, "intervention '" + spec.type + "'"));
    if (!entry.second["reason"] || !entry.second["suggestion"]) {
      return p.At(entry.first, "intervention '" + spec.type + "' needs reason and suggestion");
    }
    TOGMAL_TRY_ASSIGN(spec.reason, p.String(entry.second["reason"], "reason"));
    TOGMAL_TRY_ASSIGN(spec.suggestion, p.String(entry.second["suggestion"], "suggestion"));
    catalogue.interventions.push_back(std::move(spec));
  }
  const YAML::Node categories = root["categories"];
  if (!categories || !categories.IsMap() || categories.size() == 0) {
    return p.At(categories ? categories : root, "categories must be a non-empty map");
  }
  for (const auto& entry : categories) {
    CategorySpec category;
    TOGMAL_TRY_ASSIGN(category, ParseCategory(p, entry.first, entry.second, catalogue));
    catalogue.categories.push_back(std::move(category));
  }
  return catalogue;
}

}  // namespace

const InterventionSpec* Catalogue::FindIntervention(std::string_view type) const {
  for (const auto& spec : interventions) {
    if (spec.type == type) return &spec;
  }
  return nullptr;
}

Result<Catalogue> ParseCatalogue(std::string_view yaml, std::string_view file_name) {
  Parser parser(file_name);
  auto parsed = util::ParseYaml(yaml, file_name);  // bounded: aliases, depth
  if (!parsed) return Fail(parsed.error());
  try {
    return ParseDocument(parser, *parsed, file_name);
  } catch (const YAML::Exception& e) {
    return Fail(std::string(file_name) + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Result<Catalogue> LoadCatalogue() {
  const std::filesystem::path user = util::UserConfigFile(kFileName);
  auto text = util::ReadConfigFile(user);  // a FIFO or device must not hang us
  if (!text) return Fail(text.error());
  if (*text) return ParseCatalogue(**text, user.string());
  auto embedded = util::FindEmbeddedFile(kFileName);
  if (!embedded) return Fail("detectors.yaml is not embedded in this binary");
  return ParseCatalogue(*embedded, "detectors.yaml (built in)");
}

}  // namespace togmal::analysis
