// `togmal install TARGET` / `togmal uninstall TARGET`: register togmal with an
// agent host (its hook, and for Claude the MCP server) or take it away again.
// The file merging is install/installer.h; this file is the command line and
// Claude Code's `claude mcp` step.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "togmal/install/installer.h"
#include "togmal/install/profile_setting.h"
#include "togmal/install/text_diff.h"
#include "togmal/util/config_file.h"
#include "togmal/util/paths.h"

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

// Runs argv in `dir` with stdout sent to our stderr (stdout is for togmal's
// report). `claude mcp --scope project|local` works on its current directory.
int Run(const std::vector<std::string>& argv, const fs::path& dir) {
  const pid_t child = ::fork();
  if (child < 0) return -1;
  if (child == 0) {
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    if (!dir.empty() && ::chdir(dir.c_str()) != 0) std::_Exit(127);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execv(argv[0].c_str(), args.data());
    std::_Exit(127);
  }
  int status = 0;
  while (::waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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

// Claude Code keeps its MCP servers in ~/.claude.json and .mcp.json, which
// only `claude mcp` should write.
void ClaudeMcp(const InstallOptions& options, install::Scope scope, const fs::path& binary,
               const fs::path& project) {
  const fs::path found = FindOnPath("claude");
  const fs::path claude = found.empty() ? fs::path("claude") : found;
  const std::string scope_name(install::ScopeName(scope));
  const std::vector<std::string> change =
      options.uninstall
          ? std::vector<std::string>{claude.string(), "mcp",      "remove",
                                     "--scope",       scope_name, "togmal"}
          : std::vector<std::string>{claude.string(), "mcp", "add",           "--scope", scope_name,
                                     "togmal",        "--",  binary.string(), "serve"};
  if (found.empty()) {
    std::cout << "claude is not on PATH: " << (options.uninstall ? "remove" : "register")
              << " the MCP server with\n  " << Quoted(change) << "\n";
    return;
  }
  if (options.dry_run) {
    std::cout << "would run: " << Quoted(change) << "\n";
    return;
  }
  const bool present = Run({claude.string(), "mcp", "get", "togmal"}, project) == 0;
  if (present != options.uninstall) {
    std::cout << "MCP server togmal: " << (present ? "already registered" : "not registered")
              << " (claude mcp get togmal)\n";
    return;
  }
  const int code = Run(change, project);
  std::cout << "MCP server togmal: " << Quoted(change)
            << (code == 0 ? "" : " failed (exit " + std::to_string(code) + ")") << "\n";
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

std::string Stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
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
      std::cerr << "togmal: unknown scope '" << options.scope << "' (user, project or local)\n";
      return kExitUsage;
    }
    scope = *named;
  }
  install::Places places;
  places.home = util::HomeDir().string();
  std::error_code error;
  places.project = options.dir.empty() ? fs::current_path(error) : fs::absolute(options.dir, error);
#if defined(__APPLE__)
  places.os = "macos";
#elif defined(_WIN32)
  places.os = "windows";
#endif
  places.xdg_config_home = Env("XDG_CONFIG_HOME");
  places.appdata = Env("APPDATA");
  places.codex_home = Env("CODEX_HOME");
  places.copilot_home = Env("COPILOT_HOME");
  if (places.home.empty()) {
    std::cerr << "togmal: no home directory is known (HOME is unset and the password database "
                 "names none)\n";
    return kExitConfig;
  }
  const fs::path binary = options.binary.empty() ? SelfPath() : fs::absolute(options.binary);
  auto plans = install::PlanFor(*target, scope, places, binary);
  if (!plans) {
    std::cerr << "togmal: " << plans.error() << "\n";
    return kExitUsage;
  }
  const fs::path manifest_path = util::UserDataFile("installed.json");
  auto manifest = install::LoadManifest(manifest_path);
  if (!manifest) {
    std::cerr << "togmal: " << manifest.error() << "\n";
    return kExitConfig;
  }
  // Plan every file before writing any: a file that does not parse stops
  // the whole install, with nothing changed.
  std::vector<install::FileChange> changes;
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
    changes.push_back(std::move(*change));
  }
  const std::string stamp = Stamp();
  bool manifest_changed = false;
  for (const install::FileChange& change : changes) {
    const std::string name = change.file.string();
    if (!change.Changed()) {
      std::cout << "unchanged " << name << "\n";
      continue;
    }
    if (options.dry_run) {
      std::cout << install::UnifiedDiff(change.before, change.remove ? "" : change.after, name);
      continue;
    }
    auto backup = install::ApplyChange(change, stamp);
    if (!backup) {
      std::cerr << "togmal: " << backup.error() << "\n";
      return kExitCantCreat;
    }
    const char* verb = change.remove ? "removed " : change.existed ? "updated " : "created ";
    std::cout << verb << name;
    if (!backup->empty()) std::cout << " (backup: " << backup->string() << ")";
    std::cout << "\n";
    for (const std::string& note : change.notes) std::cout << "  " << note << "\n";
    if (options.uninstall) {
      manifest_changed = manifest->files.erase(name) > 0 || manifest_changed;
    } else if (!change.created.empty() || !change.existed) {
      install::ManifestEntry& entry = manifest->files[name];
      entry.created_file = entry.created_file || !change.existed;
      for (const std::string& pointer : change.created) entry.created.push_back(pointer);
      manifest_changed = true;
    }
  }
  if (manifest_changed) {
    if (auto saved = install::SaveManifest(manifest_path, *manifest); !saved) {
      std::cerr << "togmal: " << saved.error() << "\n";
      return kExitCantCreat;
    }
  }
  if (target->name == "claude-code") ClaudeMcp(options, scope, binary, places.project);
  if (!options.profile.empty()) {
    if (const int code = SetProfile(options); code != kExitOk) return code;
  }
  if (!options.dry_run && !options.uninstall) {
    std::cout << "Restart " << target->description.substr(0, target->description.find(':'))
              << " to load it; `togmal doctor` checks the set-up.\n";
  }
  return kExitOk;
}

Action Define(CLI::App& command, bool uninstall) {
  auto options = std::make_shared<InstallOptions>();
  options->uninstall = uninstall;
  command.add_option("target", options->target, "Where: " + Targets())->required();
  command.add_option("--scope", options->scope,
                     "user (default), project (committed with the project) or local "
                     "(claude-code only: .claude/settings.local.json)");
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
  command.footer(uninstall ? "Removes exactly what `togmal install` added; other keys stay."
                           : "Merges into the host's settings (a backup of each changed file is "
                             "kept next to it); a second install changes nothing.\n"
                             "Examples:\n  togmal install claude-code\n"
                             "  togmal install cursor --scope project --dry-run");
  return [options] { return Execute(*options); };
}

}  // namespace

Action DefineInstall(CLI::App& command) { return Define(command, false); }
Action DefineUninstall(CLI::App& command) { return Define(command, true); }

}  // namespace togmal::cli
