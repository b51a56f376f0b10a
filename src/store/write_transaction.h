#pragma once
// A write transaction on the connection's kept statements. Private to the
// store.

namespace togmal::store {

class Database;

/// `BEGIN IMMEDIATE` on construction, `COMMIT` on Commit(), `ROLLBACK` when
/// destroyed uncommitted: SQLite::Transaction's contract, but through
/// statements compiled once per connection (Database::Prepared) instead of
/// sqlite3_exec, which parses its text on every call. `serve` opens one such
/// transaction per group commit, and parsing BEGIN and COMMIT was a sixth of
/// what the commit itself cost. Throws SQLite::Exception, as SQLiteCpp does.
class WriteTransaction {
 public:
  explicit WriteTransaction(Database& database);
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  /// Rolls back unless committed; never throws.
  ~WriteTransaction();

  void Commit();

 private:
  Database& database_;
  bool open_ = true;
};

}  // namespace togmal::store
