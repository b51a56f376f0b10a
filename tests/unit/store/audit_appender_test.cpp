// Group commit (AuditAppender): many threads' entries share transactions, each
// caller returns only once its entry is committed, a failed commit fails every
// entry of its transaction and stores none, and a lone entry waits for nothing.
#include "togmal/store/audit_appender.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "store_test_support.h"
#include "togmal/store/database.h"
#include "togmal/store/shared_database.h"
#include "wait_until.h"

namespace togmal::store {
namespace {

using testing::TempDatabase;
using Clock = std::chrono::steady_clock;

AuditEntry Entry(const std::string& session, int n) {
  AuditEntry entry;
  entry.kind = AuditKind::kDecision;
  entry.session = session;
  entry.tool_name = "Bash";
  entry.input = {{"command", "echo " + std::to_string(n)}};
  entry.decision = "allow";
  entry.level = "L0";
  entry.detail = {{"n", n}};
  return entry;
}

using togmal::testing::WaitUntil;

class AuditAppenderTest : public ::testing::Test {
 protected:
  std::shared_ptr<SharedDatabase> Shared() {
    return std::make_shared<SharedDatabase>(temp_.path(), OpenOptions{});
  }
  VerifyReport MustVerify() {
    Database db = temp_.Open();
    auto report = AuditLog(db).Verify();
    EXPECT_TRUE(report.ok()) << report.error();
    return report.ok() ? *report : VerifyReport{};
  }
  TempDatabase temp_;
};

TEST_F(AuditAppenderTest, BurstFromManyThreadsKeepsOneChainAndEveryIdIsItsOwn) {
  constexpr int kThreads = 8;
  constexpr int kEach = 40;
  AuditAppender appender(Shared());
  std::vector<std::vector<int64_t>> ids(kThreads);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < kEach; ++n) {
        auto id = appender.Append(Entry("thread-" + std::to_string(t), n));
        if (!id) {
          ++failures;
          ADD_FAILURE() << id.error();
          continue;
        }
        ids[static_cast<std::size_t>(t)].push_back(*id);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  const AuditAppenderStats stats = appender.stats();
  EXPECT_EQ(stats.entries, kThreads * kEach);
  EXPECT_EQ(stats.failed, 0);
  EXPECT_LE(stats.commits, stats.entries);

  const VerifyReport report = MustVerify();
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.checked, kThreads * kEach);
  // Each caller got the id of its own entry, in its own order.
  Database db = temp_.Open();
  AuditLog log(db);
  std::set<int64_t> all;
  for (int t = 0; t < kThreads; ++t) {
    int n = 0;
    for (int64_t id : ids[static_cast<std::size_t>(t)]) {
      all.insert(id);
      auto entry = log.After(id - 1, 1);
      ASSERT_TRUE(entry.ok()) << entry.error();
      ASSERT_EQ(entry->size(), 1u);
      EXPECT_EQ(entry->front().id, id);
      EXPECT_EQ(entry->front().session, "thread-" + std::to_string(t));
      EXPECT_EQ(entry->front().detail.value("n", -1), n++);
    }
  }
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kThreads * kEach));
}

TEST_F(AuditAppenderTest, EntriesQueuedDuringACommitShareTheNextAndReturnOnlyAfterIt) {
  constexpr int kQueued = 5;
  std::atomic<int> queued_returned{0};
  std::atomic<int> batches{0};
  std::atomic<int> returned_before_commit{-1};
  AuditAppender* self = nullptr;
  AuditAppenderOptions options;
  options.before_commit = [&](const std::vector<AuditEntry>& batch) {
    const int number = ++batches;
    if (number == 1) {
      // Hold the first transaction open until the others have queued.
      EXPECT_EQ(batch.size(), 1u);
      EXPECT_TRUE(WaitUntil([&] { return self->queued() == kQueued; }));
    } else {
      EXPECT_EQ(batch.size(), static_cast<std::size_t>(kQueued));
    }
    // Nobody whose entry is in this transaction may have returned yet.
    if (number == 2) returned_before_commit = queued_returned.load();
  };
  AuditAppender appender(Shared(), options);
  self = &appender;

  std::thread first([&] { EXPECT_TRUE(appender.Append(Entry("first", 0)).ok()); });
  ASSERT_TRUE(WaitUntil([&] { return batches.load() == 1; }));
  std::vector<std::thread> others;
  for (int i = 0; i < kQueued; ++i) {
    others.emplace_back([&, i] {
      EXPECT_TRUE(appender.Append(Entry("queued", i)).ok());
      ++queued_returned;
    });
  }
  first.join();
  for (std::thread& thread : others) thread.join();
  EXPECT_EQ(returned_before_commit.load(), 0) << "a caller returned before its commit";
  const AuditAppenderStats stats = appender.stats();
  EXPECT_EQ(stats.commits, 2);
  EXPECT_EQ(stats.largest_batch, kQueued);
  const VerifyReport report = MustVerify();
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.checked, 1 + kQueued);
}

TEST_F(AuditAppenderTest, FailedCommitFailsEveryEntryOfItsTransactionAndStoresNone) {
  constexpr int kQueued = 4;
  std::atomic<int> batches{0};
  AuditAppender* self = nullptr;
  AuditAppenderOptions options;
  options.before_commit = [&](const std::vector<AuditEntry>&) {
    const int number = ++batches;
    if (number == 1) {
      EXPECT_TRUE(WaitUntil([&] { return self->queued() == kQueued; }));
    }
    if (number == 2) throw std::runtime_error("disk on fire");
  };
  AuditAppender appender(Shared(), options);
  self = &appender;

  std::optional<Result<int64_t>> first_result;
  std::thread first([&] { first_result = appender.Append(Entry("first", 0)); });
  ASSERT_TRUE(WaitUntil([&] { return batches.load() == 1; }));
  std::vector<std::optional<Result<int64_t>>> results(kQueued);
  std::vector<std::thread> others;
  for (int i = 0; i < kQueued; ++i) {
    others.emplace_back(
        [&, i] { results[static_cast<std::size_t>(i)] = appender.Append(Entry("doomed", i)); });
  }
  first.join();
  for (std::thread& thread : others) thread.join();

  ASSERT_TRUE(first_result && first_result->ok()) << first_result->error();
  EXPECT_EQ(**first_result, 1);
  for (const auto& result : results) {
    ASSERT_TRUE(result.has_value());
    EXPECT_FALSE(result->ok()) << "an entry of the failed transaction was acknowledged";
    if (!result->ok()) {
      EXPECT_NE(result->error().find("disk on fire"), std::string::npos);
    }
  }
  EXPECT_EQ(appender.stats().failed, kQueued);

  // Nothing of the failed transaction is stored; the chain goes on from entry 1.
  auto next = appender.Append(Entry("after", 0));
  ASSERT_TRUE(next.ok()) << next.error();
  EXPECT_EQ(*next, 2);
  const VerifyReport report = MustVerify();
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.checked, 2);
  Database db = temp_.Open();
  auto entries = AuditLog(db).Tail(10);
  ASSERT_TRUE(entries.ok());
  for (const AuditEntry& entry : *entries) EXPECT_NE(entry.session, "doomed");
}

TEST_F(AuditAppenderTest, LoneEntryCommitsAtOnce) {
  AuditAppender appender(Shared());
  const auto started = Clock::now();
  auto id = appender.Append(Entry("alone", 0));
  const auto took = Clock::now() - started;
  ASSERT_TRUE(id.ok()) << id.error();
  // Committed when Append returns: another connection reads it.
  SQLite::Database raw = temp_.Raw();
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM audit").getInt(), 1);
  EXPECT_EQ(appender.stats().commits, 1);
  // No timer to wait for (the bound only catches a wait of that order; the
  // structure — the first caller commits at once — is what the test above
  // pins down).
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST_F(AuditAppenderTest, EntriesAreRedactedAsAppendDoesUnlessRawIsOptedIn) {
  AuditEntry entry = Entry("s", 0);
  entry.input = {{"command", "curl -H 'Authorization: Bearer abcdefghijk' https://x"}};
  AuditAppender redacting(Shared());
  ASSERT_TRUE(redacting.Append(entry).ok());
  AuditAppender raw(Shared(), {.audit = {.store_raw_input = true}, .before_commit = nullptr});
  ASSERT_TRUE(raw.Append(entry).ok());
  Database db = temp_.Open();
  auto stored = AuditLog(db).Tail(2);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[0].input["command"], "curl -H 'Authorization: Bearer [REDACTED]' https://x");
  EXPECT_EQ((*stored)[1].input, entry.input);
}

}  // namespace
}  // namespace togmal::store
