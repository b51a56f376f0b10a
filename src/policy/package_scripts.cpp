// Package-manager scripts (`npm run NAME`, `yarn test`, `pnpm build`): the
// body in package.json is what runs, so it is classified like a command
// line. NamedScript reads which script a command line names, ScriptsIn the
// package.json's scripts, PackageScript walks them. A write followed in the
// same line by a command that runs project code (`echo … > conftest.py &&
// pytest`) is judged as running what was written.
#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "togmal/util/config_file.h"
#include "walker.h"

namespace togmal::policy {
namespace {

/// Scripts npm runs by name with no `run` (`npm test`), and the names that
/// are safe to assume when package.json cannot be read.
bool LifecycleName(std::string_view name) {
  for (std::string_view known : {"test", "start", "stop", "restart"}) {
    if (name == known) return true;
  }
  return false;
}

bool CommonScriptName(std::string_view name) {
  for (std::string_view known :
       {"test", "lint", "build", "start", "dev", "format", "typecheck", "stop", "restart"}) {
    if (name == known) return true;
  }
  return false;
}

/// bun's own commands: `bun test` runs bun's test runner and `bun build` its
/// bundler, never a package script of that name (`bun run test` does).
bool BunBuiltin(std::string_view name) {
  for (std::string_view known :
       {"test",    "build",  "install", "add",  "remove", "update", "x",
        "init",    "create", "upgrade", "pm",   "link",   "unlink", "outdated",
        "publish", "patch",  "audit",   "info", "exec",   "repl"}) {
    if (name == known) return true;
  }
  return false;
}

/// `pnpm -r test`, `npm test --workspaces`, `yarn workspaces foreach run test`:
/// the script runs in the workspace's packages, each with its own package.json.
bool InWorkspaces(std::string_view text) {
  for (std::string_view known : {"-r", "--recursive", "--workspaces", "-ws", "--ws", "--filter",
                                 "-F", "--workspace", "-w", "workspaces", "workspace", "foreach"}) {
    if (text == known) return true;
  }
  return text.starts_with("--filter=") || text.starts_with("--workspace=");
}

/// The `scripts` object of the package.json in `directory` (nullopt: no
/// directory known, no readable package.json, or no scripts in it).
std::optional<nlohmann::json> ScriptsIn(const std::string& directory) {
  if (directory.empty() || directory.front() != '/') return std::nullopt;
  const auto text =
      util::ReadConfigFile(std::filesystem::path(directory) / "package.json", 1u << 20);
  if (!text || !*text) return std::nullopt;
  auto parsed = nlohmann::json::parse(**text, nullptr, false);
  if (!parsed.is_object() || !parsed.contains("scripts") || !parsed["scripts"].is_object()) {
    return std::nullopt;
  }
  return parsed["scripts"];
}

}  // namespace

/// What a package manager's command line names: the script, the directory
/// whose package.json holds it, and whether it runs in the workspace's packages.
struct Walker::ScriptCall {
  std::string directory;  // empty: not known (`cd "$X"` earlier in the line)
  std::string script;     // empty: no package script runs
  bool workspaces = false;
};

Walker::ScriptCall Walker::NamedScript(const CommandNode& entry, const std::vector<Word>& words,
                                       std::size_t start) const {
  ScriptCall call;
  call.directory = line_.cwd_unknown ? std::string() : line_.cwd;
  bool by_run = false;
  std::size_t script_at = start;
  const bool bun = words[start].text == "bun";
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (IsOptionWord(text)) {
      call.workspaces = call.workspaces || InWorkspaces(text);
      const bool dir_option =
          text == "--prefix" || text == "-C" || text == "--dir" || text == "--cwd";
      if (dir_option && i + 1 < words.size()) call.directory = Resolve(words[i + 1].text);
      if (util::NameIn(text, entry.options_with_value)) ++i;
      continue;
    }
    if (!by_run && (text == "run" || text == "run-script" || text == "rum" || text == "urn")) {
      by_run = true;
      continue;
    }
    if (by_run) {
      call.script = text;
      script_at = i;
    } else if (bun && BunBuiltin(text)) {
      break;  // bun's test runner or bundler: the entry's level
    } else if (InWorkspaces(text)) {
      call.workspaces = true;
      continue;  // `yarn workspaces foreach run test`
    } else if (text == "t" || text == "tst") {
      call.script = "test";
      script_at = i;
    } else if (LifecycleName(text) || (CommonScriptName(text) && words[start].text != "npm")) {
      call.script = text;  // `yarn build` runs the build script; `npm build` is not a script
      script_at = i;
    }
    break;
  }
  if (call.script.empty()) return call;
  // npm reads its options after the script name too (`npm test --workspaces`),
  // up to `--`; the others hand those words to the script.
  for (std::size_t i = script_at + 1; words[start].text == "npm" && i < words.size(); ++i) {
    if (words[i].text == "--") break;
    call.workspaces =
        call.workspaces || (IsOptionWord(words[i].text) && InWorkspaces(words[i].text));
  }
  return call;
}

void Walker::PackageScript(const CommandNode& entry, const std::vector<Word>& words,
                           std::size_t start, std::string_view segment, int code_depth) {
  const ScriptCall call = NamedScript(entry, words, start);
  if (call.script.empty() || words[start].text.empty()) return;
  const std::string& script = call.script;
  RunnerSettings(call.directory, segment);
  if (call.workspaces) {
    // Each package's own script, whose bodies this directory's package.json
    // does not hold: named like an everyday one, as an unreadable script.
    if (!CommonScriptName(script)) {
      Add(Level::kL2,
          "Runs the package script '" + util::OneLine(script, 40) +
              "' in the workspace's packages, whose bodies togmal does not read.",
          segment);
    }
    return;
  }
  // A script that runs itself (`"test": "npm test"`) would loop at run time;
  // expanding it again would only nest deeper.
  const std::string key = call.directory + '\n' + script;
  if (std::find(line_.scripts_open.begin(), line_.scripts_open.end(), key) !=
      line_.scripts_open.end()) {
    Add(Level::kL2, "The package script '" + util::OneLine(script, 40) + "' runs itself.", segment);
    return;
  }
  const std::optional<nlohmann::json> scripts = ScriptsIn(call.directory);
  if (!scripts) {
    if (!CommonScriptName(script)) {
      Add(Level::kL2,
          "Runs the package script '" + util::OneLine(script, 40) +
              "', whose body togmal cannot read (no package.json here).",
          segment);
    }
    return;
  }
  bool found = false;
  line_.scripts_open.push_back(key);
  for (const std::string& name : {"pre" + script, script, "post" + script}) {
    const auto body = scripts->find(name);
    if (body == scripts->end() || !body->is_string()) continue;
    found = true;
    const std::string text = body->get<std::string>();
    Add(Level::kL1,
        "Runs the package script '" + util::OneLine(name, 40) + "': " + util::OneLine(text, 80),
        segment);
    Line(text, SegmentOrigin::kShellString, code_depth + 1);
  }
  line_.scripts_open.pop_back();
  if (!found && !CommonScriptName(script)) {
    Add(Level::kL2,
        "Runs the package script '" + util::OneLine(script, 40) + "', not in package.json.",
        segment);
  }
}

void Walker::RunnerSettings(const std::string& directory, std::string_view segment) {
  if (directory.empty() || directory.front() != '/') return;
  // Settings files in the working directory that replace the shell scripts
  // run in, or load code into every node process the script starts.
  static constexpr std::pair<std::string_view, std::string_view> kFiles[] = {
      {".npmrc", "script-shell|node-options|shell|onload-script|git"},
      {".yarnrc", "script-shell|node-options|yarn-path"},
      {".yarnrc.yml", "yarnpath|plugins|nodeoptions|injectenvironmentfiles"},
      {"bunfig.toml", "preload|shell"},
  };
  for (const auto& [file, keys] : kFiles) {
    const auto text = util::ReadConfigFile(std::filesystem::path(directory) / file, 1u << 20);
    if (!text || !*text) continue;
    const std::string lower = util::AsciiLower(**text);
    std::string_view rest = keys;
    while (!rest.empty()) {
      const std::size_t bar = std::min(rest.find('|'), rest.size());
      const std::string_view key = rest.substr(0, bar);
      rest.remove_prefix(std::min(bar + 1, rest.size()));
      for (std::size_t at = lower.find(key); at != std::string::npos;
           at = lower.find(key, at + key.size())) {
        // The key at the start of a line, followed by '=' or ':'.
        const bool line_start = at == 0 || lower[at - 1] == '\n';
        std::size_t after = at + key.size();
        while (after < lower.size() && (lower[after] == ' ' || lower[after] == '\t')) ++after;
        if (line_start && after < lower.size() && (lower[after] == '=' || lower[after] == ':')) {
          Add(Level::kL2,
              "'" + std::string(file) + "' here sets '" + std::string(key) +
                  "': the package script runs with a shell or code togmal did not see.",
              segment);
          return;
        }
      }
    }
  }
}

void Walker::WriteThenRun(const CommandNode& entry, Level level, std::string_view segment) {
  // Build and test runners load the project's files (entries with
  // loads_project: make, cmake, pytest, npm, cargo, go and their kin).
  if (!line_.wrote_before || level != Level::kL1 || !entry.loads_project) return;
  Add(Level::kL2,
      "Runs project code right after this command line wrote a file it may load "
      "(write-then-run).",
      segment);
}

}  // namespace togmal::policy
