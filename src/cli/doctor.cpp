// `togmal doctor`: is togmal set up and working? Which hosts run it: each
// host's hook (and whether the binary it runs exists) and MCP server, each
// file once, what the person must still do in the host (a "to do": Codex's
// hook trust, Claude Code's approval of a project server, Gemini's trusted
// folders), the backups install keeps; do the configuration layers load, is
// the database writable and its audit chain intact, what were the last
// decisions. Every problem comes with its fix; the exit code is 1 if there is
// one.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "command.h"
#include "database_option.h"
#include "togmal/check/judge.h"
#include "togmal/install/installer.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/util/paths.h"
#include "togmal/util/settings_layers.h"
#include "togmal/util/system_paths.h"
#include "togmal/util/text.h"

namespace togmal::cli {
namespace {

namespace fs = std::filesystem;

struct DoctorOptions {
  DatabaseOption db;
  std::string dir;
};

class Checklist {
 public:
  void Ok(const std::string& what) { std::cout << "  ok       " << what << "\n"; }
  void Note(const std::string& what) { std::cout << "  note     " << what << "\n"; }
  /// Something only the person can do (a host's own trust step): not a
  /// problem of the set-up, but not "ok" either.
  void ToDo(const std::string& what) { std::cout << "  to do    " << what << "\n"; }
  void Problem(const std::string& what, const std::string& fix) {
    ++problems_;
    std::cout << "  PROBLEM  " << what << "\n           fix: " << fix << "\n";
  }
  int problems() const { return problems_; }

 private:
  int problems_ = 0;
};

// The program a registered hook command runs (its first word, unquoted).
std::string Program(const std::string& file) {
  auto loaded = install::LoadJsonFile(file);
  if (!loaded) return {};
  std::string found;
  std::function<void(const install::OrderedJson&)> walk = [&](const install::OrderedJson& value) {
    if (!found.empty()) return;
    if (value.is_string() && install::IsTogmalHookCommand(value.get<std::string>())) {
      std::string command = value.get<std::string>();
      if (!command.empty() && command.front() == '"') {
        found = command.substr(1, command.find('"', 1) - 1);
      } else {
        found = command.substr(0, command.find(' '));
      }
    } else if (value.is_structured()) {
      for (const auto& item : value) walk(item);
    }
  };
  walk(loaded->value);
  return found;
}

// Checks one registered hook's command: does the program it runs exist?
// `trust`: what the host needs from the person before it runs a hook that
// is otherwise fine (then a "to do", not "ok").
void CheckHook(const install::Registration& found, const std::string& where, const fs::path& self,
               const std::string& trust, Checklist& report) {
  std::error_code error;
  const std::string program = Program(found.file.string());
  const std::string in = "hook in " + found.file.string();
  if (program.find('/') != std::string::npos && ::access(program.c_str(), X_OK) != 0) {
    report.Problem(where + in + " runs " + program + ", which is not an executable file",
                   "togmal install " + found.target + " --scope " +
                       std::string(install::ScopeName(found.scope)) + " (from the togmal to use)");
  } else if (program.find('/') != std::string::npos &&
             fs::equivalent(program, self, error) == false) {
    report.Note(where + in + " runs " + program + ", not this togmal (" + self.string() + ")");
  } else if (!trust.empty()) {
    report.ToDo(where + in + " runs togmal hook; " + trust);
  } else {
    report.Ok(where + in + " runs togmal hook");
  }
}

void CheckHosts(const install::Places& places, Checklist& report) {
  std::cout << "hosts\n";
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  // Run from $HOME, a project's file is the user's own: it is shown once.
  std::vector<fs::path> shown;
  auto seen = [&](const fs::path& file) {
    return std::any_of(shown.begin(), shown.end(), [&](const fs::path& other) {
      std::error_code ignored;
      return other == file || fs::equivalent(other, file, ignored);
    });
  };
  int registered = 0;
  for (const install::Registration& found : install::FindRegistrations(places, self)) {
    const std::string scope(install::ScopeName(found.scope));
    const std::string where = found.target + " (" + scope + "): ";
    const std::string fix = "togmal install " + found.target + " --scope " + scope;
    if (!found.error.empty()) {
      report.Problem(where + "cannot be read: " + found.error, "fix the file by hand");
      continue;
    }
    const bool hook_part = !found.file.empty() && !seen(found.file);
    // ~/.claude.json holds the user's and each project's servers apart: not a duplicate.
    const bool claude_state = found.mcp_file == install::ClaudeStateFile(places);
    const bool mcp_part = !found.mcp_file.empty() && (claude_state || !seen(found.mcp_file));
    if (!(hook_part && found.registered) && !(mcp_part && found.mcp)) continue;
    ++registered;
    if (hook_part) {
      shown.push_back(found.file);
      std::string trust;
      if (found.target == "gemini" && found.scope == install::Scope::kProject &&
          install::GeminiFolderTrusted(places) == false) {
        trust =
            "Gemini's Trusted Folders is on and does not trust this folder: Gemini ignores the "
            "project's settings, this hook included, until you trust it";
      }
      if (found.target == "codex") {
        trust =
            "Codex runs it only once you trust it: open /hooks in Codex and trust togmal's "
            "PreToolUse hook (Codex keeps that to itself: doctor cannot see whether you have)";
        if (found.scope == install::Scope::kProject) {
          trust += ", and only in a project you trusted";
        }
      }
      if (found.registered) {
        CheckHook(found, where, self, trust, report);
      } else {
        report.Problem(where + "the MCP server is registered, but no hook in " +
                           found.file.string() + ": nothing judges the agent's calls",
                       fix);
      }
    }
    if (mcp_part) {
      if (!claude_state) shown.push_back(found.mcp_file);
      const std::string in = "MCP server togmal in " + found.mcp_file.string();
      if (!found.mcp) {
        report.Problem(where + "no " + in + " (the hook is there)",
                       found.target == "claude-code" && found.scope != install::Scope::kProject
                           ? fix +
                                 " with Claude Code's `claude` on PATH, or claude mcp add "
                                 "--scope " +
                                 scope + " togmal -- " + self.string() + " serve"
                           : fix);
      } else if (found.target == "claude-code" && found.scope == install::Scope::kProject &&
                 !install::ClaudeProjectServerApproved(places)) {
        report.ToDo(where + in +
                    ": Claude Code starts it once you approve it (it asks when it "
                    "starts in this project)");
      } else {
        report.Ok(where + in);
      }
    }
  }
  if (registered == 0) {
    report.Problem("no agent host runs togmal's hook",
                   "togmal install claude-code (or gemini, codex, copilot, cursor)");
  }
}

// The one backup togmal keeps of each file it changed (install.h), and the
// FILE.togmal-backup-STAMP copies older versions left beside the files.
void ListBackups(const install::Places& places, Checklist& report) {
  const fs::path backups = util::UserDataFile("backups");
  std::error_code error;
  std::vector<std::pair<std::string, std::string>> found;
  if (!backups.empty() && fs::is_directory(backups, error)) {
    for (auto it = fs::recursive_directory_iterator(backups, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      if (!it->is_regular_file(error)) continue;
      found.emplace_back("/" + it->path().lexically_relative(backups).string(),
                         it->path().string());
    }
  }
  std::set<fs::path> old;
  for (const install::Registration& registration :
       install::FindRegistrations(places, {}, {}, false)) {
    if (registration.file.empty()) continue;
    const std::string prefix = registration.file.filename().string() + ".togmal-backup-";
    for (const auto& entry : fs::directory_iterator(registration.file.parent_path(), error)) {
      if (entry.path().filename().string().rfind(prefix, 0) == 0) old.insert(entry.path());
    }
    error.clear();
  }
  if (found.empty() && old.empty()) return;
  std::sort(found.begin(), found.end());
  std::cout << "backups (each file as it was before togmal last changed it)\n";
  for (const auto& [file, backup] : found) report.Note(file + ": " + backup);
  for (const fs::path& file : old) {
    report.Note(file.string() + ": left by an older togmal (backups are now kept once, under " +
                backups.string() + "); delete it once you no longer need it");
  }
}

void CheckConfiguration(const fs::path& project, Checklist& report) {
  std::cout << "configuration\n";
  util::SettingsLayers layers = util::LoadSettingsLayers();
  for (const util::SettingsLayer& layer : layers.layers) {
    report.Ok("settings: " + layer.source + (layer.system ? " (system layer)" : ""));
  }
  auto policy = check::LoadPolicy(project, layers);
  if (!policy) {
    report.Problem("the built-in policy does not load: " + policy.error(), "reinstall togmal");
    return;
  }
  for (const std::string& file : policy->rules->files) {
    std::string layer;
    for (const rules::Rule& rule : policy->rules->rules) {
      if (rule.file == file) layer = std::string(rules::LayerName(rule.layer));
    }
    report.Ok("rules: " + file + (layer.empty() ? "" : " (" + layer + " layer)"));
  }
  const bool system_settings = !layers.layers.empty() && layers.layers.back().system;
  const bool system_rules =
      std::any_of(policy->rules->rules.begin(), policy->rules->rules.end(),
                  [](const rules::Rule& rule) { return rule.layer == rules::Layer::kSystem; });
  const std::string system_dir = util::SystemConfigDir().string();
  const auto names_system = [&system_dir](const std::vector<std::string>& broken) {
    return std::any_of(broken.begin(), broken.end(),
                       [&](const std::string& why) { return why.rfind(system_dir, 0) == 0; });
  };
  if (!system_settings && !system_rules && !names_system(policy->broken_settings) &&
      !names_system(policy->rules->ignored)) {
    report.Note("no system layer (" + util::SystemConfigDir().string() +
                "/settings.yaml, rules.yaml): the user's and the project's files decide alone");
  }
  // What the hook does meanwhile is the problem: it asks for every call it
  // would have allowed (or left to the host), everywhere for a user file.
  for (const std::string& why : policy->broken_settings) {
    report.Problem("settings left out: " + why + " (nothing is auto-approved until it is fixed)",
                   why.find("not used as system policy") != std::string::npos
                       ? "as root: chown root:root the file and its folder, chmod go-w both"
                       : "correct the file at that line (`togmal rules validate`)");
  }
  for (const std::string& why : policy->rules->ignored) {
    report.Problem("rules left out: " + why + " (nothing is auto-approved here until it is fixed)",
                   why.find("not used as system policy") != std::string::npos
                       ? "as root: chown root:root the file and its folder, chmod go-w both"
                       : "correct the file at that line (`togmal rules validate`)");
  }
  for (const std::string& warning : policy->rules->warnings) report.Note(warning);
}

void CheckDatabase(const fs::path& path, Checklist& report) {
  std::cout << "database\n";
  auto db = store::Database::Open(path, {.busy_timeout_ms = 1000});
  if (!db) {
    report.Problem(db.error(), "make " + path.parent_path().string() +
                                   " writable, or point TOGMAL_DB (or --db) at a writable place");
    return;
  }
  report.Ok(path.string() + " opens for writing");
  store::AuditLog log(*db);
  auto verify = log.Verify();
  if (!verify) {
    report.Problem("the audit trail cannot be read: " + verify.error(), "togmal audit verify");
  } else if (!verify->ok) {
    report.Problem("the audit chain is broken at entry " +
                       std::to_string(verify->broken_id.value_or(0)) + ": " + verify->problem,
                   "find out who edited the database; keep a copy (sqlite3 .backup) as evidence");
  } else {
    report.Ok("audit chain intact (" + std::to_string(verify->checked) + " entries)");
  }
  auto tail = log.Tail(50);
  if (!tail) return;
  std::vector<const store::AuditEntry*> decisions;
  for (auto it = tail->rbegin(); it != tail->rend() && decisions.size() < 5; ++it) {
    if (it->kind == store::AuditKind::kDecision) decisions.push_back(&*it);
  }
  std::cout << "last decisions\n";
  if (decisions.empty()) std::cout << "  (none yet)\n";
  for (const store::AuditEntry* entry : decisions) {
    std::cout << "  " << entry->time.substr(0, 19) << "  " << entry->decision << "  "
              << entry->level << "  " << entry->tool_name << "  "
              << util::OneLine(entry->input.is_object() && entry->input.contains("command")
                                   ? entry->input["command"].dump()
                                   : entry->input.dump(),
                               80)
              << "\n";
  }
}

}  // namespace

Action DefineDoctor(CLI::App& command) {
  auto options = std::make_shared<DoctorOptions>();
  options->db = AddDatabaseOption(command);
  command.add_option("--dir", options->dir,
                     "The project to check (project-scope hooks, .togmal/rules.yaml; default: the "
                     "current directory)");
  return [options] {
    install::Places places;
    places.home = util::HomeDir().string();
    std::error_code error;
    places.project =
        (options->dir.empty() ? fs::current_path(error) : fs::absolute(options->dir, error))
            .lexically_normal();
    if (const char* value = std::getenv("XDG_CONFIG_HOME")) places.xdg_config_home = value;
    if (const char* value = std::getenv("CODEX_HOME")) places.codex_home = value;
    if (const char* value = std::getenv("COPILOT_HOME")) places.copilot_home = value;
    places.claude_managed = util::ClaudeManagedDir();
    Checklist report;
    CheckHosts(places, report);
    ListBackups(places, report);
    CheckConfiguration(places.project, report);
    CheckDatabase(options->db.Resolve(), report);
    if (report.problems() == 0) {
      std::cout << "no problems found\n";
      return kExitOk;
    }
    std::cout << report.problems() << (report.problems() == 1 ? " problem" : " problems")
              << " found\n";
    return kExitFailure;
  };
}

}  // namespace togmal::cli
