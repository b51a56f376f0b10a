// `togmal statusline`: one line for Claude Code's status line. Claude Code
// runs the command every few hundred milliseconds with the session as JSON on
// stdin and shows the first line of stdout; so the line is cheap to make
// (settings files and one indexed count) and always printed, errors included.
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "command.h"
#include "database_option.h"
#include "togmal/install/installer.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/util/json_parse.h"
#include "togmal/util/paths.h"

namespace togmal::cli {
namespace {

namespace fs = std::filesystem;

struct StatuslineOptions {
  DatabaseOption db;
  bool color = true;
};

// The project Claude Code was started in: workspace.project_dir, else cwd.
fs::path ProjectDir(const std::string& input) {
  auto parsed = util::ParseJson(input);
  if (parsed && parsed->is_object()) {
    const nlohmann::json& session = *parsed;
    if (auto workspace = session.find("workspace");
        workspace != session.end() && workspace->is_object()) {
      for (const char* key : {"project_dir", "current_dir"}) {
        if (auto dir = workspace->find(key); dir != workspace->end() && dir->is_string()) {
          return dir->get<std::string>();
        }
      }
    }
    if (auto cwd = session.find("cwd"); cwd != session.end() && cwd->is_string()) {
      return cwd->get<std::string>();
    }
  }
  std::error_code error;
  return fs::current_path(error);
}

// Today's decisions in the project the status line is shown in.
std::string Counts(const fs::path& path, const fs::path& project) {
  const std::string name = project.filename().empty() ? project.parent_path().filename().string()
                                                      : project.filename().string();
  const std::string where =
      "today in " + (name.empty() ? std::string("this project") : name) + ": ";
  std::error_code error;
  if (!fs::exists(path, error)) return where + "0 allowed · 0 passed · 0 asked · 0 denied";
  auto db = store::Database::Open(path, {.read_only = true, .busy_timeout_ms = 100});
  if (!db) return "audit unreadable";
  auto counts = store::AuditLog(*db).DecisionsSince(
      store::StartOfLocalDay(std::chrono::system_clock::now()), project.string());
  if (!counts) return "audit unreadable";
  auto count = [&](const char* decision) {
    auto it = counts->find(decision);
    return std::to_string(it == counts->end() ? 0 : it->second);
  };
  // passed: left to the host's own permission prompt.
  return where + count("allow") + " allowed · " + count("pass") + " passed · " + count("ask") +
         " asked · " + count("deny") + " denied";
}

}  // namespace

Action DefineStatusline(CLI::App& command) {
  auto options = std::make_shared<StatuslineOptions>();
  options->db = AddDatabaseOption(command);
  bool* use_color = &options->color;
  command.add_flag_callback(
      "--no-color", [use_color] { *use_color = false; }, "Plain text, no ANSI colours");
  command.footer(
      "Register in Claude Code's settings.json:\n"
      R"(  {"statusLine": {"type": "command", "command": "togmal statusline"}})");
  return [options] {
    std::string input;
    if (::isatty(STDIN_FILENO) == 0) input.assign(std::istreambuf_iterator<char>(std::cin), {});
    install::Places places;
    places.home = util::HomeDir().string();
    places.project = ProjectDir(input);
    bool guarding = false;
    for (const install::Registration& found :
         install::FindRegistrations(places, "togmal", "claude-code", false)) {
      guarding = guarding || found.registered;
    }
    const bool color = options->color;
    const std::string state =
        guarding ? std::string(color ? "\033[32m" : "") + "guarding" + (color ? "\033[0m" : "")
                 : std::string(color ? "\033[31m" : "") +
                       "not guarding (togmal install claude-code)" + (color ? "\033[0m" : "");
    std::cout << "togmal " << state << " · " << Counts(options->db.Resolve(), places.project)
              << std::endl;
    return kExitOk;
  };
}

}  // namespace togmal::cli
