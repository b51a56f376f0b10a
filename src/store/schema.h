#pragma once
// The ordered schema migrations. Private to the store.

#include <span>

namespace togmal::store {

struct Migration {
  int version;      // user_version after this migration
  const char* sql;  // statements run inside one transaction
};

/// All migrations, ascending by version; the last one's version is
/// kSchemaVersion.
std::span<const Migration> Migrations();

}  // namespace togmal::store
