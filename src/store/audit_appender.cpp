#include "togmal/store/audit_appender.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "togmal/store/database.h"
#include "togmal/store/shared_database.h"
#include "write_transaction.h"

namespace togmal::store {

/// One caller's entry on its way into a transaction. Lives on the caller's
/// stack; the committing caller moves the entry out and fills the result,
/// each under mutex_.
struct AuditAppender::Waiter {
  PreparedAuditEntry entry;
  std::optional<Result<int64_t>> result;
};

AuditAppender::AuditAppender(std::shared_ptr<SharedDatabase> database, AuditAppenderOptions options)
    : database_(std::move(database)), options_(std::move(options)) {}

Result<int64_t> AuditAppender::Append(AuditEntry entry) {
  Waiter waiter;
  try {
    // Redaction and normalisation, off the lock: callers prepare in parallel.
    waiter.entry = PrepareAuditEntry(std::move(entry), options_.audit);
  } catch (const std::exception& e) {
    return Fail(std::string("cannot append to the audit trail: ") + e.what());
  }
  std::unique_lock lock(mutex_);
  queue_.push_back(&waiter);
  while (!waiter.result) {
    if (committing_) {
      // Another caller's transaction is running; ours is either in it (its
      // result comes when it ends) or queued for the next one.
      committed_.wait(lock);
      continue;
    }
    // Nobody commits: this caller commits everything queued, its own entry
    // included, and hands each caller its result.
    committing_ = true;
    std::vector<Waiter*> batch = std::move(queue_);
    queue_.clear();
    lock.unlock();
    std::vector<PreparedAuditEntry> entries;
    entries.reserve(batch.size());
    for (Waiter* queued : batch) entries.push_back(std::move(queued->entry));
    std::vector<Result<int64_t>> results = Commit(std::move(entries));
    lock.lock();
    ++stats_.commits;
    stats_.entries += static_cast<int64_t>(batch.size());
    stats_.largest_batch = std::max(stats_.largest_batch, static_cast<int64_t>(batch.size()));
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!results[i]) ++stats_.failed;
      batch[i]->result = std::move(results[i]);
    }
    committing_ = false;
    committed_.notify_all();
  }
  return std::move(*waiter.result);
}

std::vector<Result<int64_t>> AuditAppender::Commit(std::vector<PreparedAuditEntry> batch) {
  const std::size_t count = batch.size();
  auto fail_all = [count](const std::string& why) {
    return std::vector<Result<int64_t>>(count, Result<int64_t>(Fail(why)));
  };
  try {
    auto ids = database_->With([&](Database& db) -> Result<std::vector<int64_t>> {
      try {
        WriteTransaction transaction(db);
        AuditLog log(db, options_.audit);
        auto appended = log.AppendAll(std::move(batch));
        if (!appended) return appended;  // rolled back with the transaction
        if (options_.before_commit) {
          auto stored = log.After(appended->front() - 1, static_cast<int64_t>(appended->size()));
          if (!stored) return Fail(stored.error());
          options_.before_commit(*stored);
        }
        transaction.Commit();
        return appended;
      } catch (const SQLite::Exception& e) {
        return Fail("cannot append to the audit trail: " +
                    DescribeSqliteError(db.path(), e.getExtendedErrorCode(), e.what()));
      }
    });
    if (!ids) return fail_all(ids.error());
    std::vector<Result<int64_t>> results;
    results.reserve(count);
    for (int64_t id : *ids) results.emplace_back(id);
    return results;
  } catch (const std::exception& e) {
    return fail_all(std::string("cannot append to the audit trail: ") + e.what());
  } catch (...) {
    return fail_all("cannot append to the audit trail: unknown error");
  }
}

AuditAppenderStats AuditAppender::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::size_t AuditAppender::queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

}  // namespace togmal::store
