#include "togmal/rules/active_rules.h"

namespace togmal::rules {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Bounds the cache of a server that sees calls from many repositories.
constexpr std::size_t kMaxCachedProjects = 64;

json DescribeCondition(const Condition& condition) {
  using Kind = Condition::Kind;
  auto patterns = [&condition] {
    json list = json::array();
    for (const Pattern& pattern : condition.patterns) list.push_back(pattern.Describe());
    return list;
  };
  switch (condition.kind) {
    case Kind::kAll: {
      // Shown as written: one map of condition keys, unless two keys collide.
      json merged = json::object();
      for (const Condition& child : condition.children) {
        json described = DescribeCondition(child);
        for (auto& [key, value] : described.items()) {
          if (!merged.contains(key)) {
            merged[key] = value;
          } else if (key == "parameters" && merged[key].is_object() && value.is_object()) {
            merged[key].update(value);
          } else {
            json children = json::array();
            for (const Condition& c : condition.children) children.push_back(DescribeCondition(c));
            return {{"all", std::move(children)}};
          }
        }
      }
      return merged;
    }
    case Kind::kAny:
    case Kind::kNot: {
      json children = json::array();
      for (const Condition& child : condition.children)
        children.push_back(DescribeCondition(child));
      if (condition.kind == Kind::kNot) return {{"not", children.at(0)}};
      return {{"any", std::move(children)}};
    }
    case Kind::kToolName:
      return {{"tool_name", patterns()}};
    case Kind::kParameter:
      return {{"parameters", {{condition.key, patterns()}}}};
    case Kind::kCommand:
      return {{"command", patterns()}};
    case Kind::kCwd:
      return {{"cwd", patterns()}};
    case Kind::kAgentId:
      return {{"agent_id", patterns()}};
    case Kind::kAgentType:
      return {{"agent_type", patterns()}};
    case Kind::kLevel: {
      static constexpr const char* kOps[] = {"<", "<=", "==", ">=", ">"};
      return {{"level", std::string(kOps[static_cast<int>(condition.comparison)]) + " " +
                            LevelName(condition.level)}};
    }
  }
  return json::object();
}

}  // namespace

ActiveRules::ActiveRules(std::optional<fs::path> user_file)
    : user_file_(user_file.value_or(UserRulesPath())), base_(std::make_shared<const RuleSet>()) {}

Result<void> ActiveRules::Reload() {
  auto failed = [this](const std::string& message) -> Result<void> {
    std::lock_guard lock(mutex_);
    if (!load_error_.empty()) load_error_ = message;  // never loaded: keep failing safe
    return Fail(message);
  };
  std::vector<RuleFile> files;
  auto builtin = BuiltinRuleFile(/*compile_regexes=*/true);
  if (!builtin) return failed(builtin.error());
  files.push_back(std::move(*builtin));
  std::error_code error;
  if (fs::exists(user_file_, error)) {
    auto user = ReadRuleFile(user_file_, Layer::kUser, /*compile_regexes=*/true);
    if (!user) return failed(user.error());
    files.push_back(std::move(*user));
  }
  auto combined = std::make_shared<const RuleSet>(CombineRuleFiles(files));
  std::lock_guard lock(mutex_);
  base_files_ = std::move(files);
  base_ = std::move(combined);
  ++generation_;
  projects_.clear();
  load_error_.clear();
  return {};
}

std::shared_ptr<const RuleSet> ActiveRules::Base() const {
  std::lock_guard lock(mutex_);
  return base_;
}

Result<std::shared_ptr<const RuleSet>> ActiveRules::ForCwd(const fs::path& cwd) {
  {
    std::lock_guard lock(mutex_);
    if (!load_error_.empty()) return Fail(load_error_);
  }
  auto project = FindProjectRules(cwd);
  if (!project) return Base();
  std::error_code error;
  auto mtime = fs::last_write_time(*project, error);
  auto size = fs::file_size(*project, error);
  {
    std::lock_guard lock(mutex_);
    auto cached = projects_.find(*project);
    if (cached != projects_.end() && cached->second.mtime == mtime && cached->second.size == size &&
        cached->second.generation == generation_) {
      return cached->second.rules;
    }
  }
  auto file = ReadRuleFile(*project, Layer::kProject, /*compile_regexes=*/true);
  if (!file) return Fail(file.error());
  std::lock_guard lock(mutex_);
  std::vector<RuleFile> files = base_files_;
  files.push_back(std::move(*file));
  auto combined = std::make_shared<const RuleSet>(CombineRuleFiles(std::move(files)));
  if (projects_.size() >= kMaxCachedProjects) projects_.clear();
  projects_[*project] = ProjectEntry{mtime, size, generation_, combined};
  return std::shared_ptr<const RuleSet>(combined);
}

json ActiveRules::Describe(const RuleSet& set) {
  json rules = json::array();
  for (const Rule& rule : set.rules) {
    json entry = {{"id", rule.id},
                  {"priority", rule.priority},
                  {"enabled", rule.enabled},
                  {"action", ActionName(rule.action)},
                  {"layer", LayerName(rule.layer)},
                  {"source", rule.Where()},
                  {"conditions", DescribeCondition(rule.conditions)}};
    if (!rule.reason.empty()) entry["reason"] = rule.reason;
    if (!rule.sampling_guidance.empty()) entry["sampling_guidance"] = rule.sampling_guidance;
    rules.push_back(std::move(entry));
  }
  return {{"rules", std::move(rules)}, {"files", set.files}, {"warnings", set.warnings}};
}

}  // namespace togmal::rules
