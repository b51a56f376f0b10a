// `togmal report`: the HTML page about what the agent did (src/report/).
// Where it goes: --out FILE; else stdout when stdout is a file or a pipe;
// else (a terminal, where a page of HTML helps nobody) report.html in the
// data folder, whose path is printed. --open hands the file to the
// desktop's browser.
#include "togmal/report/report.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "database_option.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/util/paths.h"

extern char** environ;

namespace togmal::cli {
namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  DatabaseOption db;
  std::string since = "30d";
  std::string until;
  std::string project;
  std::string out;
  bool open = false;
};

// The desktop's opener (xdg-open; open on macOS), not waited for: a
// browser it starts in the foreground must not hold the command.
bool OpenInBrowser(const fs::path& file) {
#ifdef __APPLE__
  const char* opener = "open";
#else
  const char* opener = "xdg-open";
#endif
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  const std::string path = file.string();
  char* argv[] = {const_cast<char*>(opener), const_cast<char*>(path.c_str()), nullptr};
  pid_t child = 0;
  const int error = ::posix_spawnp(&child, opener, &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  return error == 0;
}

int Report(const ReportOptions& options) {
  auto settings = store::LoadStoreSettings();
  if (!settings) {
    std::cerr << "togmal: " << settings.error() << "\n";
    return kExitConfig;
  }
  store::AuditFilter filter;
  const auto now = std::chrono::system_clock::now();
  for (auto [text, bound] :
       {std::pair{&options.since, &filter.since}, std::pair{&options.until, &filter.until}}) {
    if (text->empty() || *text == "all") continue;
    auto parsed = store::ParseTimeBound(*text, now);
    if (!parsed) {
      std::cerr << "togmal report: " << parsed.error() << "\n";
      return kExitUsage;
    }
    *bound = std::move(*parsed);
  }
  if (!options.project.empty()) {
    std::error_code error;
    const fs::path absolute = fs::absolute(options.project, error);
    if (error) {
      std::cerr << "togmal report: --project " << options.project << ": " << error.message()
                << "\n";
      return kExitUsage;
    }
    filter.project = absolute.lexically_normal().string();
    while (filter.project.size() > 1 && filter.project.back() == '/') filter.project.pop_back();
  }
  const fs::path path = options.db.Resolve();
  std::error_code error;
  if (!fs::exists(path, error)) {
    std::cerr << "togmal: no database at " << path.string() << " yet (nothing recorded)\n";
    return kExitNoInput;
  }
  auto db = store::Database::Open(path, {.read_only = true});
  if (!db) {
    std::cerr << "togmal: " << db.error() << "\n";
    return kExitFailure;
  }
  auto data = report::CollectReport(*db, filter, settings->taxonomy_capacity);
  if (!data) {
    std::cerr << "togmal: " << data.error() << "\n";
    return kExitFailure;
  }
  const std::string page = report::RenderReport(*data);

  fs::path out = options.out == "-" ? fs::path() : fs::path(options.out);
  if (out.empty() && options.out != "-" && (options.open || ::isatty(STDOUT_FILENO) != 0)) {
    out = util::UserDataFile("report.html");
  }
  if (out.empty()) {
    std::cout << page;
    std::cout.flush();
    return std::cout ? kExitOk : kExitCantCreat;
  }
  if (out.has_parent_path()) fs::create_directories(out.parent_path(), error);
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  file << page;
  file.close();
  if (!file) {
    std::cerr << "togmal report: cannot write " << out.string() << "\n";
    return kExitCantCreat;
  }
  std::cerr << "wrote " << out.string() << " (" << data->decisions.total << " decisions)\n";
  if (options.open && !OpenInBrowser(fs::absolute(out, error))) {
    std::cerr << "togmal report: could not start a browser; open " << out.string() << " yourself\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace

Action DefineReport(CLI::App& command) {
  auto options = std::make_shared<ReportOptions>();
  options->db = AddDatabaseOption(command);
  command
      .add_option("--since", options->since,
                  "Decisions from this time on: a duration back (30m, 12h, 7d, 2w), a UTC date "
                  "(2026-11-27) or `all`")
      ->capture_default_str();
  command.add_option("--until", options->until, "Decisions before this time (same forms)");
  command.add_option("--project", options->project,
                     "Calls made in this directory or below it (`.`: the current one)");
  command.add_option("-o,--out", options->out,
                     "Write the page to FILE (`-`: stdout). Default: stdout when it is a file or "
                     "a pipe, else report.html in the data folder");
  command.add_flag("--open", options->open, "Open the page in the desktop's browser");
  command.footer(
      "One self-contained HTML page (no network, no scripts): decisions over time, by project\n"
      "and by tool, the most denied, asked and passed calls with their reasons and the\n"
      "`togmal allow` line for each, how often the person approved what was asked and the\n"
      "rules to stop asking, active grants, the audit chain's state and the evidence taxonomy.\n"
      "Examples:\n"
      "  togmal report --open\n"
      "  togmal report --since 7d --project . --out week.html");
  return [options] { return Report(*options); };
}

}  // namespace togmal::cli
