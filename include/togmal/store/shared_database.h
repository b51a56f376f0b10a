#pragma once
/// One database connection for a long-running process (`togmal serve`):
/// opened on first use, so a server that is only probed never touches the
/// file, and used by one thread at a time, because a SQLite connection's
/// transactions must not interleave.

#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "togmal/store/database.h"
#include "togmal/util/result.h"

namespace togmal::store {

class SharedDatabase {
 public:
  explicit SharedDatabase(std::filesystem::path path, OpenOptions options = {})
      : path_(std::move(path)), options_(options) {}
  /// For tests: an already open database (e.g. Database::OpenInMemory()).
  explicit SharedDatabase(Database database)
      : path_(database.path()), database_(std::move(database)) {}

  /// Runs once, under the lock, right after the database is first opened
  /// (e.g. to apply audit retention without slowing the process's start).
  void OnFirstOpen(std::function<void(Database&)> hook) {
    std::lock_guard lock(mutex_);
    on_first_open_ = std::move(hook);
  }

  /// Runs `work(Database&)` under the lock and returns what it returns (a
  /// Result<T>). If the database cannot be opened, returns that error without
  /// calling `work`; the next call tries again.
  template <typename Work>
  auto With(Work&& work) -> std::invoke_result_t<Work, Database&> {
    std::lock_guard lock(mutex_);
    if (!database_) {
      auto opened = Database::Open(path_, options_);
      if (!opened) return Fail(opened.error());
      database_.emplace(std::move(opened).value());
      if (on_first_open_) on_first_open_(*database_);
    }
    return std::forward<Work>(work)(*database_);
  }

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  OpenOptions options_;
  std::mutex mutex_;
  std::optional<Database> database_;
  std::function<void(Database&)> on_first_open_;
};

}  // namespace togmal::store
