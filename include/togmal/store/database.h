#pragma once
/// togmal's one SQLite database: where it lives, how it is opened, and the
/// schema version it carries. The hook opens it once per tool call, so opening
/// a database whose schema is current does no work beyond reading
/// `PRAGMA user_version`.

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "togmal/util/result.h"

namespace SQLite {
class Database;
class Statement;
}  // namespace SQLite

namespace togmal::store {

/// The schema version this build writes (`PRAGMA user_version`).
inline constexpr int kSchemaVersion = 7;

/// How to open the database.
struct OpenOptions {
  /// Open without write access (read-only commands such as `audit verify`).
  /// A missing file is then an error instead of being created.
  bool read_only = false;
  /// How long a writer waits for another process's lock before failing.
  int busy_timeout_ms = 5000;
  /// fsync every commit before it returns (synchronous = FULL; settings:
  /// `audit.sync: full`). Otherwise (NORMAL) a commit is in the WAL, readable
  /// by every process and safe from this one crashing, and reaches the disk
  /// at the next checkpoint or kernel write-back: a power loss or OS crash can
  /// lose the last commits, never corrupt the database.
  bool sync_every_commit = false;
  /// For a process that opens, writes one entry and exits (`togmal hook`):
  /// the close does not checkpoint the WAL into the main file (no WAL and -shm
  /// files created and deleted, no fsyncs, per call); the WAL is folded back
  /// and truncated once it holds kShortLivedCheckpointFrames frames. The
  /// connection has no mutex: only the thread that opened it may use it.
  bool short_lived_writer = false;
};

/// The WAL length (frames) at which a short-lived writer checkpoints. Small,
/// because the first process to open the database rebuilds the WAL index by
/// reading the whole WAL; 64 frames (~260 KB) is about 20 hook calls.
inline constexpr int kShortLivedCheckpointFrames = 64;

/// An open database connection. Movable, not copyable; closes on destruction.
class Database {
 public:
  /// Opens (creating with mode 0600, in a 0700 folder, if needed) and migrates
  /// to kSchemaVersion. Fails with a message naming the path when the file is
  /// corrupt, not a database, unwritable, locked, or from a newer togmal.
  static Result<Database> Open(const std::filesystem::path& path, OpenOptions options = {});

  /// A private in-memory database with the current schema (tests, dry runs).
  static Result<Database> OpenInMemory();

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  /// The SQLiteCpp connection, for the store's own classes.
  SQLite::Database& sql() { return *db_; }
  /// Where the database lives (":memory:" for an in-memory one).
  /// `sql` compiled once for this connection and kept: the same statement,
  /// reset and with its bindings cleared, on every later call. The audit
  /// append runs two statements per transaction, and compiling them cost
  /// `serve` about a tenth of each call. The reference is valid until the
  /// next Prepared() of the same text or the connection's end; reset a
  /// SELECT after reading it, or it keeps its read transaction open.
  SQLite::Statement& Prepared(std::string_view sql);

  const std::filesystem::path& path() const { return path_; }
  bool read_only() const { return read_only_; }

 private:
  Database(std::unique_ptr<SQLite::Database> db, std::filesystem::path path, bool read_only);
  using Statements = std::map<std::string, std::unique_ptr<SQLite::Statement>, std::less<>>;

  std::unique_ptr<SQLite::Database> db_;
  std::filesystem::path path_;
  bool read_only_ = false;
  /// After db_: destroyed (finalized) before the connection closes.
  std::unique_ptr<Statements> statements_;
};

/// The database path when no `--db` is given: $TOGMAL_DB, else
/// util::DataDir()/togmal.db.
std::filesystem::path DefaultDatabasePath();

/// Turns a SQLite failure into one readable sentence naming the database
/// ("database /x/togmal.db is locked by another process ...").
std::string DescribeSqliteError(const std::filesystem::path& path, int extended_code,
                                const std::string& message);

}  // namespace togmal::store
