#pragma once
/// The rules of a long-running process (`togmal serve`): the built-in and user
/// layers loaded once and replaced atomically by Reload(), the project layer
/// read per call from the call's cwd and cached while its file is unchanged.
/// Thread-safe: readers get a shared_ptr to an immutable RuleSet that stays
/// valid however often the rules are reloaded meanwhile.

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "togmal/rules/rule.h"
#include "togmal/rules/rule_loader.h"
#include "togmal/util/result.h"

namespace togmal::rules {

class ActiveRules {
 public:
  /// `user_file`: std::nullopt = UserRulesPath(). Call Reload() before use.
  explicit ActiveRules(std::optional<std::filesystem::path> user_file = std::nullopt);

  /// Re-reads the built-in and user layers, compiling every regex. On error
  /// the rules in use stay as they were and the error names file:line; if no
  /// load ever succeeded, ForCwd() keeps failing with that error (callers
  /// fail safe instead of silently dropping the user's rules).
  Result<void> Reload();

  /// The built-in and user rules.
  std::shared_ptr<const RuleSet> Base() const;

  /// The rules for a call in `cwd`: Base() plus the project file found from
  /// `cwd` upward. An unparsable project file is an error (callers fail safe).
  Result<std::shared_ptr<const RuleSet>> ForCwd(const std::filesystem::path& cwd);

  /// The user rule file (watched for hot reload; it may not exist yet).
  const std::filesystem::path& user_file() const { return user_file_; }

  /// The rules as YAML-like JSON for `config://rules`: every rule with its
  /// layer and file:line, the files, and the warnings.
  static nlohmann::json Describe(const RuleSet& set);

 private:
  struct ProjectEntry {
    std::filesystem::file_time_type mtime;
    std::uintmax_t size = 0;
    std::uint64_t generation = 0;
    std::shared_ptr<const RuleSet> rules;
  };

  std::filesystem::path user_file_;
  mutable std::mutex mutex_;
  std::vector<RuleFile> base_files_;
  std::shared_ptr<const RuleSet> base_;
  std::uint64_t generation_ = 0;
  std::string load_error_ = "the rules were not loaded yet";
  std::map<std::filesystem::path, ProjectEntry> projects_;
};

}  // namespace togmal::rules
