#pragma once
/// The `togmal_check_tool_call` MCP tool: the hook's decision (check::Judge)
/// without a process per call. Claude Code's `mcp_tool` hook handler can call
/// it with flat substituted fields; `response_format: "hook"` makes its text
/// exactly the PreToolUse hook answer. SAMPLE rules ask the client's model
/// (sampling/createMessage) when the client offers sampling.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "togmal/check/judge.h"
#include "togmal/mcp/tool.h"
#include "togmal/rules/active_rules.h"
#include "togmal/rules/decision.h"
#include "togmal/util/result.h"

namespace togmal::store {
struct AuditEntry;
struct AuditOptions;
class SharedDatabase;
}  // namespace togmal::store

namespace togmal::tools {

struct CheckToolCallOptions {
  /// The rules in force (reloaded by the server's watcher).
  std::shared_ptr<rules::ActiveRules> rules;
  /// The `hook:` settings (level mapping, on_error).
  rules::DecisionSettings settings;
  /// Settings files or sections left out because they could not be loaded:
  /// check::Policy::broken_settings of every call (no call is auto-approved).
  std::vector<std::string> broken_settings;
  /// Appends an entry to the audit trail and returns its id. Called from
  /// worker threads; the function serialises access itself.
  std::function<Result<int64_t>(store::AuditEntry)> append_audit;
  /// `togmal allow` grants for denied or asked calls; empty: none apply.
  check::GrantLookup grants;
  /// Hot reload: watch the user rule file (inotify); on a change reload and
  /// validate it, swap atomically (a broken file keeps the old rules, and no
  /// call is auto-approved until it loads), audit a
  /// config_change either way, and on success call resource_changed with
  /// "config://rules".
  bool hot_reload = false;
  std::function<void(const std::string&)> resource_changed;
};

/// What `serve` uses: the rules loaded (ActiveRules::Reload; a broken user
/// file is left out with a warning, the built-in rules stay in force and
/// nothing is auto-approved), the
/// `hook:` settings, and audit appends to `database`.
Result<CheckToolCallOptions> ServeCheckToolCallOptions(
    std::shared_ptr<store::SharedDatabase> database, const store::AuditOptions& audit);

/// Registers togmal_check_tool_call and the resource config://rules.
void RegisterCheckToolCallTools(mcp::ToolRegistry& registry, mcp::ResourceRegistry& resources,
                                CheckToolCallOptions options);

}  // namespace togmal::tools
