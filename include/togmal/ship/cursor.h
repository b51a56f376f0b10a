#pragma once
/// How far each destination has acknowledged the audit trail: one row per
/// destination in the ship_cursor table (schema version 6). The cursor only
/// moves forward, and only past a batch the destination acknowledged.

#include <cstdint>
#include <string_view>

#include "togmal/util/result.h"

namespace togmal::store {
class Database;
}

namespace togmal::ship {

/// The id of the last acknowledged entry for `destination`; 0 when nothing
/// was shipped there yet.
Result<int64_t> ReadShipCursor(store::Database& database, std::string_view destination);

/// Records that `destination` acknowledged every entry up to `through_id`.
/// Never moves a cursor back (a slower concurrent run cannot undo a faster one).
Result<void> AdvanceShipCursor(store::Database& database, std::string_view destination,
                               int64_t through_id);

}  // namespace togmal::ship
