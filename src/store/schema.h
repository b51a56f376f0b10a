#pragma once
// The ordered schema migrations. Private to the store.

#include <span>

namespace SQLite {
class Database;
}  // namespace SQLite

namespace togmal::store {

struct Migration {
  int version;      // user_version after this migration
  const char* sql;  // statements run inside one transaction
  // Run after `sql`, in the same transaction, for what SQL cannot compute.
  void (*then)(SQLite::Database& db) = nullptr;
};

/// Version 5: every allow grant's fingerprint (and code) computed again from
/// its stored tool, input and directory, now that a fingerprint names only
/// the action (allow_grants.cpp). A grant whose stored input had a secret
/// redacted cannot be re-keyed and matches nothing (the call as stored
/// never comes again); it expires or is revoked as before.
void RekeyAllowGrants(SQLite::Database& db);

/// All migrations, ascending by version; the last one's version is
/// kSchemaVersion.
std::span<const Migration> Migrations();

}  // namespace togmal::store
