// Real processes against one database file: concurrent writers keep one
// chain, a writer killed mid-burst loses nothing it acknowledged.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "store_test_support.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::store {
namespace {

using testing::TempDatabase;

AuditEntry WriterEntry(int writer, int n) {
  AuditEntry entry;
  entry.kind = AuditKind::kDecision;
  entry.session = "writer-" + std::to_string(writer);
  entry.tool_name = "Bash";
  entry.input = {{"command", "echo " + std::to_string(n)}};
  entry.decision = "allow";
  entry.level = "L0";
  entry.detail = {{"n", n}};
  return entry;
}

// Child body: never returns; exit code 0 = every append succeeded.
[[noreturn]] void RunWriter(const std::string& path, int writer, int appends, int report_fd) {
  int code = 0;
  {
    // Reopen every 50 appends, as hook processes come and go.
    std::optional<Database> db;
    for (int n = 0; n < appends && code == 0; ++n) {
      if (n % 50 == 0) {
        db.reset();
        auto opened = Database::Open(path, {.busy_timeout_ms = 60000});
        if (!opened) {
          std::fprintf(stderr, "writer %d: %s\n", writer, opened.error().c_str());
          code = 2;
          break;
        }
        db.emplace(std::move(opened).value());
      }
      AuditLog log(*db);
      auto id = log.Append(WriterEntry(writer, n));
      if (!id) {
        std::fprintf(stderr, "writer %d: %s\n", writer, id.error().c_str());
        code = 3;
      } else if (report_fd >= 0) {
        const std::string line = std::to_string(*id) + "\n";
        if (::write(report_fd, line.data(), line.size()) < 0) code = 4;
      }
    }
  }
  ::_exit(code);
}

int WaitExit(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

TEST(AuditConcurrency, EightProcessesKeepOneChain) {
  constexpr int kWriters = 8;
  constexpr int kAppends = 500;
  TempDatabase temp;
  std::vector<pid_t> children;
  for (int writer = 0; writer < kWriters; ++writer) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    // The first open of the fresh file races too: migrations must serialise.
    if (pid == 0) RunWriter(temp.path(), writer, kAppends, -1);
    children.push_back(pid);
  }
  for (pid_t pid : children) EXPECT_EQ(WaitExit(pid), 0);

  auto db = temp.Open();
  AuditLog log(db);
  auto report = log.Verify();
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_TRUE(report->ok) << report->problem;
  EXPECT_EQ(report->checked, kWriters * kAppends);
  SQLite::Database raw = temp.Raw();
  SQLite::Statement per_writer(raw, "SELECT session, count(*) FROM audit GROUP BY session");
  int sessions = 0;
  while (per_writer.executeStep()) {
    ++sessions;
    EXPECT_EQ(per_writer.getColumn(1).getInt(), kAppends) << per_writer.getColumn(0).getString();
  }
  EXPECT_EQ(sessions, kWriters);
  EXPECT_EQ(raw.execAndGet("SELECT count(DISTINCT prev_hash) FROM audit").getInt(),
            kWriters * kAppends);
}

TEST(AuditCrash, KilledWriterLosesNothingAcknowledged) {
  TempDatabase temp;
  { auto db = temp.Open(); }
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::close(fds[0]);
    RunWriter(temp.path(), 0, 1000000, fds[1]);
  }
  ::close(fds[1]);
  FILE* acknowledged = ::fdopen(fds[0], "r");
  ASSERT_NE(acknowledged, nullptr);
  std::set<long long> ids;
  long long id = 0;
  while (ids.size() < 300 && std::fscanf(acknowledged, "%lld", &id) == 1) ids.insert(id);
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(WaitExit(pid), 128 + SIGKILL);
  // Whatever it wrote before dying was acknowledged too.
  while (std::fscanf(acknowledged, "%lld", &id) == 1) ids.insert(id);
  std::fclose(acknowledged);
  ASSERT_GE(ids.size(), 300u);

  auto db = Database::Open(temp.path());
  ASSERT_TRUE(db.ok()) << db.error();
  AuditLog log(*db);
  auto report = log.Verify();
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_TRUE(report->ok) << report->problem;
  EXPECT_GE(report->checked, static_cast<int64_t>(ids.size()));
  SQLite::Database raw = temp.Raw();
  SQLite::Statement present(raw, "SELECT count(*) FROM audit WHERE id = ?");
  for (long long acked : ids) {
    present.reset();
    present.bind(1, static_cast<int64_t>(acked));
    ASSERT_TRUE(present.executeStep());
    EXPECT_EQ(present.getColumn(0).getInt(), 1) << "acknowledged entry " << acked << " lost";
  }
  // And the trail goes on after the crash.
  auto next = log.Append(WriterEntry(1, 0));
  ASSERT_TRUE(next.ok()) << next.error();
  EXPECT_EQ(*next, report->checked + 1);
}

}  // namespace
}  // namespace togmal::store
