#pragma once
/// The administrator's places, fixed when togmal is built (CMake cache
/// variables TOGMAL_SYSTEM_CONFIG_DIR, default /etc/togmal, and
/// TOGMAL_CLAUDE_MANAGED_DIR, default /etc/claude-code). No environment
/// variable, XDG directory, file in $HOME or in a project moves them: the
/// system layer is the one policy an agent cannot reach. Tests reach these
/// paths in a mount namespace, not through a switch in the binary.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "togmal/util/result.h"

namespace togmal::util {

/// The system layer's folder (settings.yaml, rules.yaml).
std::filesystem::path SystemConfigDir();
/// A file in SystemConfigDir().
std::filesystem::path SystemConfigFile(std::string_view name);

/// Claude Code's managed settings folder on Linux (managed-settings.json,
/// managed-settings.d/, managed-mcp.json).
std::filesystem::path ClaudeManagedDir();

/// Reads a file of the system layer, which counts only when nobody but root
/// could have written it: the file (after following links) and its folder
/// must be owned by root and writable by neither group nor others.
/// std::nullopt when nothing exists at `path` (there is no system layer);
/// fails, naming the path and why, when it exists but may not be trusted or
/// read (ReadConfigFile's limits apply too).
Result<std::optional<std::string>> ReadSystemConfigFile(const std::filesystem::path& path);

/// Why `path` may not be trusted as a system file (owner, mode), or ""
/// when it may. Exposed for the tests of that check.
std::string UntrustedSystemFile(const std::filesystem::path& path);

}  // namespace togmal::util
