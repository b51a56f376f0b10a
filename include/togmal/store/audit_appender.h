#pragma once
/// Group commit for a long-running process (`togmal serve`): the audit
/// entries that threads append at the same moment go into one transaction.
/// Append() blocks until the transaction holding its entry has committed and
/// only then returns the entry's id, so whatever the caller answers after it
/// (an audit_id, an allow) is backed by a committed record; a failed commit
/// is an error for every entry of that transaction, none of which is stored.
///
/// No timer: the first caller finds nobody committing and commits its entry
/// at once (a lone call waits for nothing). Entries that arrive while a
/// commit runs queue up; when it ends, one of their callers commits all of
/// them in the next transaction. A transaction costs about the same for one
/// entry as for a dozen (the write lock, the tip, the WAL frames of the same
/// pages), so under load the cost per entry falls with the queue's length.

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "togmal/store/audit_log.h"
#include "togmal/util/result.h"

namespace togmal::store {

class SharedDatabase;

struct AuditAppenderOptions {
  AuditOptions audit;
  /// Tests only: called inside each transaction, after its entries are
  /// inserted (ids and hashes set) and before it commits. Throwing fails the
  /// transaction as a failed commit would.
  std::function<void(const std::vector<AuditEntry>&)> before_commit;
};

/// What the appender has done so far (tests, benchmarks).
struct AuditAppenderStats {
  int64_t commits = 0;        ///< transactions attempted
  int64_t entries = 0;        ///< entries in them
  int64_t failed = 0;         ///< entries whose transaction failed
  int64_t largest_batch = 0;  ///< most entries in one transaction
};

class AuditAppender {
 public:
  explicit AuditAppender(std::shared_ptr<SharedDatabase> database,
                         AuditAppenderOptions options = {});
  AuditAppender(const AuditAppender&) = delete;
  AuditAppender& operator=(const AuditAppender&) = delete;

  /// Prepares (redacts) `entry` on the calling thread, then returns once the
  /// transaction holding it has committed: its id, or why it is not stored.
  /// Thread-safe.
  Result<int64_t> Append(AuditEntry entry);

  AuditAppenderStats stats() const;
  /// Entries waiting for the next transaction (tests).
  std::size_t queued() const;

 private:
  struct Waiter;
  /// Commits `batch` in one transaction; the results, in order.
  std::vector<Result<int64_t>> Commit(std::vector<PreparedAuditEntry> batch);

  std::shared_ptr<SharedDatabase> database_;
  AuditAppenderOptions options_;
  mutable std::mutex mutex_;
  std::condition_variable committed_;
  std::vector<Waiter*> queue_;  ///< waiting for the next transaction, oldest first
  bool committing_ = false;     ///< a caller is running a transaction
  AuditAppenderStats stats_;
};

}  // namespace togmal::store
