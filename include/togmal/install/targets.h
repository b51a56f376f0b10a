#pragma once
/// Where each agent host registers togmal, and what togmal adds there.
/// This is data about the hosts, not logic: installer.h applies it.
///
///   target          | scope   | file
///   claude-code     | user    | ~/.claude/settings.json            hooks.PreToolUse, PostToolUse,
///                   |         |                                    PostToolUseFailure,
///                   |         |                                    PermissionDenied, PostToolBatch
///                   | project | DIR/.claude/settings.json,         and DIR/.mcp.json
///                   |         |                                    mcpServers.togmal
///                   | local   | DIR/.claude/settings.local.json
///                   | managed | /etc/claude-code/managed-settings.d/50-togmal.json (the
///                   |         | hooks, for every user of the machine), and
///                   |         | /etc/claude-code/managed-mcp.json mcpServers.togmal when
///                   |         | that file exists (it takes exclusive control of MCP
///                   |         | servers: togmal never creates it)
///   claude-desktop  | user    | claude_desktop_config.json (per OS) mcpServers.togmal
///   gemini          | user    | ~/.gemini/settings.json            hooks.BeforeTool
///                   | project | DIR/.gemini/settings.json
///   codex           | user    | $CODEX_HOME/hooks.json (~/.codex)  hooks.PreToolUse
///                   | project | DIR/.codex/hooks.json
///   copilot         | user    | $COPILOT_HOME/hooks/togmal.json    hooks.preToolUse
///                   | project | DIR/.github/hooks/togmal.json
///   cursor          | user    | ~/.cursor/hooks.json               hooks.beforeShellExecution,
///                   | project | DIR/.cursor/hooks.json             beforeReadFile,
///                   beforeMCPExecution

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/install/json_file.h"
#include "togmal/util/result.h"

namespace togmal::install {

enum class Scope { kUser, kProject, kLocal, kManaged };

/// "user", "project", "local", "managed".
std::string_view ScopeName(Scope scope);
std::optional<Scope> ScopeNamed(std::string_view name);

/// One change to one JSON file.
struct Edit {
  enum class Kind {
    /// Append `value` to the array at `path` unless an element of it
    /// already runs `togmal hook` (then only its command is brought up to date).
    kAppendHook,
    /// Set the key at `path` to `value` (an MCP server entry).
    kSetServer,
    /// Set the key at `path` to `value` when it is missing (a format version).
    kDefault,
  };
  Kind kind;
  std::vector<std::string> path;
  OrderedJson value;
};

/// Everything one target adds to one file.
struct FilePlan {
  std::filesystem::path file;
  std::vector<Edit> edits;
};

/// Where the files are: the home directory and, for project and local
/// scopes, the project directory. `os` is "linux", "macos" or "windows"
/// (claude_desktop_config.json's place depends on it).
struct Places {
  std::filesystem::path home;
  std::filesystem::path project;
  std::string os = "linux";
  std::filesystem::path xdg_config_home;  ///< empty: home/.config
  std::filesystem::path appdata;          ///< Windows %APPDATA%
  std::filesystem::path codex_home;       ///< empty: home/.codex
  std::filesystem::path copilot_home;     ///< empty: home/.copilot
  /// Claude Code's managed settings folder (util::ClaudeManagedDir(), fixed
  /// at build time); empty: no managed scope.
  std::filesystem::path claude_managed;
};

/// A host togmal can be installed into.
struct Target {
  std::string_view name;          ///< "claude-code", …
  std::string_view description;   ///< for --help
  std::span<const Scope> scopes;  ///< the first is the default
};

std::span<const Target> Targets();
const Target* FindTarget(std::string_view name);

/// The files `target` changes in `scope`, and what it adds to each.
/// `binary` is togmal's absolute path (the hook and server commands use it).
Result<std::vector<FilePlan>> PlanFor(const Target& target, Scope scope, const Places& places,
                                      const std::filesystem::path& binary);

/// The hook command for `host` ("" = claude's default): BINARY hook [--host H],
/// the binary quoted when it holds a space.
std::string HookCommand(const std::filesystem::path& binary, std::string_view host);

/// True if `command` runs `togmal hook` (any path to a program named togmal),
/// whichever host it names: what uninstall removes and doctor looks for.
bool IsTogmalHookCommand(std::string_view command);

/// True if `value` (an element of a hooks array, at any depth) holds a
/// togmal hook command.
bool HoldsTogmalHook(const OrderedJson& value);

}  // namespace togmal::install
