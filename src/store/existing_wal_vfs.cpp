#include "existing_wal_vfs.h"

#include <sqlite3.h>
#include <unistd.h>

#include <mutex>

namespace togmal::store {
namespace {

constexpr const char* kName = "togmal-existing-wal";

sqlite3_vfs* base_vfs = nullptr;  // SQLite's default, whose xOpen does the work
sqlite3_vfs existing_wal_vfs;     // a copy of it with OpenFile as xOpen

int OpenFile(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  if ((flags & SQLITE_OPEN_WAL) != 0 && (flags & SQLITE_OPEN_CREATE) != 0 && name != nullptr &&
      ::access(name, F_OK) == 0) {
    const int rc = base_vfs->xOpen(base_vfs, name, file, flags & ~SQLITE_OPEN_CREATE, out_flags);
    // Deleted since access()? Then create it after all (a failed xOpen
    // leaves `file` closed, ready for another attempt).
    if (rc == SQLITE_OK) return rc;
  }
  return base_vfs->xOpen(base_vfs, name, file, flags, out_flags);
}

}  // namespace

const char* ExistingWalVfs() {
  static std::once_flag once;
  static bool registered = false;
  std::call_once(once, [] {
    base_vfs = sqlite3_vfs_find(nullptr);
    if (base_vfs == nullptr) return;
    // Everything but xOpen is the default VFS's own, and so is pAppData, which
    // some of its methods read.
    existing_wal_vfs = *base_vfs;
    existing_wal_vfs.zName = kName;
    existing_wal_vfs.pNext = nullptr;
    existing_wal_vfs.xOpen = OpenFile;
    registered = sqlite3_vfs_register(&existing_wal_vfs, /*makeDflt=*/0) == SQLITE_OK;
  });
  return registered ? kName : nullptr;
}

}  // namespace togmal::store
