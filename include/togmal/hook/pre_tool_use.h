#pragma once
/// `togmal hook`: Claude Code's PreToolUse command hook (design.md §2.2). One
/// JSON object in, one JSON line out, exit 0, always: malformed input and
/// internal errors become `ask` (or `deny`, per settings), never a crash and
/// never a silent allow. The decision is audited before it is printed.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace togmal::hook {

struct HookOptions {
  /// The audit database; empty = store::DefaultDatabasePath().
  std::filesystem::path database;
  /// The user's rule file; std::nullopt = rules::UserRulesPath().
  std::optional<std::filesystem::path> user_rules;
};

/// Largest hook input read; a bigger one is answered as malformed.
inline constexpr std::size_t kMaxHookInputBytes = 64u << 20;

/// Decides the call in `input` and returns the JSON line to print (with the
/// trailing newline). Never throws.
std::string RunPreToolUse(std::string_view input, const HookOptions& options);

}  // namespace togmal::hook
