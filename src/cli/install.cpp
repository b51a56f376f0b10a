// `togmal install TARGET` / `togmal uninstall TARGET`: register togmal with an
// agent host (its hook, and for Claude the MCP server) or take it away again.
// The file merging is install/installer.h; this file is the command line and
// Claude Code's `claude mcp` step.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "command.h"
#include "togmal/install/installer.h"
#include "togmal/install/profile_setting.h"
#include "togmal/install/text_diff.h"
#include "togmal/util/config_file.h"
#include "togmal/util/paths.h"
#include "togmal/util/system_paths.h"

namespace togmal::cli {
namespace {

namespace fs = std::filesystem;

struct InstallOptions {
  std::string target;
  std::string scope;
  std::string dir;
  std::string binary;
  std::string profile;
  bool dry_run = false;
  bool uninstall = false;
};

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

std::string Targets() {
  std::string names;
  for (const install::Target& target : install::Targets()) {
    names += (names.empty() ? "" : ", ") + std::string(target.name);
  }
  return names;
}

// The running binary's absolute path: what the hosts will start.
fs::path SelfPath() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? fs::path("togmal") : self;
}

fs::path FindOnPath(const std::string& program) {
  const std::string path = Env("PATH");
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find(':', start), path.size());
    const fs::path candidate = fs::path(path.substr(start, end - start)) / program;
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return {};
}

// What a host's CLI said and how it ended.
struct RunResult {
  int code = -1;
  std::string output;  ///< stdout and stderr together
};

// Runs argv in `dir`, its output captured: a host CLI's own messages are not
// togmal's report, and are shown only (in togmal's words) when it fails.
// `claude mcp --scope local` works on its current directory.
RunResult Run(const std::vector<std::string>& argv, const fs::path& dir) {
  RunResult result;
  int pipe[2];
  if (::pipe(pipe) != 0) return result;
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(pipe[0]);
    ::close(pipe[1]);
    return result;
  }
  if (child == 0) {
    ::close(pipe[0]);
    ::dup2(pipe[1], STDOUT_FILENO);
    ::dup2(pipe[1], STDERR_FILENO);
    ::close(pipe[1]);
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, STDIN_FILENO);
    if (!dir.empty() && ::chdir(dir.c_str()) != 0) std::_Exit(127);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execv(argv[0].c_str(), args.data());
    std::_Exit(127);
  }
  ::close(pipe[1]);
  char buffer[4096];
  for (;;) {
    const ssize_t got = ::read(pipe[0], buffer, sizeof buffer);
    if (got > 0) {
      result.output.append(buffer, static_cast<std::size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(pipe[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return result;
  }
  result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

// The last line a command printed, for an error message.
std::string LastLine(const std::string& output) {
  std::size_t end = output.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return {};
  const std::size_t start = output.rfind('\n', end);
  return output.substr(start == std::string::npos ? 0 : start + 1,
                       end + 1 - (start == std::string::npos ? 0 : start + 1));
}

std::string Quoted(const std::vector<std::string>& argv) {
  std::string line;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string word = i == 0 ? fs::path(argv[i]).filename().string() : argv[i];
    line +=
        (line.empty() ? "" : " ") + (word.find(' ') != std::string::npos ? "'" + word + "'" : word);
  }
  return line;
}

// Claude Code keeps its user and local MCP servers in ~/.claude.json, which
// only `claude mcp` should write (the project's .mcp.json is one of the
// install's files, targets.cpp). Whether the server is there is read from
// the file, so that --dry-run decides exactly as the real run.
int ClaudeMcp(const InstallOptions& options, install::Scope scope, const fs::path& binary,
              const install::Places& places) {
  const std::string scope_name(install::ScopeName(scope));
  const std::string where = scope_name + " scope, " + install::ClaudeStateFile(places).string();
  auto server = install::ClaudeMcpServer(places, scope);
  if (!server) {
    std::cerr << "togmal: " << server.error() << "\n";
    return kExitDataErr;
  }
  const bool ours = install::IsTogmalServer(*server);
  if (!server->is_null() && !ours) {
    if (options.uninstall) {
      std::cout << "MCP server togmal: not togmal's (" << where << "), left alone\n";
      return kExitOk;
    }
    std::cerr << "togmal: Claude Code already has another MCP server named togmal (" << where
              << "); remove or rename it first (claude mcp remove --scope " << scope_name
              << " togmal)\n";
    return kExitDataErr;
  }
  const fs::path found = FindOnPath("claude");
  const std::string claude = found.empty() ? "claude" : found.string();
  const std::vector<std::string> remove{claude, "mcp", "remove", "--scope", scope_name, "togmal"};
  const std::vector<std::string> add{claude,   "mcp", "add",           "--scope", scope_name,
                                     "togmal", "--",  binary.string(), "serve"};
  std::vector<std::vector<std::string>> steps;
  if (options.uninstall) {
    if (ours) steps.push_back(remove);
  } else if (!ours) {
    steps.push_back(add);
  } else if (server->value("command", "") != binary.string()) {
    steps.push_back(remove);  // another togmal binary: `claude mcp add` does not replace
    steps.push_back(add);
  }
  if (steps.empty()) {
    std::cout << "MCP server togmal: " << (ours ? "already registered" : "not registered") << " ("
              << where << ")\n";
    return kExitOk;
  }
  for (const std::vector<std::string>& step : steps) {
    if (found.empty()) {
      std::cout << "to do: claude is not on PATH; run it yourself: " << Quoted(step) << "\n";
      continue;
    }
    if (options.dry_run) {
      std::cout << "would run " << Quoted(step) << "\n";
      continue;
    }
    const RunResult ran = Run(step, places.project);
    if (ran.code != 0) {
      const std::string said = LastLine(ran.output);
      std::cerr << "togmal: Claude Code's CLI did not " << (step == add ? "register" : "remove")
                << " the MCP server: `" << Quoted(step) << "` failed (exit " << ran.code << ")"
                << (said.empty() ? "" : ": " + said) << "\n";
      return kExitFailure;
    }
    std::cout << "ran " << Quoted(step) << "\n";
  }
  return kExitOk;
}

// What the person must still do before the host runs togmal: a host that
// asks for trust first would otherwise look installed and do nothing.
void StillToDo(const install::Target& target, install::Scope scope, const install::Places& places) {
  const std::string_view name = target.name;
  if (name == "gemini" && scope == install::Scope::kProject &&
      install::GeminiFolderTrusted(places) == false) {
    std::cout << "to do: Gemini's Trusted Folders is on and does not trust "
              << places.project.string()
              << ": Gemini ignores the project's .gemini/settings.json (togmal's hook included) "
                 "until you trust the folder (Gemini asks when it starts there).\n";
  }
  if (name == "codex") {
    std::cout << "to do: Codex runs a new or changed hook only once you trust it: start Codex, "
                 "open /hooks, review togmal's PreToolUse hook and trust it (until then Codex "
                 "skips it).\n";
    if (scope == install::Scope::kProject) {
      std::cout << "to do: Codex loads a project's .codex/hooks.json only in a trusted project "
                   "(Codex asks when it starts there).\n";
    }
    return;
  }
  if (name == "claude-code" && scope == install::Scope::kManaged) {
    std::error_code error;
    if (!fs::exists(places.claude_managed / "managed-mcp.json", error)) {
      std::cout << "note: the MCP server is not registered for everyone: Claude Code's only "
                   "managed place for a local server is "
                << (places.claude_managed / "managed-mcp.json").string()
                << ", which takes exclusive control of MCP servers (those users added stop "
                   "loading), so togmal does not create it. To deploy it anyway, create that "
                   "file ({\"mcpServers\": {}}) and run this install again (docs/hosts.md).\n";
    }
    std::cout << "note: to keep users from adding or removing hooks, set "
                 "\"allowManagedHooksOnly\": true in "
              << (places.claude_managed / "managed-settings.json").string()
              << " (docs/hosts.md).\n";
  }
  if (name == "claude-code" && scope == install::Scope::kProject) {
    std::cout << "to do: Claude Code asks each person to approve the project's MCP server togmal "
                 "(.mcp.json) when it starts in this project.\n";
  }
  std::cout << "Restart " << target.description.substr(0, target.description.find(':'))
            << " to load it; `togmal doctor` checks the set-up.\n";
}

// `--profile NAME`: the user's settings.yaml says `profile: NAME` (the
// profile is the user's choice for every host, so uninstall leaves it).
int SetProfile(const InstallOptions& options) {
  const fs::path file = util::UserConfigFile("settings.yaml");
  if (file.empty()) {
    std::cerr << "togmal: no home directory is known: --profile needs the user's settings.yaml\n";
    return kExitConfig;
  }
  auto text = util::ReadConfigFile(file);
  if (!text) {
    std::cerr << "togmal: " << text.error() << "\n";
    return kExitConfig;
  }
  const std::string before = *text ? **text : std::string();
  const std::string after = install::WithProfile(before, options.profile);
  if (after == before) {
    std::cout << "unchanged " << file.string() << " (profile: " << options.profile << ")\n";
    return kExitOk;
  }
  if (options.dry_run) {
    std::cout << install::UnifiedDiff(before, after, file.string());
    return kExitOk;
  }
  std::error_code error;
  fs::create_directories(file.parent_path(), error);
  const fs::path temporary = file.string() + ".togmal-new";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << after;
    if (!out) {
      std::cerr << "togmal: cannot write " << temporary.string() << "\n";
      return kExitCantCreat;
    }
  }
  fs::rename(temporary, file, error);
  if (error) {
    std::cerr << "togmal: cannot replace " << file.string() << ": " << error.message() << "\n";
    return kExitCantCreat;
  }
  std::cout << (before.empty() ? "created " : "updated ") << file.string()
            << " (profile: " << options.profile << ")\n";
  return kExitOk;
}

int Execute(const InstallOptions& options) {
  const install::Target* target = install::FindTarget(options.target);
  if (target == nullptr) {
    std::cerr << "togmal: unknown target '" << options.target << "' (one of: " << Targets()
              << ")\n";
    return kExitUsage;
  }
  install::Scope scope = target->scopes.front();
  if (!options.scope.empty()) {
    auto named = install::ScopeNamed(options.scope);
    if (!named) {
      std::cerr << "togmal: unknown scope '" << options.scope
                << "' (user, project, local or managed)\n";
      return kExitUsage;
    }
    scope = *named;
  }
  install::Places places;
  places.home = util::HomeDir().string();
  std::error_code error;
  places.project =
      (options.dir.empty() ? fs::current_path(error) : fs::absolute(options.dir, error))
          .lexically_normal();
  if (places.project.has_relative_path() && !places.project.has_filename()) {
    places.project = places.project.parent_path();  // "proj/" → "proj"
  }
#if defined(__APPLE__)
  places.os = "macos";
#elif defined(_WIN32)
  places.os = "windows";
#endif
  places.xdg_config_home = Env("XDG_CONFIG_HOME");
  places.appdata = Env("APPDATA");
  places.codex_home = Env("CODEX_HOME");
  places.copilot_home = Env("COPILOT_HOME");
  // Fixed at build time, like the system policy layer: no variable moves it.
  places.claude_managed = util::ClaudeManagedDir();
  if (places.home.empty()) {
    std::cerr << "togmal: no home directory is known (HOME is unset and the password database "
                 "names none)\n";
    return kExitConfig;
  }
  const fs::path binary =
      (options.binary.empty() ? SelfPath() : fs::absolute(options.binary)).lexically_normal();
  if (scope == install::Scope::kManaged) {
    if (!options.dry_run && ::geteuid() != 0) {
      std::cerr << "togmal: the managed scope writes " << places.claude_managed.string()
                << ", which only root may change: run it as root (sudo togmal "
                << (options.uninstall ? "uninstall" : "install") << " " << options.target
                << " --scope managed)\n";
      return kExitCantCreat;
    }
    // Every user's agent runs this program: whoever may replace it decides
    // for all of them.
    if (const std::string why = util::UntrustedSystemFile(binary);
        !options.uninstall && !why.empty()) {
      std::cout << "warning: every user's Claude Code will run " << binary.string() << ", but "
                << why << "; install togmal from its package (/usr/bin/togmal) and run that one\n";
    }
  }
  auto plans = install::PlanFor(*target, scope, places, binary);
  if (!plans) {
    std::cerr << "togmal: " << plans.error() << "\n";
    return kExitUsage;
  }
  const fs::path manifest_path = util::UserDataFile("installed.json");
  const fs::path backups = util::UserDataFile("backups");
  auto manifest = install::LoadManifest(manifest_path);
  if (!manifest) {
    std::cerr << "togmal: " << manifest.error() << "\n";
    return kExitConfig;
  }
  // Plan every file before writing any: a file that does not parse stops
  // the whole install, with nothing changed.
  std::vector<install::FileChange> changes;
  std::set<fs::path> removed;
  for (const install::FilePlan& plan : *plans) {
    const auto recorded = manifest->files.find(plan.file.string());
    auto change = options.uninstall
                      ? install::PlanUninstall(
                            plan, recorded == manifest->files.end() ? nullptr : &recorded->second)
                      : install::PlanInstall(plan);
    if (!change) {
      std::cerr << "togmal: " << change.error() << "\n";
      return kExitDataErr;
    }
    if (change->remove) removed.insert(change->file);
    changes.push_back(std::move(*change));
  }
  // --dry-run prints the same lines as the real run, each with "would".
  const std::string would = options.dry_run ? "would " : "";
  auto done = [&](std::string_view verb) {
    return options.dry_run ? would + std::string(verb) : std::string(verb) + "d";
  };
  bool manifest_changed = false;
  for (const install::FileChange& change : changes) {
    const std::string name = change.file.string();
    if (!change.Changed()) {
      std::cout << "unchanged " << name << "\n";
      continue;
    }
    for (const fs::path& folder : change.new_folders) {
      std::cout << done("create") << " folder " << folder.string() << "\n";
    }
    std::string backup;
    if (install::NeedsBackup(change) && !backups.empty()) {
      backup = " (backup: " + install::BackupPath(backups, change.file).string() + ")";
    }
    if (options.dry_run) {
      std::cout << done(change.Verb()) << " " << name << backup << "\n";
      for (const std::string& note : change.notes) std::cout << "  " << note << "\n";
      std::cout << install::UnifiedDiff(change.before, change.remove ? "" : change.after, name);
      continue;
    }
    auto kept = install::ApplyChange(change, backups);
    if (!kept) {
      std::cerr << "togmal: " << kept.error() << "\n";
      return kExitCantCreat;
    }
    if (scope == install::Scope::kManaged && !change.remove) {
      // Every user's Claude Code reads it, whatever root's umask says.
      for (const fs::path& folder : change.new_folders) {
        fs::permissions(folder, fs::perms(0755), error);
      }
      if (!change.existed) fs::permissions(change.file, fs::perms(0644), error);
    }
    std::cout << done(change.Verb()) << " " << name << backup << "\n";
    for (const std::string& note : change.notes) std::cout << "  " << note << "\n";
    if (options.uninstall) {
      manifest->files.erase(name);
    } else {
      install::RecordInstall(*manifest, change);
    }
    manifest_changed = true;
  }
  if (options.uninstall) {
    // The folders install created for these files, now empty again.
    for (const fs::path& folder : install::FoldersLeftEmpty(manifest->folders, removed)) {
      if (!options.dry_run) {
        fs::remove(folder, error);
        if (error) {
          std::cerr << "togmal: could not remove " << folder.string() << ": " << error.message()
                    << "\n";
          return kExitCantCreat;
        }
        manifest->folders.erase(folder.string());
        manifest_changed = true;
      }
      std::cout << done("remove") << " folder " << folder.string() << "\n";
    }
  }
  if (manifest_changed && !options.dry_run) {
    if (manifest->files.empty() && manifest->folders.empty()) {
      fs::remove(manifest_path, error);
    } else if (auto saved = install::SaveManifest(manifest_path, *manifest); !saved) {
      std::cerr << "togmal: " << saved.error() << "\n";
      return kExitCantCreat;
    }
  }
  if (target->name == "claude-code" && scope != install::Scope::kProject &&
      scope != install::Scope::kManaged) {
    if (const int code = ClaudeMcp(options, scope, binary, places); code != kExitOk) return code;
  }
  if (!options.profile.empty()) {
    if (const int code = SetProfile(options); code != kExitOk) return code;
  }
  if (!options.uninstall) StillToDo(*target, scope, places);
  return kExitOk;
}

Action Define(CLI::App& command, bool uninstall) {
  auto options = std::make_shared<InstallOptions>();
  options->uninstall = uninstall;
  command.add_option("target", options->target, "Where: " + Targets())->required();
  command.add_option("--scope", options->scope,
                     "user (default), project (committed with the project), local "
                     "(claude-code only: .claude/settings.local.json) or managed (claude-code "
                     "only, as root: Claude Code's managed settings, for every user)");
  command.add_option("--dir", options->dir,
                     "The project directory for --scope project|local (default: the current one)");
  command.add_flag("--dry-run", options->dry_run, "Print the changes as a diff; write nothing");
  if (!uninstall) {
    command.add_option("--binary", options->binary,
                       "The togmal the host should run (default: this one)");
    command
        .add_option("--profile", options->profile,
                    "Also set `profile:` in your settings.yaml: standard (for coding agents) or "
                    "strict (the seed's table: asks for mkdir/cp/mv/commit, blocks curl)")
        ->check(CLI::IsMember({"standard", "strict"}));
  }
  command.footer(uninstall ? "Puts each file back as it was before install (byte for byte), or, "
                             "if it changed since, takes out only togmal's entries; files and "
                             "folders install created go when empty."
                           : "Edits the host's settings in place (the one backup of each file "
                             "is kept under togmal's data folder, listed by `togmal doctor`); a "
                             "second install changes nothing.\n"
                             "Examples:\n  togmal install claude-code\n"
                             "  togmal install cursor --scope project --dry-run");
  return [options] { return Execute(*options); };
}

}  // namespace

Action DefineInstall(CLI::App& command) { return Define(command, false); }
Action DefineUninstall(CLI::App& command) { return Define(command, true); }

}  // namespace togmal::cli
