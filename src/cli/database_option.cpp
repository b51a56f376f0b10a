#include "database_option.h"

#include "togmal/store/database.h"

namespace togmal::cli {

std::filesystem::path DatabaseOption::Resolve() const {
  if (!value_->empty()) return *value_;
  return store::DefaultDatabasePath();
}

DatabaseOption AddDatabaseOption(CLI::App& command) {
  DatabaseOption option;
  command.add_option("--db", *option.value_,
                     "SQLite database (default: $TOGMAL_DB, else "
                     "$XDG_DATA_HOME/togmal/togmal.db)");
  return option;
}

}  // namespace togmal::cli
