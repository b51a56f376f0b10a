#include "write_transaction.h"

#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>

#include "togmal/store/database.h"

namespace togmal::store {

// IMMEDIATE takes the write lock before anything is read: two processes can
// never chain an audit entry onto the same tip.
WriteTransaction::WriteTransaction(Database& database) : database_(database) {
  database_.Prepared("BEGIN IMMEDIATE").exec();
}

WriteTransaction::~WriteTransaction() {
  if (!open_) return;
  try {
    database_.Prepared("ROLLBACK").exec();
  } catch (const SQLite::Exception&) {
    // SQLite rolls back by itself after some failures; nothing is left to undo.
  }
}

void WriteTransaction::Commit() {
  if (!open_) throw SQLite::Exception("Transaction already committed.");
  database_.Prepared("COMMIT").exec();
  open_ = false;
}

}  // namespace togmal::store
