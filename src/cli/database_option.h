#pragma once
// The --db option shared by every subcommand that uses the database.

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>

namespace togmal::cli {

/// The value of --db, resolved when the action runs.
class DatabaseOption {
 public:
  /// --db > $TOGMAL_DB > util::DataDir()/togmal.db.
  std::filesystem::path Resolve() const;

 private:
  friend DatabaseOption AddDatabaseOption(CLI::App& command);
  std::shared_ptr<std::string> value_ = std::make_shared<std::string>();
};

/// Declares --db on `command`.
DatabaseOption AddDatabaseOption(CLI::App& command);

}  // namespace togmal::cli
