// The guard protects itself: togmal's own files (configuration, data
// directory and audit database, its binary, project .togmal/ directories)
// and the agent hosts' settings that register it are never auto-approved
// targets, wherever the agent runs. The globs are the `guard` and
// `audit_database` path lists; the directories the environment moves
// (XDG_CONFIG_HOME, XDG_DATA_HOME, TOGMAL_DB) and the running binary are added here.
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>

#include "walker.h"

namespace togmal::policy {
namespace {

bool Under(std::string_view path, std::string_view root) {
  if (root.empty() || (root.front() != '/' && root.front() != '~')) return false;
  if (path == root) return true;
  return path.size() > root.size() && path.substr(0, root.size()) == root &&
         path[root.size()] == '/';
}

std::string EnvDir(const char* name, std::string_view suffix) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value != '/') return {};
  return std::filesystem::path(std::string(value) + std::string(suffix)).lexically_normal();
}

/// The running togmal binary (read once: it does not move while we run).
const std::string& OwnBinary() {
  static const std::string path = [] {
    std::array<char, 4096> buffer{};
    const ssize_t size = ::readlink("/proc/self/exe", buffer.data(), buffer.size() - 1);
    return size > 0 ? std::string(buffer.data(), static_cast<std::size_t>(size)) : std::string();
  }();
  return path;
}

bool ChangesData(std::string_view statement) {
  const std::string lower = util::AsciiLower(statement);
  for (std::string_view verb : {"delete", "update", "insert", "drop", "alter", "replace",
                                "truncate", "vacuum", "create", ".restore", ".import", "pragma"}) {
    if (lower.find(verb) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

Walker::Guarded Walker::GuardedPath(std::string_view path) const {
  if (path.empty() || path.size() > 4096) return Guarded::kNo;
  // Compared as a case-insensitive file system would open them (macOS,
  // Windows): `.CLAUDE/Settings.json` is the host's settings file there.
  const std::string resolved = FoldPath(Resolve(path));
  const std::string normalized = FoldPath(NormalizePath(Resolve(path)));
  const std::string as_written = FoldPath(NormalizePath(path));
  if (PathListMatches(tables_.audit_database, normalized) ||
      PathListMatches(tables_.audit_database, as_written)) {
    return Guarded::kAuditDatabase;
  }
  if (const std::string db = FoldPath(EnvDir("TOGMAL_DB", "")); !db.empty()) {
    for (std::string_view suffix : {"", "-wal", "-shm", "-journal"}) {
      if (resolved == db + std::string(suffix)) return Guarded::kAuditDatabase;
    }
  }
  if (PathListMatches(tables_.guard, normalized) || PathListMatches(tables_.guard, as_written)) {
    return Guarded::kGuardFile;
  }
  for (const std::string& root :
       {EnvDir("XDG_CONFIG_HOME", "/togmal"), EnvDir("XDG_DATA_HOME", "/togmal"), OwnBinary()}) {
    if (!root.empty() && Under(resolved, FoldPath(root))) {
      return Guarded::kGuardFile;
    }
  }
  return Guarded::kNo;
}

void Walker::CheckGuardWord(std::string_view word, Level level, bool copy_source, bool sql,
                            std::string_view statement, std::string_view segment) {
  if (level < Level::kL1 || word.empty() || word.find_first_of(" \t\n") != std::string_view::npos)
    return;  // reading the guard's files is fine
  const Guarded guarded = GuardedPath(word);
  if (guarded == Guarded::kNo || copy_source) return;
  const std::string shown = "'" + util::OneLine(word, 80) + "'";
  if (guarded == Guarded::kAuditDatabase && (!sql || ChangesData(statement))) {
    Add(Level::kL3, "Changes, moves or deletes " + shown + ", togmal's audit trail.", segment);
    return;
  }
  Add(Max(level, Level::kL2),
      "Changes " + shown + ", one of togmal's own files or the agent settings that register it.",
      segment);
}

}  // namespace togmal::policy
