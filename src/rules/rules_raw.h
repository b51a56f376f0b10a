#pragma once
// The built-in rules as constant data. togmal_compile_rules (compile_rules.cpp)
// writes config/rules.yaml as these structs at build time, so a hook process
// neither runs yaml-cpp nor parses any text for them; RulesFromRaw turns them
// into Rules, with regexes left uncompiled until first use. The fields mirror
// rule.h's Condition and Rule. Internal to togmal_rules.

#include <cstddef>
#include <string>
#include <vector>

#include "togmal/rules/rule.h"
#include "togmal/util/raw_list.h"

namespace togmal::rules {

/// A glob (`glob` set) or an RE2 regex (`regex` set).
struct RawPattern {
  const char* glob = nullptr;
  bool case_insensitive = false;
  const char* regex = nullptr;
};

struct RawCondition {
  Condition::Kind kind = Condition::Kind::kAll;
  int line = 0;
  const char* key = "";
  util::RawList<RawPattern> patterns;
  Comparison comparison = Comparison::kEqual;
  int level = 0;
  util::RawList<RawCondition> children;
};

struct RawRule {
  const char* id = "";
  int priority = 50;
  bool enabled = true;
  RawCondition conditions;
  Action action = Action::kAsk;
  const char* reason = "";
  const char* sampling_guidance = "";
  int line = 0;
  std::size_t order = 0;
};

/// The rules of a compiled file, read from `file` into `layer`.
std::vector<Rule> RulesFromRaw(util::RawList<RawRule> raw, const std::string& file, Layer layer);

/// config/rules.yaml as compiled at build time (compiled_rules.cpp).
extern const util::RawList<RawRule> kCompiledBuiltinRules;

}  // namespace togmal::rules
