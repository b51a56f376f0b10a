#pragma once
/// Hot reload for `togmal serve`: watches a rule file with inotify and calls
/// back after it changed (written, replaced by rename, created or deleted).
/// The folder is watched rather than the file, so editors that save by
/// writing a new file and renaming it over the old one are seen too.

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>

#include "togmal/util/result.h"

namespace togmal::rules {

class RulesWatcher {
 public:
  /// Starts watching `file` (its folder is created if missing, so a user
  /// file created later is seen). `on_change` runs on the watcher's thread,
  /// once per burst of events (`settle` after the last one).
  static Result<std::unique_ptr<RulesWatcher>> Start(
      const std::filesystem::path& file, std::function<void()> on_change,
      std::chrono::milliseconds settle = std::chrono::milliseconds(100));

  /// Stops the thread.
  ~RulesWatcher();
  RulesWatcher(const RulesWatcher&) = delete;
  RulesWatcher& operator=(const RulesWatcher&) = delete;

 private:
  RulesWatcher() = default;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace togmal::rules
