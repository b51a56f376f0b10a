#include "togmal/store/database.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <system_error>
#include <thread>

#include "existing_wal_vfs.h"
#include "schema.h"
#include "togmal/util/paths.h"

namespace togmal::store {

namespace fs = std::filesystem;

namespace {

int ReadUserVersion(SQLite::Database& db) { return db.execAndGet("PRAGMA user_version").getInt(); }

// What a file that is not a regular file is, for the message.
const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// SQLite must only ever see a regular file, or nothing: reading a FIFO blocks
// until someone writes to it (a read-only command would hang forever), and
// next to a device it would create its journal (`/dev/null-journal`). The
// companion files SQLite opens itself (-wal, -shm, -journal; next to the
// link's target when the database is a symbolic link) must be regular or
// absent too. On success, says whether the database exists.
Result<bool> CheckDatabaseFiles(const fs::path& path) {
  struct stat link_info {};
  bool exists = true;
  if (::lstat(path.c_str(), &link_info) != 0) {
    // A folder that is missing (or a file in its way) is for the caller to
    // create or report; anything else is reported here.
    if (errno != ENOENT && errno != ENOTDIR) {
      return Fail("cannot use the database " + path.string() + ": " + std::strerror(errno));
    }
    exists = false;
  }
  fs::path real = path;
  if (!exists) {
    // Nothing to check but the companions a previous database may have left.
  } else if (S_ISLNK(link_info.st_mode)) {
    struct stat target {};
    if (::stat(path.c_str(), &target) != 0) {
      // Creating through a dangling link would create a file wherever it points.
      return Fail("database path " + path.string() + " is a symbolic link to " +
                  (errno == ENOENT
                       ? "nothing"
                       : std::string("something unreadable (") + std::strerror(errno) + ")") +
                  "; remove the link or point --db elsewhere");
    }
    if (!S_ISREG(target.st_mode)) {
      return Fail("database path " + path.string() + " is a symbolic link to " +
                  FileKind(target.st_mode) +
                  ", not a database file; remove the link or point --db elsewhere");
    }
    std::error_code error;
    real = fs::canonical(path, error);
    if (error) real = path;
  } else if (!S_ISREG(link_info.st_mode)) {
    return Fail("database path " + path.string() + " is " + FileKind(link_info.st_mode) +
                ", not a database file; point --db (or $TOGMAL_DB) at a file");
  }
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string companion = real.string() + suffix;
    struct stat info {};
    if (::stat(companion.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
      return Fail("database " + path.string() + " cannot be used: its " + companion + " is " +
                  FileKind(info.st_mode) + ", not a regular file; remove it");
    }
  }
  return exists;
}

// Creates the folder (0700) and an empty database file (0600) so SQLite never
// creates them with the umask's looser modes; its -wal and -shm files copy the
// database file's mode. O_EXCL | O_NOFOLLOW: nothing that appeared since
// CheckDatabaseFiles (a link, a FIFO) is followed or opened; whatever is
// there then is checked again.
Result<void> CreateFileIfMissing(const fs::path& path) {
  std::error_code error;
  const fs::path folder = path.parent_path();
  if (!folder.empty() && !fs::exists(folder, error)) {
    if (!fs::create_directories(folder, error) && error) {
      return Fail("cannot create the database folder " + folder.string() + ": " + error.message());
    }
    fs::permissions(folder, fs::perms::owner_all, fs::perm_options::replace, error);
  }
  const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) {  // another process was first, or something else is there
      auto again = CheckDatabaseFiles(path);
      if (!again) return Fail(again.error());
      if (*again) return {};
    }
    return Fail("cannot create the database " + path.string() + ": " + std::strerror(errno));
  }
  ::close(fd);
  return {};
}

void Migrate(SQLite::Database& db, int from_version) {
  if (from_version == 0) {
    // WAL lets readers (audit tail, stats) run beside writers (hook, serve);
    // the mode is stored in the file, so this runs once per database.
    db.execAndGet("PRAGMA journal_mode = WAL");
  }
  for (const Migration& migration : Migrations()) {
    if (migration.version <= from_version) continue;
    // IMMEDIATE: two processes opening a fresh database at once must not both
    // run the same migration; the loser re-reads the version after waiting.
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    if (ReadUserVersion(db) >= migration.version) continue;
    db.exec(migration.sql);
    if (migration.then != nullptr) migration.then(db);
    db.exec("PRAGMA user_version = " + std::to_string(migration.version));
    transaction.commit();
  }
}

// The WAL hook of a short-lived writer: once the WAL holds
// kShortLivedCheckpointFrames frames, fold it back and truncate it to zero
// bytes. SQLite's own auto-checkpoint would not do here: it leaves the WAL
// file full length and relies on the next writer of the *same* shared-memory
// index to restart it from the top, but each hook process is the first to
// open the database, rebuilds that index from the WAL and forgets the
// checkpoint, so the WAL would only ever grow (and every hook would read all
// of it on open). The checkpoint is opportunistic: it waits at most
// kCheckpointWaitMs for other processes' readers and writers, and if they are
// still busy the next writer tries again.
constexpr int kCheckpointWaitMs = 50;

// `busy_timeout_ms` carries the connection's own timeout (an int, not a
// pointer), restored after the checkpoint.
int TruncatingCheckpoint(void* busy_timeout_ms, sqlite3* db, const char* schema, int frames) {
  if (frames >= kShortLivedCheckpointFrames) {
    sqlite3_busy_timeout(db, kCheckpointWaitMs);
    sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    sqlite3_busy_timeout(db, static_cast<int>(reinterpret_cast<std::intptr_t>(busy_timeout_ms)));
  }
  return SQLITE_OK;
}

// Process-wide SQLite configuration, before SQLite initialises itself on the
// first open. Memory statistics are off: togmal never reads them, and keeping
// them makes every allocation SQLite does take a global mutex (about a tenth
// of the instructions of a hook's database work).
void ConfigureSqlite() {
  static std::once_flag once;
  std::call_once(once, [] {
    // SQLITE_MISUSE here only means something initialised SQLite earlier
    // (a test linking it directly); the default is then kept, which is fine.
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  });
}

}  // namespace

std::string DescribeSqliteError(const fs::path& path, int extended_code,
                                const std::string& message) {
  const char* what = nullptr;
  switch (extended_code & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      what = "is locked by another process and stayed locked past the busy timeout";
      break;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      what = "is corrupt or not a SQLite database (move it aside; togmal creates a new one)";
      break;
    case SQLITE_READONLY:
      what = "is read-only (check the permissions of the file and its folder)";
      break;
    case SQLITE_CANTOPEN:
      what = "cannot be opened (check that the path and its folder exist and are accessible)";
      break;
    case SQLITE_FULL:
      what = "cannot grow: the disk is full";
      break;
    case SQLITE_IOERR:
      what = "hit an I/O error";
      break;
    case SQLITE_PERM:
    case SQLITE_AUTH:
      what = "refused access";
      break;
    default:
      what = "failed";
  }
  return "database " + path.string() + " " + what + " (sqlite: " + message + ")";
}

Database::Database(std::unique_ptr<SQLite::Database> db, fs::path path, bool read_only)
    : db_(std::move(db)), path_(std::move(path)), read_only_(read_only) {}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    statements_.reset();  // finalized while their connection is still open
    db_ = std::move(other.db_);
    path_ = std::move(other.path_);
    read_only_ = other.read_only_;
    statements_ = std::move(other.statements_);
  }
  return *this;
}
Database::~Database() = default;

SQLite::Statement& Database::Prepared(std::string_view sql) {
  if (!statements_) statements_ = std::make_unique<Statements>();
  auto found = statements_->find(sql);
  if (found == statements_->end()) {
    auto statement = std::make_unique<SQLite::Statement>(*db_, std::string(sql));
    found = statements_->emplace(std::string(sql), std::move(statement)).first;
  } else {
    // tryReset: a failed step was reported by the call that made it; reset()
    // would throw that failure again at the next, unrelated use.
    found->second->tryReset();
    found->second->clearBindings();
  }
  return *found->second;
}

namespace {

// One attempt at opening and migrating: the connection, or why not and
// whether another process's lock was the reason (worth another attempt).
struct OpenAttempt {
  static OpenAttempt Failed(std::string why, bool busy = false) {
    OpenAttempt attempt;
    attempt.error = std::move(why);
    attempt.busy = busy;
    return attempt;
  }
  std::unique_ptr<SQLite::Database> db;
  std::string error;
  bool busy = false;
};

OpenAttempt OpenOnce(const fs::path& path, const OpenOptions& options) {
  try {
    int flags = options.read_only ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE;
    std::string vfs;
    if (options.short_lived_writer) {
      // The hook's one thread is the connection's only user: no mutex; and
      // no folder fsync for a WAL that already exists (existing_wal_vfs.h).
      flags |= SQLite::OPEN_NOMUTEX;
      if (const char* name = ExistingWalVfs()) vfs = name;
    }
    auto db = std::make_unique<SQLite::Database>(path, flags, options.busy_timeout_ms, vfs);
    if (!options.read_only && sqlite3_db_readonly(db->getHandle(), "main") == 1) {
      return OpenAttempt::Failed(DescribeSqliteError(path, SQLITE_READONLY, "opened read-only"));
    }
    const int version = ReadUserVersion(*db);
    if (version > kSchemaVersion) {
      return OpenAttempt::Failed(
          "database " + path.string() + " has schema version " + std::to_string(version) +
          ", written by a newer togmal (this one knows up to " + std::to_string(kSchemaVersion) +
          "); upgrade togmal or use another --db");
    }
    if (version < kSchemaVersion) {
      if (options.read_only) {
        return OpenAttempt::Failed(
            "database " + path.string() + " has schema version " + std::to_string(version) +
            " and needs an upgrade to " + std::to_string(kSchemaVersion) +
            "; `togmal audit prune --days 0` upgrades it without removing anything");
      }
      Migrate(*db, version);
    }
    if (!options.read_only) {
      // Per connection, no I/O. In WAL mode NORMAL survives a killed process;
      // only a power loss or OS crash can lose the commits since the last
      // checkpoint (which syncs the WAL and the database).
      db->exec(options.sync_every_commit ? "PRAGMA synchronous = FULL"
                                         : "PRAGMA synchronous = NORMAL");
    }
    if (!options.read_only && options.short_lived_writer) {
      sqlite3_db_config(db->getHandle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
      // Replaces SQLite's auto-checkpoint (see TruncatingCheckpoint).
      sqlite3_wal_hook(
          db->getHandle(), TruncatingCheckpoint,
          reinterpret_cast<void*>(static_cast<std::intptr_t>(options.busy_timeout_ms)));
    }
    OpenAttempt opened;
    opened.db = std::move(db);
    return opened;
  } catch (const SQLite::Exception& e) {
    const int code = e.getExtendedErrorCode() & 0xff;
    return OpenAttempt::Failed(DescribeSqliteError(path, e.getExtendedErrorCode(), e.what()),
                               code == SQLITE_BUSY || code == SQLITE_LOCKED);
  } catch (const std::exception& e) {
    return OpenAttempt::Failed("database " + path.string() + ": " + e.what());
  }
}

}  // namespace

Result<Database> Database::Open(const fs::path& path, OpenOptions options) {
  if (path.empty()) {
    return Fail(
        "no database path: no home directory is known (set HOME, XDG_DATA_HOME or TOGMAL_DB)");
  }
  auto exists = CheckDatabaseFiles(path);
  if (!exists) return Fail(exists.error());
  if (!*exists) {
    if (options.read_only) {
      return Fail("no database at " + path.string() + " (nothing has been recorded yet)");
    }
    if (auto created = CreateFileIfMissing(path); !created) return Fail(created.error());
  }

  ConfigureSqlite();
  // SQLite skips the busy handler where waiting could deadlock: switching a
  // fresh file to WAL while another process holds a read lock on it, or a
  // read transaction that needs a write lock. Those answer SQLITE_BUSY at
  // once; the whole open is retried, with backoff, until the caller's busy
  // timeout is spent, so the timeout means what it says for the first open
  // of a new database by several processes at once.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(options.busy_timeout_ms);
  std::chrono::milliseconds pause{1};
  for (;;) {
    OpenAttempt attempt = OpenOnce(path, options);
    if (attempt.db) return Database(std::move(attempt.db), path, options.read_only);
    if (!attempt.busy || std::chrono::steady_clock::now() + pause >= deadline) {
      return Fail(attempt.error);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

Result<Database> Database::OpenInMemory() {
  ConfigureSqlite();
  try {
    auto db = std::make_unique<SQLite::Database>(":memory:", SQLite::OPEN_READWRITE);
    for (const Migration& migration : Migrations()) {
      SQLite::Transaction transaction(*db);
      db->exec(migration.sql);
      if (migration.then != nullptr) migration.then(*db);
      db->exec("PRAGMA user_version = " + std::to_string(migration.version));
      transaction.commit();
    }
    return Database(std::move(db), ":memory:", false);
  } catch (const SQLite::Exception& e) {
    return Fail(DescribeSqliteError(":memory:", e.getExtendedErrorCode(), e.what()));
  }
}

fs::path DefaultDatabasePath() {
  if (const char* from_env = std::getenv("TOGMAL_DB"); from_env != nullptr && *from_env != '\0') {
    return from_env;
  }
  return util::UserDataFile("togmal.db");
}

}  // namespace togmal::store
