#pragma once
// Rule files ↔ JSON: the build compiles config/rules.yaml once
// (compile_rules.cpp), so a hook process reads the built-in rules from JSON
// instead of running yaml-cpp over them (most of its rule-loading time).
// Internal to togmal_rules.

#include <nlohmann/json.hpp>

#include "togmal/rules/rule_loader.h"

namespace togmal::rules {

/// The rules of `file` as JSON (its name and layer are the caller's).
nlohmann::json RulesToJson(const std::vector<Rule>& rules);

/// Reads what RulesToJson wrote; regexes stay uncompiled until first use.
/// Throws nlohmann::json::exception on a malformed document.
std::vector<Rule> RulesFromJson(const nlohmann::json& json, const std::string& file, Layer layer);

/// config/rules.yaml as compiled at build time (compiled_rules.cpp).
extern const std::string_view kCompiledBuiltinRules;

}  // namespace togmal::rules
