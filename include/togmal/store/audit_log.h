#pragma once
/// The audit trail: an append-only, hash-chained record of every decision,
/// configuration change and stored evidence. Each entry carries `prev_hash`
/// and `hash = SHA-256(canonical JSON of the entry + prev_hash)`; the first
/// entry's prev_hash is 64 zeros. Appends run in an immediate transaction
/// that reads the tip, so any number of processes sharing one database keep
/// one chain. Pruning leaves an anchor (the last pruned id and hash) plus a
/// `checkpoint` entry recording it, so what remains still verifies.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/store/audit_filter.h"
#include "togmal/util/result.h"

namespace togmal::store {

class Database;

/// prev_hash of the first entry of a chain.
inline constexpr std::string_view kGenesisHash =
    "0000000000000000000000000000000000000000000000000000000000000000";

/// What an entry records. An outcome is what happened to a call after the
/// decision: the host ran it (decision "ran"), the tool failed ("failed") or
/// the person or the host refused it ("refused"); detail.tool_use_id names the
/// decision entry it belongs to (that entry's detail.tool_use_id).
enum class AuditKind { kDecision, kConfigChange, kEvidence, kCheckpoint, kOutcome };

/// "decision", "config_change", "evidence", "checkpoint", "outcome".
std::string_view AuditKindName(AuditKind kind);
std::optional<AuditKind> ParseAuditKind(std::string_view name);

/// One audit entry. Callers fill what applies to their kind and leave the
/// rest empty; Append() sets id, time (if empty), prev_hash and hash.
struct AuditEntry {
  int64_t id = 0;
  std::string time;  ///< UTC, "2026-11-22T18:47:19.123456Z"
  AuditKind kind = AuditKind::kDecision;
  std::string session;     ///< Claude Code session id, or the MCP client name
  std::string tool_name;   ///< the tool the decision was about
  nlohmann::json input;    ///< the tool's input (redacted before writing unless raw storage is on)
  std::string decision;    ///< "allow" | "ask" | "deny"
  std::string level;       ///< "L0".."L3"
  std::string rule;        ///< id of the rule that decided, if one did
  std::string source;      ///< "rule" | "classifier" | "sampling" | "hook" | ...
  nlohmann::json reasons;  ///< array of {level, why, segment?}, or null
  int64_t latency_us = 0;  ///< time taken to decide
  nlohmann::json detail;  ///< kind-specific extras (config change summary, evidence id, checkpoint)
  std::string prev_hash;
  std::string hash;
};

/// The entry as one JSON object, chain fields included (export, tail --json,
/// audit://recent).
nlohmann::json ToJson(const AuditEntry& entry);

/// The exact bytes that are hashed (without prev_hash): the entry as JSON
/// with sorted keys and no whitespace. Exposed so that anyone can re-verify
/// an export.
std::string CanonicalJson(const AuditEntry& entry);

/// hex(SHA-256(CanonicalJson(entry) + prev_hash)).
std::string ComputeEntryHash(const AuditEntry& entry, std::string_view prev_hash);

struct AuditOptions {
  /// Store inputs as given instead of redacting secrets first (opt-in).
  bool store_raw_input = false;
};

/// An entry made ready for storage: its input bounded and (unless raw
/// storage is on) redacted, its reasons, detail, tool and session redacted,
/// and its three JSON fields serialised once, as they are stored and hashed
/// (reading the text back and serialising it again yields the same bytes).
/// A type of its own so that nothing reaches AppendAll unredacted. Preparing
/// is the CPU-heavy part of an append and needs no database: a server
/// prepares on the thread that judged the call, then commits many prepared
/// entries at once (audit_appender.h).
struct PreparedAuditEntry {
  AuditEntry entry;
  std::string input_json;  ///< "" for null (stored as NULL)
  std::string reasons_json;
  std::string detail_json;
};
PreparedAuditEntry PrepareAuditEntry(AuditEntry entry, const AuditOptions& options);

/// The outcome of Verify(): ok, or the first entry that breaks the chain.
struct VerifyReport {
  bool ok = true;
  int64_t checked = 0;               ///< entries whose hash was checked
  std::optional<int64_t> broken_id;  ///< first broken entry
  std::string problem;               ///< what is wrong with it, one sentence
  std::string tip_hash;              ///< hash of the last entry (genesis when empty)
  std::optional<int64_t> anchor_id;  ///< last pruned id, when pruning happened
};

/// Counts for statistics and audit://recent.
struct AuditCounts {
  int64_t total = 0;
  std::map<std::string, int64_t> by_kind;
  std::map<std::string, int64_t> by_decision;  ///< decision entries only
  std::string first_time, last_time;
};

/// decision → level → entries.
using DecisionTally = std::map<std::string, std::map<std::string, int64_t>>;

struct PruneReport {
  int64_t pruned = 0;                 ///< entries deleted
  std::optional<int64_t> through_id;  ///< last deleted id
  std::optional<int64_t> checkpoint_id;
};

/// What the recent trail holds for one tool call (RecentToolUse).
struct ToolUseRecord {
  std::string decision;      ///< "pass" or "ask" when the call was handed to a person; else ""
  bool has_outcome = false;  ///< an outcome entry names the call already
};

/// How many of the newest entries RecentToolUse looks through: a call's
/// outcome comes while the person is still at it, a few calls later.
inline constexpr int64_t kRecentToolUseWindow = 2000;

/// The audit trail of one database. Cheap to construct and copy; the database must outlive it.
class AuditLog {
 public:
  explicit AuditLog(Database& database, AuditOptions options = {});

  /// Redacts (unless opted out), chains and stores the entry; returns its id.
  /// A failure (locked, read-only, disk full) is returned, never swallowed.
  /// Inside a transaction the caller opened (it must be IMMEDIATE), the entry
  /// joins that transaction; otherwise it commits on its own.
  Result<int64_t> Append(AuditEntry entry);

  /// Chains and stores `entries` in order, in one transaction (or in the
  /// caller's IMMEDIATE transaction, as Append), and returns their ids in the
  /// same order: all are stored or none is. Group commit (AuditAppender).
  Result<std::vector<int64_t>> AppendAll(std::vector<PreparedAuditEntry> entries);

  /// Walks the whole chain from the anchor (or genesis) and reports the first
  /// entry whose prev_hash or hash does not match.
  Result<VerifyReport> Verify();

  /// The newest `count` entries that pass `filter`, oldest first.
  Result<std::vector<AuditEntry>> Tail(int64_t count, const AuditFilter& filter = {});

  /// Up to `limit` entries with id > `after_id` that pass `filter`, oldest
  /// first (follow, export).
  Result<std::vector<AuditEntry>> After(int64_t after_id, int64_t limit,
                                        const AuditFilter& filter = {});

  /// Calls `sink` for every entry that passes `filter`, oldest first, reading in pages.
  Result<int64_t> ForEach(const std::function<void(const AuditEntry&)>& sink,
                          const AuditFilter& filter = {});

  Result<AuditCounts> Counts();
  /// Decision entries at or after `since` (an AuditEntry::time), made in
  /// `project` or below it (empty: anywhere), by decision ("allow", "pass",
  /// "ask", "deny"). Uses the time index: cheap enough for a status line
  /// redrawn every few hundred milliseconds.
  Result<std::map<std::string, int64_t>> DecisionsSince(std::string_view since,
                                                        std::string_view project = {});
  /// The pass/ask decision and the outcome, if any, recorded for the call
  /// `tool_use_id` among the newest `window` entries (bounded: the hook's
  /// after-the-call events look this up for every call).
  Result<ToolUseRecord> RecentToolUse(std::string_view tool_use_id,
                                      int64_t window = kRecentToolUseWindow);

  /// Decision entries that pass `filter`, by decision and then level.
  Result<DecisionTally> DecisionCounts(const AuditFilter& filter);

  /// Deletes entries older than `cutoff` and records a checkpoint. A no-op
  /// when nothing is that old.
  Result<PruneReport> PruneBefore(std::chrono::system_clock::time_point cutoff);

  /// PruneBefore(now - retention_days); retention_days <= 0 keeps everything.
  Result<PruneReport> ApplyRetention(int retention_days);

 private:
  Database* database_;
  AuditOptions options_;
};

/// `time` formatted as stored ("YYYY-MM-DDTHH:MM:SS.ffffffZ").
std::string FormatAuditTime(std::chrono::system_clock::time_point time);

}  // namespace togmal::store
