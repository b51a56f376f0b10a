#include "togmal/install/targets.h"

#include <array>

namespace togmal::install {
namespace {

namespace fs = std::filesystem;

constexpr Scope kUserOnly[] = {Scope::kUser};
constexpr Scope kUserProject[] = {Scope::kUser, Scope::kProject};
constexpr Scope kClaudeScopes[] = {Scope::kUser, Scope::kProject, Scope::kLocal, Scope::kManaged};

// The managed-settings.d/ fragment togmal owns (Claude Code v2.1.83 and
// later merge every *.json there over managed-settings.json, alphabetically;
// hook arrays are concatenated, so other fragments' hooks stay).
constexpr const char* kManagedFragment = "managed-settings.d/50-togmal.json";

constexpr Target kTargets[] = {
    {"claude-code", "Claude Code: the PreToolUse hook, the after-the-call hooks and the MCP server",
     kClaudeScopes},
    {"claude-desktop", "Claude Desktop: the MCP server", kUserOnly},
    {"gemini", "Gemini CLI: the BeforeTool hook", kUserProject},
    {"codex", "OpenAI Codex CLI: the PreToolUse hook", kUserProject},
    {"copilot", "GitHub Copilot CLI: the preToolUse hook", kUserProject},
    {"cursor", "Cursor: the beforeShellExecution, beforeReadFile and beforeMCPExecution hooks",
     kUserProject},
};

// How long a host waits for the hook: well above togmal's own 1 s budget.
constexpr int kHookTimeoutSeconds = 10;

// Claude Code's events togmal registers for: the decision (PreToolUse) and
// the outcome of a call it handed to the person (hook/after_tool_use.h).
constexpr const char* kClaudeHookEvents[] = {"PreToolUse", "PostToolUse", "PostToolUseFailure",
                                             "PermissionDenied", "PostToolBatch"};

fs::path Or(const fs::path& value, const fs::path& fallback) {
  return value.empty() ? fallback : value;
}

fs::path ClaudeDesktopConfig(const Places& places) {
  if (places.os == "macos") {
    return places.home / "Library/Application Support/Claude/claude_desktop_config.json";
  }
  if (places.os == "windows") {
    return Or(places.appdata, places.home / "AppData/Roaming") /
           "Claude/claude_desktop_config.json";
  }
  return Or(places.xdg_config_home, places.home / ".config") / "Claude/claude_desktop_config.json";
}

Edit AppendHook(std::vector<std::string> path, OrderedJson value) {
  return {Edit::Kind::kAppendHook, std::move(path), std::move(value)};
}

// The first word of a command line, unquoted, and where the rest starts.
std::pair<std::string, std::string_view> FirstWord(std::string_view command) {
  const std::size_t start = command.find_first_not_of(" \t");
  if (start == std::string_view::npos) return {};
  command.remove_prefix(start);
  if (command.front() == '"' || command.front() == '\'') {
    const std::size_t close = command.find(command.front(), 1);
    if (close == std::string_view::npos) return {};
    return {std::string(command.substr(1, close - 1)), command.substr(close + 1)};
  }
  const std::size_t end = command.find_first_of(" \t");
  if (end == std::string_view::npos) return {std::string(command), {}};
  return {std::string(command.substr(0, end)), command.substr(end)};
}

}  // namespace

std::string_view ScopeName(Scope scope) {
  switch (scope) {
    case Scope::kUser:
      return "user";
    case Scope::kProject:
      return "project";
    case Scope::kLocal:
      return "local";
    case Scope::kManaged:
      return "managed";
  }
  return "user";
}

std::optional<Scope> ScopeNamed(std::string_view name) {
  for (Scope scope : kClaudeScopes) {
    if (ScopeName(scope) == name) return scope;
  }
  return std::nullopt;
}

std::span<const Target> Targets() { return kTargets; }

const Target* FindTarget(std::string_view name) {
  for (const Target& target : kTargets) {
    if (target.name == name) return &target;
  }
  return nullptr;
}

std::string HookCommand(const fs::path& binary, std::string_view host) {
  std::string program = binary.string();
  if (program.find_first_of(" \t'\"") != std::string::npos) program = "\"" + program + "\"";
  std::string command = program + " hook";
  if (!host.empty()) command += " --host " + std::string(host);
  return command;
}

bool IsTogmalHookCommand(std::string_view command) {
  auto [program, rest] = FirstWord(command);
  if (fs::path(program).filename() != "togmal") return false;
  auto [word, after] = FirstWord(rest);
  return word == "hook";
}

bool HoldsTogmalHook(const OrderedJson& value) {
  if (value.is_string()) return IsTogmalHookCommand(value.get_ref<const std::string&>());
  if (value.is_structured()) {
    for (const auto& item : value) {
      if (HoldsTogmalHook(item)) return true;
    }
  }
  return false;
}

Result<std::vector<FilePlan>> PlanFor(const Target& target, Scope scope, const Places& places,
                                      const fs::path& binary) {
  bool allowed = false;
  for (Scope s : target.scopes) allowed = allowed || s == scope;
  if (!allowed) {
    std::string scopes;
    for (Scope s : target.scopes)
      scopes += (scopes.empty() ? "" : ", ") + std::string(ScopeName(s));
    return Fail(std::string(target.name) + " has no " + std::string(ScopeName(scope)) +
                " scope (only " + scopes + ")");
  }
  if (scope == Scope::kManaged && places.claude_managed.empty()) {
    return Fail("no managed settings folder is known for the managed scope");
  }
  if (scope != Scope::kUser && scope != Scope::kManaged && places.project.empty()) {
    return Fail("no project directory for the " + std::string(ScopeName(scope)) + " scope");
  }
  const bool user = scope == Scope::kUser;
  const std::string_view name = target.name;
  if (name == "claude-code") {
    const fs::path file = user                       ? places.home / ".claude/settings.json"
                          : scope == Scope::kManaged ? places.claude_managed / kManagedFragment
                          : scope == Scope::kProject
                              ? places.project / ".claude/settings.json"
                              : places.project / ".claude/settings.local.json";
    OrderedJson group = {{"matcher", "*"},
                         {"hooks",
                          {{{"type", "command"},
                            {"command", HookCommand(binary, "")},
                            {"timeout", kHookTimeoutSeconds}}}}};
    // The decision before the call, and what became of it after (the
    // person's answer, hook/after_tool_use.h): the same command reads which
    // event it is given.
    std::vector<Edit> edits;
    for (const char* event : kClaudeHookEvents)
      edits.push_back(AppendHook({"hooks", event}, group));
    std::vector<FilePlan> plans{{file, std::move(edits)}};
    // The project's server goes in .mcp.json, written as `claude mcp add
    // --scope project` writes it (a file committed with the project, so
    // togmal edits it itself and can put it back byte for byte). The user and
    // local servers live in ~/.claude.json, Claude Code's own state file,
    // which only `claude mcp` writes (src/cli/install.cpp).
    if (scope == Scope::kProject) {
      OrderedJson server = {{"type", "stdio"},
                            {"command", binary.string()},
                            {"args", {"serve"}},
                            {"env", OrderedJson::object()}};
      plans.push_back({places.project / ".mcp.json",
                       {{Edit::Kind::kSetServer, {"mcpServers", "togmal"}, server}}});
    }
    // Managed: the one managed place of a local (stdio) server is
    // managed-mcp.json, and its presence alone takes exclusive control of MCP
    // (the servers users added stop loading). togmal joins the file an
    // administrator deployed, and never creates it (docs/hosts.md).
    std::error_code missing;
    const fs::path managed_mcp = places.claude_managed / "managed-mcp.json";
    if (scope == Scope::kManaged && fs::exists(fs::symlink_status(managed_mcp, missing))) {
      OrderedJson server = {{"type", "stdio"}, {"command", binary.string()}, {"args", {"serve"}}};
      plans.push_back({managed_mcp, {{Edit::Kind::kSetServer, {"mcpServers", "togmal"}, server}}});
    }
    return plans;
  }
  if (name == "claude-desktop") {
    OrderedJson server = {{"command", binary.string()}, {"args", {"serve"}}};
    return std::vector<FilePlan>{{ClaudeDesktopConfig(places),
                                  {{Edit::Kind::kSetServer, {"mcpServers", "togmal"}, server}}}};
  }
  if (name == "gemini") {
    const fs::path file = (user ? places.home : places.project) / ".gemini/settings.json";
    // Gemini's matcher is a regular expression; its timeout is in milliseconds.
    OrderedJson group = {{"matcher", ".*"},
                         {"hooks",
                          {{{"name", "togmal"},
                            {"type", "command"},
                            {"command", HookCommand(binary, "gemini")},
                            {"timeout", kHookTimeoutSeconds * 1000}}}}};
    return std::vector<FilePlan>{{file, {AppendHook({"hooks", "BeforeTool"}, group)}}};
  }
  if (name == "codex") {
    const fs::path file = user ? Or(places.codex_home, places.home / ".codex") / "hooks.json"
                               : places.project / ".codex/hooks.json";
    OrderedJson group = {{"hooks",
                          {{{"type", "command"},
                            {"command", HookCommand(binary, "codex")},
                            {"timeout", kHookTimeoutSeconds}}}}};
    return std::vector<FilePlan>{{file, {AppendHook({"hooks", "PreToolUse"}, group)}}};
  }
  if (name == "copilot") {
    const fs::path file =
        user ? Or(places.copilot_home, places.home / ".copilot") / "hooks/togmal.json"
             : places.project / ".github/hooks/togmal.json";
    OrderedJson hook = {{"type", "command"},
                        {"bash", HookCommand(binary, "copilot")},
                        {"timeoutSec", kHookTimeoutSeconds}};
    return std::vector<FilePlan>{
        {file,
         {{Edit::Kind::kDefault, {"version"}, 1}, AppendHook({"hooks", "preToolUse"}, hook)}}};
  }
  if (name == "cursor") {
    const fs::path file = (user ? places.home : places.project) / ".cursor/hooks.json";
    const OrderedJson hook = {{"command", HookCommand(binary, "cursor")}};
    return std::vector<FilePlan>{{file,
                                  {{Edit::Kind::kDefault, {"version"}, 1},
                                   AppendHook({"hooks", "beforeShellExecution"}, hook),
                                   AppendHook({"hooks", "beforeReadFile"}, hook),
                                   AppendHook({"hooks", "beforeMCPExecution"}, hook)}}};
  }
  return Fail("unknown target " + std::string(name));
}

}  // namespace togmal::install
