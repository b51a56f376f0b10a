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
                            std::string(policy::LevelName(condition.level))}};
    }
  }
  return json::object();
}

}  // namespace

ActiveRules::ActiveRules(std::optional<fs::path> user_file, std::optional<fs::path> system_file)
    : user_file_(user_file.value_or(UserRulesPath())),
      system_file_(system_file.value_or(SystemRulesPath())),
      base_(std::make_shared<const RuleSet>()) {}

Result<void> ActiveRules::Reload() {
  auto base = ReadBaseLayers({.cwd = {},
                              .user_file = user_file_,
                              .system_file = system_file_,
                              .include_builtin = true,
                              .compile_regexes = true});
  if (!base) return Fail(base.error());
  std::vector<RuleFile>& files = base->files;
  const std::vector<std::string>& errors = base->ignored;
  std::string joined;
  for (const std::string& why : errors) joined += (joined.empty() ? "" : "; ") + why;
  std::lock_guard lock(mutex_);
  if (!errors.empty() && loaded_) {
    // The rules in force stay, and the broken file is named with them until
    // it loads: what it says now is unknown, so nothing is auto-approved.
    RuleSet kept = *base_;
    kept.ignored = errors;
    base_ = std::make_shared<const RuleSet>(std::move(kept));
    ++generation_;
    projects_.clear();
    return Fail(joined);
  }
  RuleSet combined = CombineRuleFiles(files);
  combined.ignored = errors;
  base_files_ = std::move(files);
  base_ = std::make_shared<const RuleSet>(std::move(combined));
  ++generation_;
  projects_.clear();
  if (!errors.empty()) return Fail(joined);
  loaded_ = true;
  return {};
}

std::shared_ptr<const RuleSet> ActiveRules::Base() const {
  std::lock_guard lock(mutex_);
  return base_;
}

std::shared_ptr<const RuleSet> ActiveRules::ForCwd(const fs::path& cwd) {
  std::vector<fs::path> chain = FindProjectRuleFiles(cwd);
  if (chain.empty()) return Base();
  std::vector<FileStamp> stamps;
  std::string key;
  for (const fs::path& path : chain) {
    std::error_code error;
    FileStamp stamp{path, fs::last_write_time(path, error), 0};
    stamp.size = fs::file_size(path, error);
    if (error) stamp.size = 0;
    stamps.push_back(std::move(stamp));
    key += path.string() + "\n";
  }
  {
    std::lock_guard lock(mutex_);
    auto cached = projects_.find(key);
    if (cached != projects_.end() && cached->second.stamps == stamps &&
        cached->second.generation == generation_) {
      return cached->second.rules;
    }
  }
  LayerFiles project = ReadProjectLayers(chain);
  std::lock_guard lock(mutex_);
  std::vector<RuleFile> all = base_files_;
  for (RuleFile& file : project.files) all.push_back(std::move(file));
  RuleSet combined = CombineRuleFiles(std::move(all));
  combined.ignored = base_->ignored;
  for (std::string& error : project.ignored) combined.ignored.push_back(std::move(error));
  auto shared = std::make_shared<const RuleSet>(std::move(combined));
  if (projects_.size() >= kMaxCachedProjects) projects_.clear();
  projects_[key] = ProjectEntry{std::move(stamps), generation_, shared};
  return shared;
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
  return {{"rules", std::move(rules)},
          {"files", set.files},
          {"warnings", set.warnings},
          {"ignored", set.ignored}};
}

}  // namespace togmal::rules
