#pragma once
/// What every destination ships of one audit entry: the stored columns as
/// they are (secrets already redacted when the entry was written; the raw
/// input is never read again), its sequence number and its chain hashes, so
/// that the receiving side can verify the chain (docs/shipping.md).

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "togmal/store/audit_log.h"

namespace togmal::ship {

/// Where the entries come from, the same for every entry of a run.
struct ShipContext {
  std::string host;     ///< this machine's name (gethostname)
  std::string version;  ///< togmal's version
};

/// The context of this process: the host name and togmal's version.
ShipContext CurrentContext();

/// One named value; integers stay integers (seq) for receivers that sort.
struct Attribute {
  std::string key;
  std::variant<std::string, int64_t> value;
};

/// kind, decision, level, tool, project, session, rule, source, host, seq,
/// prev_hash, hash — the empty ones left out, seq and the hashes always there.
std::vector<Attribute> EntryAttributes(const store::AuditEntry& entry, const ShipContext& context);

/// The body: the stored (redacted) input as compact JSON; for entries
/// without an input (config changes, checkpoints) the stored detail.
std::string EntryBody(const store::AuditEntry& entry);

/// The directory the call ran in (detail.cwd), or "".
std::string EntryProject(const store::AuditEntry& entry);

/// How much an entry matters to whoever reads the log: a deny is a warning,
/// an ask a notice, everything else (allow, pass, outcomes, config) info.
enum class Severity { kInfo, kNotice, kWarning };
Severity EntrySeverity(const store::AuditEntry& entry);

}  // namespace togmal::ship
