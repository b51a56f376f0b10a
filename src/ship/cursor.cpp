#include "togmal/ship/cursor.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include <chrono>
#include <string>

#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::ship {

Result<int64_t> ReadShipCursor(store::Database& database, std::string_view destination) {
  try {
    SQLite::Statement query(database.sql(),
                            "SELECT through_id FROM ship_cursor WHERE destination = ?");
    query.bind(1, std::string(destination));
    return query.executeStep() ? query.getColumn(0).getInt64() : int64_t{0};
  } catch (const SQLite::Exception& e) {
    return Fail("cannot read the shipping cursor: " +
                store::DescribeSqliteError(database.path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<void> AdvanceShipCursor(store::Database& database, std::string_view destination,
                               int64_t through_id) {
  try {
    SQLite::Statement upsert(
        database.sql(),
        "INSERT INTO ship_cursor (destination, through_id, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (destination) DO UPDATE SET through_id = excluded.through_id, "
        "updated_at = excluded.updated_at WHERE excluded.through_id > ship_cursor.through_id");
    upsert.bind(1, std::string(destination));
    upsert.bind(2, through_id);
    upsert.bind(3, store::FormatAuditTime(std::chrono::system_clock::now()));
    upsert.exec();
    return {};
  } catch (const SQLite::Exception& e) {
    return Fail("cannot record the shipping cursor: " +
                store::DescribeSqliteError(database.path(), e.getExtendedErrorCode(), e.what()));
  }
}

}  // namespace togmal::ship
