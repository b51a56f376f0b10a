// Claude Code's own state file (~/.claude.json), read to know which MCP
// servers it has: `claude mcp add --scope user|local` writes there, and it
// records there which of a project's .mcp.json servers the person approved.
// togmal never writes it (Claude Code rewrites it while it runs).
#include <algorithm>

#include "togmal/install/installer.h"
#include "togmal/install/json_file.h"

namespace togmal::install {
namespace {

namespace fs = std::filesystem;

// The project's entry under `projects`: Claude Code keys it by the
// directory it was started in, which may be written through a link.
const OrderedJson* ProjectEntry(const OrderedJson& state, const fs::path& project) {
  auto projects = state.find("projects");
  if (projects == state.end() || !projects->is_object()) return nullptr;
  std::error_code error;
  for (const fs::path& key : {project, fs::weakly_canonical(project, error)}) {
    auto entry = projects->find(key.string());
    if (entry != projects->end() && entry->is_object()) return &*entry;
  }
  return nullptr;
}

bool Lists(const OrderedJson& object, const char* key, const std::string& name) {
  auto list = object.find(key);
  return list != object.end() && list->is_array() &&
         std::find(list->begin(), list->end(), name) != list->end();
}

}  // namespace

fs::path ClaudeStateFile(const Places& places) { return places.home / ".claude.json"; }

Result<OrderedJson> ClaudeMcpServer(const Places& places, Scope scope) {
  auto state = LoadJsonFile(ClaudeStateFile(places));
  if (!state) return Fail(state.error());
  const OrderedJson* holder = &state->value;
  if (scope == Scope::kLocal) holder = ProjectEntry(state->value, places.project);
  if (holder == nullptr) return OrderedJson();
  auto servers = holder->find("mcpServers");
  if (servers == holder->end() || !servers->is_object()) return OrderedJson();
  auto server = servers->find("togmal");
  return server == servers->end() ? OrderedJson() : *server;
}

bool ClaudeProjectServerApproved(const Places& places) {
  const std::string name = "togmal";
  auto state = LoadJsonFile(ClaudeStateFile(places));
  if (state) {
    if (const OrderedJson* entry = ProjectEntry(state->value, places.project)) {
      if (Lists(*entry, "disabledMcpjsonServers", name)) return false;
      if (Lists(*entry, "enabledMcpjsonServers", name)) return true;
      if (entry->value("enableAllProjectMcpServers", false)) return true;
    }
  }
  // The same two settings in Claude Code's settings files.
  for (const fs::path& file :
       {places.home / ".claude/settings.json", places.project / ".claude/settings.json",
        places.project / ".claude/settings.local.json"}) {
    auto settings = LoadJsonFile(file);
    if (!settings) continue;
    if (Lists(settings->value, "enabledMcpjsonServers", name)) return true;
    auto all = settings->value.find("enableAllProjectMcpServers");
    if (all != settings->value.end() && all->is_boolean() && all->get<bool>()) return true;
  }
  return false;
}

}  // namespace togmal::install
