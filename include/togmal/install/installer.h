#pragma once
/// Applies a target's FilePlans (targets.h) to the files on disk.
///
/// Install merges togmal's entries into what is there: no key is lost, the
/// keys keep their order and the file its layout, and a second install
/// changes nothing. The containers install had to create (an empty `hooks`
/// object, a `PreToolUse` array, a new file) are recorded in a manifest, so
/// that uninstall removes exactly what install added and nothing the person
/// had. Every changed file is backed up first and replaced atomically; a file
/// that does not parse is refused (file:line), never rewritten.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "togmal/install/targets.h"
#include "togmal/util/result.h"

namespace togmal::install {

/// What install created in one file, so that uninstall can take it away.
struct ManifestEntry {
  bool created_file = false;
  std::vector<std::string> created;  ///< JSON pointers ("/hooks/PreToolUse")
};

/// Every file togmal installed into, by absolute path.
struct Manifest {
  std::map<std::string, ManifestEntry> files;
};

/// Reads the manifest (a missing file is an empty manifest).
Result<Manifest> LoadManifest(const std::filesystem::path& path);
Result<void> SaveManifest(const std::filesystem::path& path, const Manifest& manifest);

/// One file's planned change.
struct FileChange {
  std::filesystem::path file;
  bool existed = false;
  std::string before;                ///< the file's text ("" when it did not exist)
  std::string after;                 ///< the new text (ignored when `remove`)
  bool remove = false;               ///< uninstall deletes the file install created
  std::vector<std::string> created;  ///< install: containers it creates
  std::vector<std::string> notes;    ///< what happened besides plain adding
  bool Changed() const { return remove || before != after; }
};

/// The change installing `plan` makes. Fails (naming the file and line) when
/// the file does not parse, or holds something of the wrong type where
/// togmal's entry goes, or a different server under togmal's name.
Result<FileChange> PlanInstall(const FilePlan& plan);

/// The change uninstalling `plan` makes: every togmal hook and togmal's
/// server entry go; so do the containers `recorded` says install created,
/// once they are empty, and the file itself if install created it and
/// nothing else is left in it.
Result<FileChange> PlanUninstall(const FilePlan& plan, const ManifestEntry* recorded);

/// Writes `change`: the old file is copied to `FILE.togmal-backup-STAMP`
/// first, the new text replaces the file atomically (a symbolic link's
/// target is written, the link kept), with the old file's permissions.
/// Returns the backup's path, or an empty path when there was no old file.
Result<std::filesystem::path> ApplyChange(const FileChange& change, const std::string& stamp);

/// Where a target registers togmal, and whether it does.
struct Registration {
  std::string target;
  Scope scope;
  std::filesystem::path file;
  bool registered = false;
  std::string error;  ///< the file could not be read or parsed
};

/// For each target (or only `target`, when given) and scope: is togmal
/// registered there? (Claude Code's MCP registration through `claude mcp` is
/// not a file of togmal's and is not looked at.)
std::vector<Registration> FindRegistrations(const Places& places,
                                            const std::filesystem::path& binary,
                                            std::string_view target = {});

}  // namespace togmal::install
