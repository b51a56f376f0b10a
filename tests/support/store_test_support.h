#pragma once
// Helpers shared by the store tests: a fresh database in a temp folder, raw
// SQL access for tampering, environment overrides.

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <string>

#include "process.h"
#include "scoped_env.h"
#include "togmal/store/database.h"

namespace togmal::store::testing {

/// A database file in its own temp folder, opened read-write.
class TempDatabase {
 public:
  TempDatabase() : path_(dir_.path() + "/data/togmal.db") {}
  const std::string& path() const { return path_; }
  const std::string& dir() const { return dir_.path(); }
  Database Open(OpenOptions options = {}) {
    auto db = Database::Open(path_, options);
    if (!db) ADD_FAILURE() << db.error();
    return std::move(db).value();
  }
  /// A plain SQLiteCpp connection, bypassing togmal (to tamper, inspect).
  SQLite::Database Raw() const {
    SQLite::Database raw(path_, SQLite::OPEN_READWRITE);
    raw.setBusyTimeout(5000);
    return raw;
  }

 private:
  togmal::testing::TempDir dir_;
  std::string path_;
};

}  // namespace togmal::store::testing
