#pragma once
/// `togmal hook`: an agent host's pre-tool command hook (Claude Code's
/// PreToolUse by default; the other hosts' formats are in hook/host.h). One JSON object in,
/// one JSON line out, always: malformed input and internal errors become
/// `ask` (or `deny`, by `hook.on_error`), never a crash and never a silent
/// allow. The decision (check::Judge) is audited before it is printed.
///
/// Claude Code lets a call through when its hook crashes, prints nothing or
/// runs past its timeout, so the process also keeps a wall-clock budget: past
/// it, a watchdog thread prints `hook.on_error`'s answer itself, whatever the
/// deciding thread is stuck in, and records it afterwards (with the input
/// bounded, as every stored input is), so that neither a locked database nor a
/// huge input delays the answer. If no answer can be written to
/// stdout the process exits 2 with the reason on stderr, which Claude Code
/// treats as a block.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "togmal/hook/host.h"

namespace togmal::hook {

struct HookOptions {
  /// The audit database; empty = the user's default (check::AuditTarget).
  std::filesystem::path database;
  /// The user's rule file; std::nullopt = rules::UserRulesPath().
  std::optional<std::filesystem::path> user_rules;
  /// Whose input is read and in whose format the answer is written.
  Host host = Host::kClaude;
};

/// Largest hook input read; a bigger one is answered as malformed.
inline constexpr std::size_t kMaxHookInputBytes = 64u << 20;

/// Decides the call in `input` and returns the JSON line to print (with the
/// trailing newline). Never throws. No budget: the in-process form, for
/// tests and benchmarks.
std::string RunPreToolUse(std::string_view input, const HookOptions& options);

/// The whole hook process: reads stdin (at most kMaxHookInputBytes), decides
/// within settings.yaml's `hook.budget_ms` (1 s), writes the answer to stdout. Returns the exit
/// code: 0, or 2 when the answer could not be written (reason on stderr).
int RunHookProcess(const HookOptions& options);

}  // namespace togmal::hook
