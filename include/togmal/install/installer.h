#pragma once
/// Applies a target's FilePlans (targets.h) to the files on disk.
///
/// Install edits the file's text where togmal's entries go (json_text.h):
/// every other byte stays as it was, and a second install changes nothing.
/// The manifest remembers, per file, what it held before togmal's first
/// install (or that it did not exist), the text togmal last wrote, the
/// containers install created, and the folders it created. Uninstall puts
/// the old file back byte for byte when the file is still what togmal wrote;
/// when someone changed it since, it takes out only togmal's entries (and
/// the containers install created, once empty), again in the text, and says
/// so. Files and folders install created go when they are empty again.
/// Before togmal changes a file the person had, it keeps one copy of it
/// under DATA_DIR/backups/ (the next change replaces it), never beside the file.
/// A file that does not parse is refused (file:line), never rewritten.

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "togmal/install/targets.h"
#include "togmal/util/result.h"

namespace togmal::install {

/// What install did to one file, so that uninstall can undo it.
struct ManifestEntry {
  bool created_file = false;            ///< the file did not exist before install
  std::optional<std::string> original;  ///< its text before install, when known
  std::optional<std::string> written;   ///< the text togmal last wrote
  std::vector<std::string> created;     ///< JSON pointers ("/hooks/PreToolUse")
  /// The file was changed by someone else between two installs: putting the
  /// text before install back would undo that change.
  bool original_lost = false;
  /// Uninstall can put the file back as it was: the person's text, or no file.
  bool Restorable() const { return !original_lost && (created_file || original.has_value()); }
};

/// Every file togmal installed into, by absolute path, and the folders it
/// created for them.
struct Manifest {
  std::map<std::string, ManifestEntry> files;
  std::set<std::string> folders;
};

/// Records in `manifest` what install `change` did (after it was written).
void RecordInstall(Manifest& manifest, const struct FileChange& change);

/// Reads the manifest (a missing file is an empty manifest).
Result<Manifest> LoadManifest(const std::filesystem::path& path);
Result<void> SaveManifest(const std::filesystem::path& path, const Manifest& manifest);

/// One file's planned change.
struct FileChange {
  std::filesystem::path file;
  bool existed = false;
  std::string before;   ///< the file's text ("" when it did not exist)
  std::string after;    ///< the new text (ignored when `remove`)
  bool remove = false;  ///< uninstall deletes the file install created
  /// Uninstall: the file is what togmal wrote, and `after` is (or `remove`
  /// gives back) exactly what was there before install. No backup needed.
  bool restore = false;
  std::vector<std::string> created;  ///< install: containers it creates
  /// Install: the folders that must be created for the file, outermost first.
  std::vector<std::filesystem::path> new_folders;
  std::vector<std::string> notes;  ///< what happened besides plain adding
  bool Changed() const { return remove || before != after; }
  /// "create", "update", "restore" or "remove".
  std::string_view Verb() const;
};

/// The change installing `plan` makes. Fails (naming the file and line) when
/// the file does not parse, or holds something of the wrong type where
/// togmal's entry goes, or a different server under togmal's name.
Result<FileChange> PlanInstall(const FilePlan& plan);

/// The change uninstalling `plan` makes. When the file is still the text
/// `recorded` says togmal wrote, it goes back to what it was (or goes, if
/// install created it). Otherwise every togmal hook and togmal's server
/// entry are cut out of the text; so are the containers `recorded` says
/// install created, once they are empty, and the file itself if install
/// created it and nothing else is left in it.
Result<FileChange> PlanUninstall(const FilePlan& plan, const ManifestEntry* recorded);

/// Where the one backup of `file` is kept under `backups`
/// (DATA_DIR/backups/ + the file's absolute path).
std::filesystem::path BackupPath(const std::filesystem::path& backups,
                                 const std::filesystem::path& file);

/// Whether `change` keeps a backup: a file the person had is about to be
/// changed in a way that cannot simply be redone (not a restore, not a
/// removal of a file install created).
bool NeedsBackup(const FileChange& change);

/// Writes `change`: when NeedsBackup, the old file is first copied to
/// BackupPath(backups, file), replacing the previous backup; the new text
/// replaces the file atomically (a symbolic link's target is written, the
/// link kept), with the old file's permissions; the folders it needs are
/// created. Returns the backup's path, or an empty path when none was kept.
Result<std::filesystem::path> ApplyChange(const FileChange& change,
                                          const std::filesystem::path& backups);

/// The folders in `recorded` (folders install created) that are empty once
/// the files in `removed` are gone, deepest first: uninstall removes them.
std::vector<std::filesystem::path> FoldersLeftEmpty(const std::set<std::string>& recorded,
                                                    const std::set<std::filesystem::path>& removed);

/// Where a target registers togmal, and whether it does: its hook and, for
/// the hosts togmal is an MCP server of, the server.
struct Registration {
  std::string target;
  Scope scope;
  std::filesystem::path file;      ///< the hook's file; empty: the target has no hook
  bool registered = false;         ///< the hook is there
  std::filesystem::path mcp_file;  ///< empty: togmal registers no server there
  bool mcp = false;
  std::string error;  ///< a file could not be read or parsed
};

/// For each target (or only `target`, when given) and scope: is togmal
/// registered there? Claude Code's user and local servers are read from
/// ~/.claude.json (ClaudeMcpServer), its project server from .mcp.json.
/// `with_mcp` false skips the servers (the status line needs only the hook).
std::vector<Registration> FindRegistrations(const Places& places,
                                            const std::filesystem::path& binary,
                                            std::string_view target = {}, bool with_mcp = true);

/// Claude Code's state file, where `claude mcp add --scope user|local`
/// writes: ~/.claude.json. togmal reads it, never writes it.
std::filesystem::path ClaudeStateFile(const Places& places);

/// The server named togmal that Claude Code has in `scope` (user: the
/// top-level `mcpServers`; local: the project's entry under `projects`);
/// null when there is none. Fails when ~/.claude.json does not parse.
Result<OrderedJson> ClaudeMcpServer(const Places& places, Scope scope);

/// Whether the person approved the project's .mcp.json server togmal in
/// Claude Code (`enabledMcpjsonServers` in ~/.claude.json's project entry or
/// a settings file, or `enableAllProjectMcpServers`): Claude Code starts a
/// project's server only then.
bool ClaudeProjectServerApproved(const Places& places);

/// Gemini CLI's Trusted Folders: nullopt when the feature is off (the
/// default; `security.folderTrust.enabled` in ~/.gemini/settings.json),
/// otherwise whether ~/.gemini/trustedFolders.json trusts `places.project`
/// (a TRUST_FOLDER rule for it or a folder above, or a TRUST_PARENT rule for
/// a folder beside it). In a folder it does not trust, Gemini ignores the
/// project's .gemini/settings.json, togmal's hook included.
std::optional<bool> GeminiFolderTrusted(const Places& places);

/// True if `value` is an MCP server entry that runs a program named togmal.
bool IsTogmalServer(const OrderedJson& value);

}  // namespace togmal::install
