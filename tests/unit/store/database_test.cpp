#include "togmal/store/database.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "store_test_support.h"
#include "togmal/store/audit_log.h"

namespace togmal::store {
namespace {

using testing::TempDatabase;
using togmal::testing::ScopedEnv;
namespace fs = std::filesystem;

mode_t ModeOf(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return info.st_mode & 0777;
}

// A separate reader sees `entries` audit entries, chained and intact.
void ExpectIntactTrail(TempDatabase& temp, int entries) {
  auto reader = Database::Open(temp.path(), {.read_only = true});
  ASSERT_TRUE(reader.ok()) << reader.error();
  AuditLog log(*reader);
  auto verify = log.Verify();
  ASSERT_TRUE(verify.ok()) << verify.error();
  EXPECT_TRUE(verify->ok) << verify->problem;
  EXPECT_EQ(verify->checked, entries);
}

TEST(Database, CreatesFileAndFolderPrivately) {
  TempDatabase temp;
  { auto db = temp.Open(); }
  EXPECT_EQ(ModeOf(temp.path()), 0600u);
  EXPECT_EQ(ModeOf(fs::path(temp.path()).parent_path().string()), 0700u);
}

TEST(Database, NewDatabaseIsWalWithCurrentSchema) {
  TempDatabase temp;
  { auto db = temp.Open(); }
  SQLite::Database raw = temp.Raw();
  EXPECT_EQ(raw.execAndGet("PRAGMA journal_mode").getString(), "wal");
  EXPECT_EQ(raw.execAndGet("PRAGMA user_version").getInt(), kSchemaVersion);
  EXPECT_TRUE(raw.tableExists("evidence"));
  EXPECT_TRUE(raw.tableExists("audit"));
  EXPECT_TRUE(raw.tableExists("evidence_fts"));
}

TEST(Database, ReopeningKeepsData) {
  TempDatabase temp;
  {
    auto db = temp.Open();
    AuditLog log(db);
    ASSERT_TRUE(log.Append({}).ok());
  }
  auto db = temp.Open();
  AuditLog log(db);
  auto tail = log.Tail(10);
  ASSERT_TRUE(tail.ok()) << tail.error();
  EXPECT_EQ(tail->size(), 1u);
}

TEST(Database, PreparedStatementsAreKeptResetAndClearedPerConnection) {
  TempDatabase temp;
  auto db = temp.Open();
  db.sql().exec("CREATE TABLE kept (value INTEGER)");
  SQLite::Statement& insert = db.Prepared("INSERT INTO kept (value) VALUES (?)");
  insert.bind(1, 7);
  insert.exec();
  SQLite::Statement& again = db.Prepared("INSERT INTO kept (value) VALUES (?)");
  EXPECT_EQ(&again, &insert);  // compiled once
  again.exec();                // the binding was cleared: NULL, not 7
  SQLite::Statement& count = db.Prepared("SELECT count(*), count(value) FROM kept");
  ASSERT_TRUE(count.executeStep());
  EXPECT_EQ(count.getColumn(0).getInt(), 2);
  EXPECT_EQ(count.getColumn(1).getInt(), 1);
  // Left unread, the SELECT is reset by the next Prepared() of its text.
  SQLite::Statement& recount = db.Prepared("SELECT count(*), count(value) FROM kept");
  ASSERT_TRUE(recount.executeStep());
  EXPECT_EQ(recount.getColumn(0).getInt(), 2);
  recount.reset();
  // Moving a connection with kept statements over another finalizes the
  // other's statements before its connection closes.
  auto other = temp.Open();
  (void)other.Prepared("SELECT count(*) FROM audit");
  other = std::move(db);
  SQLite::Statement& moved = other.Prepared("SELECT count(*), count(value) FROM kept");
  ASSERT_TRUE(moved.executeStep());
  EXPECT_EQ(moved.getColumn(0).getInt(), 2);
}

TEST(Database, AuditAppendsReuseTheConnectionsStatements) {
  TempDatabase temp;
  auto db = temp.Open();
  AuditLog log(db);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(log.Append({}).ok());
  // Another log on the same connection chains onto the same tip.
  AuditLog again(db);
  ASSERT_TRUE(again.Append({}).ok());
  ExpectIntactTrail(temp, 4);
}

TEST(Database, ShortLivedWriterLeavesTheWalAndSyncsAsAsked) {
  // `togmal hook`'s mode: no checkpoint on close, so the WAL outlives the
  // connection and the next reader still sees it all; each commit fsynced
  // (FULL) only when audit.sync asks for it.
  TempDatabase temp;
  temp.Open();  // create and migrate; a normal close checkpoints
  const std::string wal = temp.path() + "-wal";
  EXPECT_FALSE(std::filesystem::exists(wal)) << "a normal last close folds the WAL back";
  for (int i = 0; i < 3; ++i) {
    const bool full = i == 1;
    auto db = temp.Open({.sync_every_commit = full, .short_lived_writer = true});
    EXPECT_EQ(db.sql().execAndGet("PRAGMA synchronous").getInt(), full ? 2 : 1) << "FULL or NORMAL";
    AuditLog log(db);
    ASSERT_TRUE(log.Append({}).ok());
  }
  ASSERT_TRUE(std::filesystem::exists(wal));
  EXPECT_GT(std::filesystem::file_size(wal), 0u) << "entries wait in the WAL for a checkpoint";
  ExpectIntactTrail(temp, 3);
}

TEST(Database, ShortLivedWriterOpensAnExistingWalWithoutCreatingIt) {
  // The hook's connection uses a VFS that opens an existing WAL without the
  // create flag (no folder fsync, store/existing_wal_vfs.h) and still creates a
  // missing one; either way every entry is kept.
  TempDatabase temp;
  temp.Open();
  const std::string wal = temp.path() + "-wal";
  for (int i = 0; i < 4; ++i) {
    if (i == 2) {
      // A checkpointing close removes the WAL: the next writer must create it.
      temp.Open();
      ASSERT_FALSE(fs::exists(wal));
    }
    auto db = temp.Open({.short_lived_writer = true});
    sqlite3_vfs* vfs = nullptr;
    ASSERT_EQ(sqlite3_file_control(db.sql().getHandle(), "main", SQLITE_FCNTL_VFS_POINTER, &vfs),
              SQLITE_OK);
    ASSERT_NE(vfs, nullptr);
    EXPECT_STREQ(vfs->zName, "togmal-existing-wal");
    AuditLog log(db);
    ASSERT_TRUE(log.Append({}).ok());
    EXPECT_TRUE(fs::exists(wal)) << "call " << i;
  }
  EXPECT_EQ(ModeOf(wal), 0600u) << "a created WAL copies the database's mode";
  ExpectIntactTrail(temp, 4);
}

TEST(Database, ShortLivedWritersCheckpointAsTheWalGrows) {
  // Without checkpoints on close the WAL must still be folded back, or every
  // hook would re-read an ever longer WAL when it opens the database.
  TempDatabase temp;
  temp.Open();
  const std::string wal = temp.path() + "-wal";
  std::uintmax_t largest = 0;
  bool truncated = false;
  for (int i = 0; i < 200; ++i) {
    auto db = temp.Open({.short_lived_writer = true});
    AuditLog log(db);
    AuditEntry entry;
    entry.tool_name = "Bash";
    entry.input = {{"command", std::string(300, 'x')}};
    ASSERT_TRUE(log.Append(entry).ok());
    const std::uintmax_t size = std::filesystem::exists(wal) ? std::filesystem::file_size(wal) : 0;
    largest = std::max(largest, size);
    truncated = truncated || (i > 0 && size == 0);
  }
  // The WAL never holds much more than the checkpoint threshold (plus the
  // frames of the commit that crossed it), and checkpoints empty it.
  EXPECT_LT(largest, static_cast<std::uintmax_t>(kShortLivedCheckpointFrames + 16) * 4200u);
  EXPECT_TRUE(truncated);
  auto db = temp.Open();
  AuditLog log(db);
  auto tail = log.Tail(1000);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ(tail->size(), 200u);
}

TEST(Database, RefusesNewerSchemaClearly) {
  TempDatabase temp;
  { auto db = temp.Open(); }
  temp.Raw().exec("PRAGMA user_version = " + std::to_string(kSchemaVersion + 1));
  auto db = Database::Open(temp.path());
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().find("newer togmal"), std::string::npos) << db.error();
  EXPECT_NE(db.error().find(temp.path()), std::string::npos) << db.error();
}

TEST(Database, CorruptFileIsAClearError) {
  TempDatabase temp;
  fs::create_directories(fs::path(temp.path()).parent_path());
  std::ofstream(temp.path()) << std::string(8192, 'x');
  auto db = Database::Open(temp.path());
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().find("corrupt or not a SQLite database"), std::string::npos) << db.error();
}

TEST(Database, TruncatedDatabaseIsAClearError) {
  TempDatabase temp;
  {
    auto db = temp.Open();
    AuditLog log(db);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(log.Append({}).ok());
  }
  // Checkpoint the WAL into the main file, then cut the file in half.
  temp.Raw().exec("PRAGMA wal_checkpoint(TRUNCATE)");
  const auto size = fs::file_size(temp.path());
  fs::resize_file(temp.path(), size / 2 + 7);
  auto db = Database::Open(temp.path());
  if (db.ok()) {
    // The header may survive; then reading must fail cleanly instead.
    AuditLog log(*db);
    auto verified = log.Verify();
    EXPECT_FALSE(verified.ok() && verified->ok);
  } else {
    EXPECT_NE(db.error().find("database"), std::string::npos);
  }
}

TEST(Database, UncreatableLocationIsAClearError) {
  TempDatabase temp;
  // A regular file where the folder should be: fails even for root.
  const std::string blocker = temp.dir() + "/blocker";
  std::ofstream(blocker) << "x";
  auto db = Database::Open(blocker + "/sub/togmal.db");
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().find("cannot create the database folder"), std::string::npos) << db.error();
}

TEST(Database, FolderAsPathIsAClearError) {
  TempDatabase temp;
  auto db = Database::Open(temp.dir());
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().find("is a folder"), std::string::npos) << db.error();
}

TEST(Database, ReadOnlyFileRefusesWritesClearly) {
  TempDatabase temp;
  { auto db = temp.Open(); }
  if (::geteuid() == 0) {
    // Root ignores file modes; read-only mode gives the same guarantee.
    auto db = Database::Open(temp.path(), {.read_only = true});
    ASSERT_TRUE(db.ok()) << db.error();
    AuditLog log(*db);
    auto appended = log.Append({});
    ASSERT_FALSE(appended.ok());
    EXPECT_NE(appended.error().find("read-only"), std::string::npos) << appended.error();
    return;
  }
  fs::permissions(temp.path(), fs::perms::owner_read, fs::perm_options::replace);
  auto db = Database::Open(temp.path());
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().find("read-only"), std::string::npos) << db.error();
}

TEST(Database, ReadOnlyOpenReadsAndRefusesWrites) {
  TempDatabase temp;
  {
    auto db = temp.Open();
    AuditLog log(db);
    ASSERT_TRUE(log.Append({}).ok());
  }
  auto db = Database::Open(temp.path(), {.read_only = true});
  ASSERT_TRUE(db.ok()) << db.error();
  AuditLog log(*db);
  auto verified = log.Verify();
  ASSERT_TRUE(verified.ok()) << verified.error();
  EXPECT_TRUE(verified->ok);
  auto appended = log.Append({});
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.error().find("read-only"), std::string::npos) << appended.error();
}

TEST(Database, ReadOnlyOpenOfMissingFileDoesNotCreateIt) {
  TempDatabase temp;
  auto db = Database::Open(temp.path(), {.read_only = true});
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.error().find("no database at"), std::string::npos) << db.error();
  EXPECT_FALSE(fs::exists(temp.path()));
}

TEST(Database, LockedDatabaseIsAClearErrorNotAHang) {
  TempDatabase temp;
  { auto db = temp.Open(); }
  SQLite::Database holder = temp.Raw();
  SQLite::Transaction lock(holder, SQLite::TransactionBehavior::EXCLUSIVE);
  auto db = Database::Open(temp.path(), {.busy_timeout_ms = 50});
  ASSERT_TRUE(db.ok()) << db.error();  // opening a current schema takes no write lock
  AuditLog log(*db);
  auto appended = log.Append({});
  ASSERT_FALSE(appended.ok());
  EXPECT_NE(appended.error().find("locked"), std::string::npos) << appended.error();
}

TEST(Database, EmptyFileIsMigratedForWritersAndExplainedToReaders) {
  TempDatabase temp;
  fs::create_directories(fs::path(temp.path()).parent_path());
  std::ofstream(temp.path()).close();  // e.g. `touch togmal.db`
  auto reader = Database::Open(temp.path(), {.read_only = true});
  ASSERT_FALSE(reader.ok());
  EXPECT_NE(reader.error().find("needs an upgrade to " + std::to_string(kSchemaVersion)),
            std::string::npos)
      << reader.error();
  auto writer = Database::Open(temp.path());
  ASSERT_TRUE(writer.ok()) << writer.error();
  EXPECT_EQ(writer->sql().execAndGet("PRAGMA user_version").getInt(), kSchemaVersion);
}

TEST(Database, DefaultPathPrefersTogmalDb) {
  ScopedEnv db("TOGMAL_DB", "/tmp/elsewhere/x.db");
  EXPECT_EQ(DefaultDatabasePath(), "/tmp/elsewhere/x.db");
}

TEST(Database, DefaultPathFallsBackToDataDir) {
  ScopedEnv db("TOGMAL_DB", nullptr);
  ScopedEnv xdg("XDG_DATA_HOME", "/tmp/xdg-data");
  EXPECT_EQ(DefaultDatabasePath(), "/tmp/xdg-data/togmal/togmal.db");
}

TEST(Database, InMemoryHasTheSchema) {
  auto db = Database::OpenInMemory();
  ASSERT_TRUE(db.ok()) << db.error();
  EXPECT_EQ(db->sql().execAndGet("PRAGMA user_version").getInt(), kSchemaVersion);
}

// SQLite must only see a regular file or nothing: a FIFO blocks a reader
// forever, a device gets a journal created beside it (`/dev/null-journal`).
TEST(Database, OnlyARegularFileOrNothingIsOpened) {
  TempDatabase temp;
  const fs::path dir = temp.dir();
  const fs::path fifo = dir / "fifo.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const bool read_only : {true, false}) {
    auto db = Database::Open(fifo, {.read_only = read_only});
    ASSERT_FALSE(db.ok()) << "read_only " << read_only;
    EXPECT_NE(db.error().find(fifo.string() + " is a FIFO"), std::string::npos) << db.error();
  }

  const bool journal_was_there = fs::exists("/dev/null-journal");
  fs::create_symlink("/dev/null", dir / "null.db");
  auto to_null = Database::Open(dir / "null.db");
  ASSERT_FALSE(to_null.ok());
  EXPECT_NE(to_null.error().find("symbolic link to a character device"), std::string::npos)
      << to_null.error();
  if (!journal_was_there) {
    EXPECT_FALSE(fs::exists("/dev/null-journal"));
  }

  // A link to nothing is not followed to create a file wherever it points.
  fs::create_symlink(dir / "elsewhere.db", dir / "dangling.db");
  auto dangling = Database::Open(dir / "dangling.db");
  ASSERT_FALSE(dangling.ok());
  EXPECT_NE(dangling.error().find("symbolic link to nothing"), std::string::npos)
      << dangling.error();
  EXPECT_FALSE(fs::exists(dir / "elsewhere.db"));

  // A link to a database file is a database file.
  { ASSERT_TRUE(Database::Open(dir / "real.db").ok()); }
  fs::create_symlink(dir / "real.db", dir / "link.db");
  EXPECT_TRUE(Database::Open(dir / "link.db").ok());

  // The files SQLite opens beside the database are held to the same rule.
  ASSERT_EQ(::mkfifo((dir / "fresh.db-journal").c_str(), 0600), 0);
  auto fresh = Database::Open(dir / "fresh.db");
  ASSERT_FALSE(fresh.ok());
  EXPECT_NE(fresh.error().find("fresh.db-journal is a FIFO"), std::string::npos) << fresh.error();
  EXPECT_FALSE(fs::exists(dir / "fresh.db"));
}

}  // namespace
}  // namespace togmal::store
