#pragma once
/// Where the Judge records its decisions and finds `togmal allow` grants: the
/// audit database, reached one of two ways.
///
///   - A process that judges one call (`togmal hook`) opens the database when
///     it first needs it (a deny's grant lookup or the append) and keeps that
///     one connection for the rest: OneCallSinks.
///   - `serve` shares one connection among its workers, and the entries of
///     the calls judged at the same moment share a transaction (group
///     commit): SharedSinks.
///
/// The front ends (hook/, tools/) reach the store only through here.

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/check/judge.h"
#include "togmal/util/settings_layers.h"

namespace togmal::store {
class Database;
class SharedDatabase;
struct AuditOptions;
}  // namespace togmal::store

namespace togmal::check {

/// How a process that judges one call reaches the audit database. The
/// defaults are the safe reading of settings it cannot read: inputs
/// redacted, an fsync per entry.
struct AuditTarget {
  /// Empty: store::DefaultDatabasePath().
  std::filesystem::path database;
  /// `audit.store_raw_input`: store inputs without redacting secrets.
  bool store_raw_input = false;
  /// `audit.sync: full`: fsync every entry before the answer.
  bool sync_every_commit = true;
  /// How long an append waits for another process's write lock.
  int lock_wait_ms = 400;
};

/// Opens `target`'s database as a process that judges one call does: a short-lived
/// writer with the target's lock wait and sync setting (OneCallSinks, RecordOutcomes).
Result<store::Database> OpenFor(const AuditTarget& target);

/// The lock wait that fits a decision budget: two fifths of it (400 ms of the
/// default 1 s), far above a commit's usual ~1 ms, leaving the rest for the
/// decision. It follows `hook.budget_ms`, so a person who gives the hook more
/// time on a busy machine also gives it more time to win the lock.
int LockWaitForBudget(int budget_ms);

/// `target` with the `audit:` settings of `loaded`. A section that cannot be
/// read keeps the safe reading and is appended to `broken`.
void ReadAuditSettings(const util::SettingsLayers& loaded, AuditTarget& target,
                       std::vector<std::string>& broken);

/// A Judge's audit sink and grant lookup.
struct JudgeSinks {
  AuditSink audit;
  GrantLookup grants;
};

/// Both over one connection to `target`, opened by whichever needs it first.
/// The connection has no mutex: the sinks of one call are used by one thread
/// (a watchdog that records in the deciding thread's stead builds its own).
JudgeSinks OneCallSinks(const AuditTarget& target);

/// Both over `database`, shared by serve's workers: appends go through a
/// group commit (store::AuditAppender), each returning once its entry's
/// transaction has committed.
JudgeSinks SharedSinks(std::shared_ptr<store::SharedDatabase> database,
                       const store::AuditOptions& audit);

/// How much of input that could not be parsed is stored.
inline constexpr std::size_t kMalformedCutBytes = 2000;

/// The tool_input recorded for input that could not be parsed: enough to see
/// what came (kMalformedCutBytes), its size and, when it was cut, the digest
/// of all of it (store/stored_input.h).
nlohmann::json MalformedInput(std::string_view input);

}  // namespace togmal::check
