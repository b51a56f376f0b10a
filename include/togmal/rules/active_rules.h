#pragma once
/// The rules of a long-running process (`togmal serve`): the built-in, system
/// and user layers loaded once and replaced atomically by Reload(), the project layer
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
  /// `user_file`: std::nullopt = UserRulesPath(); `system_file`: std::nullopt
  /// = SystemRulesPath() (another path only in the layering's tests). Call
  /// Reload() before use.
  explicit ActiveRules(std::optional<std::filesystem::path> user_file = std::nullopt,
                       std::optional<std::filesystem::path> system_file = std::nullopt);

  /// Re-reads the built-in, system and user layers, compiling every regex.
  /// If the user or system file cannot be loaded the error names file:line
  /// and the rules in use stay as they were (before any successful load: the
  /// built-in rules and whichever layer did load), with the file named in
  /// RuleSet::ignored until it loads, so that nothing is auto-approved
  /// meanwhile.
  Result<void> Reload();

  /// The built-in and user rules.
  std::shared_ptr<const RuleSet> Base() const;

  /// The rules for a call in `cwd`: Base() plus every project file from `cwd`
  /// up to the repository root (FindProjectRuleFiles). A project file that
  /// cannot be loaded is left out and named in RuleSet::ignored (so calls in
  /// that project are not auto-approved).
  std::shared_ptr<const RuleSet> ForCwd(const std::filesystem::path& cwd);

  /// The user rule file (watched for hot reload; it may not exist yet).
  const std::filesystem::path& user_file() const { return user_file_; }

  /// The rules as YAML-like JSON for `config://rules`: every rule with its
  /// layer and file:line, the files, and the warnings.
  static nlohmann::json Describe(const RuleSet& set);

 private:
  /// One project file as last seen on disk.
  struct FileStamp {
    std::filesystem::path path;
    std::filesystem::file_time_type mtime;
    std::uintmax_t size = 0;
    bool operator==(const FileStamp&) const = default;
  };
  /// The combined rules for one chain of project files.
  struct ProjectEntry {
    std::vector<FileStamp> stamps;
    std::uint64_t generation = 0;
    std::shared_ptr<const RuleSet> rules;
  };

  std::filesystem::path user_file_;
  std::filesystem::path system_file_;
  mutable std::mutex mutex_;
  std::vector<RuleFile> base_files_;
  std::shared_ptr<const RuleSet> base_;
  std::uint64_t generation_ = 0;
  bool loaded_ = false;  ///< a Reload() succeeded
  /// Keyed by the chain's paths joined with newlines.
  std::map<std::string, ProjectEntry> projects_;
};

}  // namespace togmal::rules
