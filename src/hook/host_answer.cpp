// Each host's answer to its pre-tool hook, and the host names.
#include <array>
#include <string>
#include <string_view>

#include "togmal/check/judge.h"
#include "togmal/hook/host.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/text.h"

namespace togmal::hook {
namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, 5> kHostNames = {"claude", "codex", "gemini", "copilot",
                                                        "cursor"};

json GeminiAnswer(const rules::Decision& decision) {
  // No decision: Gemini's own approval (its confirmation prompt, or its
  // approval mode) decides.
  if (decision.permission == rules::Permission::kPass) return json::object();
  // Gemini sends `reason` to the model on deny; `systemMessage` is shown
  // to the person.
  json out = {{"decision", rules::PermissionName(decision.permission)},
              {"reason", decision.reason}};
  if (!decision.notice.empty()) out["systemMessage"] = decision.notice;
  return out;
}

json CopilotAnswer(const rules::Decision& decision) {
  // No decision: the CLI's own permission prompt decides.
  if (decision.permission == rules::Permission::kPass) return json::object();
  return {{"permissionDecision", rules::PermissionName(decision.permission)},
          {"permissionDecisionReason", decision.reason}};
}

json CursorAnswer(const rules::Decision& decision, std::string_view event) {
  // beforeReadFile answers allow or deny only: what would be asked is refused.
  rules::Permission permission = decision.permission;
  std::string reason = decision.reason;
  // The parser marks Cursor as a host without a gate, so a pass is resolved
  // before it gets here; should one arrive, it is asked.
  if (permission == rules::Permission::kPass) permission = rules::Permission::kAsk;
  if (event == "beforeReadFile" && permission == rules::Permission::kAsk) {
    permission = rules::Permission::kDeny;
    reason += " (Cursor cannot ask before a file read, so togmal refuses it)";
  }
  return {{"permission", rules::PermissionName(permission)},
          {"user_message", decision.notice.empty() ? reason : decision.notice},
          {"agent_message", reason}};
}

}  // namespace

std::string_view HostName(Host host) { return kHostNames[static_cast<std::size_t>(host)]; }

std::optional<Host> HostNamed(std::string_view name) {
  for (std::size_t i = 0; i < kHostNames.size(); ++i) {
    if (kHostNames[i] == name) return static_cast<Host>(i);
  }
  return std::nullopt;
}

std::span<const std::string_view> HostNames() { return kHostNames; }

std::string HostAnswer(Host host, const rules::Decision& decision, std::string_view event) {
  try {
    json out;
    switch (host) {
      case Host::kClaude:
      case Host::kCodex:
        out = check::ClaudeHookAnswer(decision);
        break;
      case Host::kGemini:
        out = GeminiAnswer(decision);
        break;
      case Host::kCopilot:
        out = CopilotAnswer(decision);
        break;
      case Host::kCursor:
        out = CursorAnswer(decision, event);
        break;
    }
    return util::DumpJson(out) + "\n";
  } catch (...) {
    return std::string(LastResortAnswer(host));
  }
}

std::string_view LastResortAnswer(Host host) {
  switch (host) {
    case Host::kClaude:
    case Host::kCodex:
      break;
    case Host::kGemini:
      return R"x({"decision":"ask","reason":"togmal error: could not build an answer (asking to be safe)"})x"
             "\n";
    case Host::kCopilot:
      return R"x({"permissionDecision":"ask","permissionDecisionReason":"togmal error: could not build an answer (asking to be safe)"})x"
             "\n";
    case Host::kCursor:
      return R"x({"permission":"ask","user_message":"togmal error: could not build an answer (asking to be safe)","agent_message":"togmal error: could not build an answer (asking to be safe)"})x"
             "\n";
  }
  return R"x({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask",)x"
         R"x("permissionDecisionReason":"togmal error: could not build an answer (asking to be safe)"}})x"
         "\n";
}

std::string_view StoppedBySignalAnswer(Host host) {
  // host_test.cpp checks that each equals what HostAnswer would write.
  switch (host) {
    case Host::kClaude:
    case Host::kCodex:
      break;
    case Host::kGemini:
      return R"x({"decision":"ask","reason":"togmal error: the hook was stopped by a signal before it decided (asking to be safe)"})x"
             "\n";
    case Host::kCopilot:
      return R"x({"permissionDecision":"ask","permissionDecisionReason":"togmal error: the hook was stopped by a signal before it decided (asking to be safe)"})x"
             "\n";
    case Host::kCursor:
      return R"x({"agent_message":"togmal error: the hook was stopped by a signal before it decided (asking to be safe)","permission":"ask","user_message":"togmal error: the hook was stopped by a signal before it decided (asking to be safe)"})x"
             "\n";
  }
  return R"x({"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask",)x"
         R"x("permissionDecisionReason":"togmal error: the hook was stopped by a signal before it decided (asking to be safe)"}})x"
         "\n";
}

}  // namespace togmal::hook
