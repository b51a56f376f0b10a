#pragma once
/// A list of path globs from config/classifier.yaml's `paths:` (sensitive,
/// system, runs_later, …) and the question every path check asks of it: does
/// some pattern match this path?
///
/// A pattern without '/' matches the file name; one with '/' matches the
/// whole path, or, when not anchored at / or ~, also its tail (`.git/hooks/*`
/// matches `x/.git/hooks/pre-commit`).
///
/// Each path a command names is checked against several lists, each spelling
/// of it once (as written, where it leads), so one `rm -rf` checks thousands
/// of pattern/path pairs. The patterns are therefore taken apart once, the
/// first time the list is asked: their literal heads and tails, which rule out
/// nearly every pair with a string compare before any glob runs.

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/util/raw_list.h"

namespace togmal::policy {

class PathList {
 public:
  PathList();
  // Implicit: lists are assigned from YAML.
  PathList(std::vector<std::string> patterns);  // NOLINT(google-explicit-constructor)
  /// The built-in list in the compiled tables' constant data, not copied.
  explicit PathList(util::RawStrings compiled);

  /// The patterns, in order (for the build-time compiler and tests).
  std::vector<std::string> Patterns() const;
  bool empty() const { return (!owned_ || owned_->empty()) && compiled_.size == 0; }

  /// Adds `more` after the patterns already in the list.
  void Append(const std::vector<std::string>& more);

  /// Whether some pattern matches `normalized_path` (see the file comment).
  bool Matches(std::string_view normalized_path) const;

  /// Whether some pattern can match a path that the shell pattern
  /// `normalized_glob` expands to (`~/.ss[h]/id_*`, `/etc/shado?`).
  bool MayMatch(std::string_view normalized_glob) const;

 private:
  struct Index;
  const Index& Indexed() const;

  // The patterns: the owned ones (from YAML), or else the compiled ones;
  // neither, and no index, for an empty list.
  std::shared_ptr<const std::vector<std::string>> owned_;
  util::RawStrings compiled_;
  // Built on first use; shared by copies (the patterns never change after
  // construction: Append makes a new one). Thread-safe through its once_flag.
  std::shared_ptr<Index> index_;
};

}  // namespace togmal::policy
