#pragma once
// A SQLite VFS for short-lived writers (the hook): SQLite's default one, except
// that a WAL file which already exists is opened without the create flag.
//
// Why: SQLite fsyncs the folder after the first sync of a journal or WAL it
// opened with the create flag, so that a newly created file's name survives a
// crash. Every hook process opens the WAL anew, so every call paid that
// folder fsync (~0.1 ms on the benchmark machine) for a file that was created
// long before (and whose name was made durable then). A missing WAL is still
// created, with the folder fsync. Internal to togmal_store.

namespace togmal::store {

/// Registers the VFS (not as the default) on first use; its name for
/// sqlite3_open_v2, or nullptr when SQLite refused it (use the default then).
/// Call after SQLite's process-wide configuration.
const char* ExistingWalVfs();

}  // namespace togmal::store
