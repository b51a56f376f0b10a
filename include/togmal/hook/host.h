#pragma once
/// The agent hosts `togmal hook --host NAME` speaks to. Each host sends its
/// own JSON on stdin and reads its own answer on stdout; the decision in
/// between is always check::Judge's. This header is the whole difference:
/// a parser from the host's input to policy::ToolCall (with the host's
/// tool names mapped to the ones togmal's classifier and rules know) and a
/// writer from rules::Decision to the host's answer.
///
///   host     | stdin                                   | stdout
///   claude   | {tool_name, tool_input, cwd, …}         |
///   {hookSpecificOutput:{permissionDecision,…}} codex    | as claude (Codex runs Claude's engine)
///   | as claude gemini   | BeforeTool {tool_name, tool_input, cwd} | {decision, reason} copilot  |
///   preToolUse {toolName, toolArgs: "JSON"}  | {permissionDecision, permissionDecisionReason}
///   cursor   | beforeShellExecution / beforeReadFile / | {permission, user_message, agent_message}
///            | beforeMCPExecution                      |

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "togmal/check/tool_call.h"
#include "togmal/rules/decision.h"
#include "togmal/util/result.h"

namespace togmal::hook {

enum class Host { kClaude, kCodex, kGemini, kCopilot, kCursor };

/// "claude", "codex", "gemini", "copilot", "cursor".
std::string_view HostName(Host host);
/// The host called `name`, or std::nullopt.
std::optional<Host> HostNamed(std::string_view name);
/// Every host's name, in HostName's order.
std::span<const std::string_view> HostNames();

/// Parses what `host` writes to its pre-tool hook's stdin. Tool names and
/// input fields are mapped to togmal's (Claude Code's) where the meaning is
/// the same; a tool with no counterpart keeps its host name, which the
/// classifier treats as unknown (never as harmless). Errors as for
/// ParseHookInput: the caller fails safe.
Result<policy::ToolCall> ParseHostInput(Host host, std::string_view text);

/// `decision` in `host`'s answer format: one JSON line with its newline.
/// `event` is the parsed call's hook_event_name (Cursor's file-read hook
/// cannot ask, so an ask becomes a deny there); empty when unknown.
std::string HostAnswer(Host host, const rules::Decision& decision, std::string_view event = {});

/// A fixed, valid "ask" answer for `host`, for when building one failed.
std::string_view LastResortAnswer(Host host);

/// Why the hook answers on_error's decision when a signal stops it first.
inline constexpr std::string_view kStoppedBySignal =
    "the hook was stopped by a signal before it decided";

/// HostAnswer(host, rules::ErrorDecision({}, kStoppedBySignal)) as fixed
/// text: the answer a signal gets with hook.on_error at its default (ask),
/// ready before anything is formatted (hook/dying_answer.h).
std::string_view StoppedBySignalAnswer(Host host);

}  // namespace togmal::hook
