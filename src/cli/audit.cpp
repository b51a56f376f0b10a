// `togmal audit verify|tail|export|prune|ship`: read and check the audit
// trail (ship: audit_ship.cpp).
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "audit_ship.h"
#include "command.h"
#include "database_option.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/util/json_fields.h"
#include "togmal/util/text.h"

namespace togmal::cli {
namespace {

using nlohmann::json;

// Opens for reading; never creates a database just to find it empty.
std::optional<store::Database> OpenForReading(const DatabaseOption& db_option, int& exit_code) {
  const auto path = db_option.Resolve();
  auto db = store::Database::Open(path, {.read_only = true});
  if (!db) {
    std::cerr << "togmal: " << db.error() << "\n";
    std::error_code error;
    exit_code = std::filesystem::exists(path, error) ? kExitFailure : kExitNoInput;
    return std::nullopt;
  }
  return std::move(db).value();
}

std::string Dump(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string Summary(const json& value, std::size_t max) {
  return util::OneLine(value.is_string() ? value.get<std::string>() : Dump(value), max);
}

// The width to fit lines to: the terminal's, or none (0) when stdout is a
// file or a pipe, which get whole lines.
std::size_t TerminalWidth() {
  struct winsize size {};
  if (::isatty(STDOUT_FILENO) == 0 || ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col >= 40 ? size.ws_col : 0;
}

// `line` cut to `width` display columns (UTF-8 aware; 0: not cut).
std::string FitTo(const std::string& line, std::size_t width) {
  if (width == 0) return line;
  std::size_t columns = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xc0) == 0x80) continue;  // continuation byte
    if (++columns == width) return line.substr(0, i) + "…";
  }
  return line;
}

// The project a decision was made in: the last name of its cwd.
std::string ProjectName(const json& detail) {
  const std::string cwd = util::StringField(detail, "cwd");
  const std::size_t slash = cwd.find_last_of('/', cwd.size() > 1 ? cwd.size() - 2 : 0);
  return slash == std::string::npos || cwd.size() <= 1 ? cwd : cwd.substr(slash + 1);
}

// Padded to `width` columns (names are ASCII here: decisions, levels, tools).
std::string Column(const std::string& text, std::size_t width) {
  return text.size() >= width ? text + " " : text + std::string(width - text.size() + 1, ' ');
}

// A decision on one line in columns (time, decision, level, tool, project,
// what the call did), then its reason and allow code or grant on the next.
std::string DecisionLines(const store::AuditEntry& entry) {
  std::string time = entry.time.substr(0, 19);
  if (time.size() > 10) time[10] = ' ';
  const json& input = entry.input;
  const json shown = input.is_object() && input.contains("command")     ? input["command"]
                     : input.is_object() && input.contains("file_path") ? input["file_path"]
                                                                        : input;
  std::string line = Column("#" + std::to_string(entry.id), 6) + time + "  " +
                     Column(entry.decision, 5) + Column(entry.level, 2) +
                     Column(entry.tool_name, 10) + Column(ProjectName(entry.detail), 12) +
                     (shown.is_null() ? std::string() : Summary(shown, 200));
  std::string why = util::StringField(entry.detail, "reason");
  if (entry.detail.is_object() && entry.detail.contains("allowed_by")) {
    const json& grant = entry.detail["allowed_by"];
    why += (why.empty() ? "" : " · ") + std::string("let through by grant #") +
           std::to_string(util::IntField(grant, "grant_id", 0));
  } else if (entry.detail.is_object() && entry.detail.contains("allow_code") &&
             why.find("togmal allow ") == std::string::npos) {
    why += (why.empty() ? "" : " · ") + std::string("togmal allow ") +
           util::StringField(entry.detail, "allow_code");
  }
  if (!entry.rule.empty()) why += " [rule " + entry.rule + "]";
  if (!why.empty()) line += "\n      " + Summary(why, 1000);
  return line;
}

// One readable entry (a decision takes two lines).
std::string HumanLine(const store::AuditEntry& entry) {
  if (entry.kind == store::AuditKind::kDecision) return DecisionLines(entry);
  std::string line = "#" + std::to_string(entry.id) + " " + entry.time + " " +
                     std::string(store::AuditKindName(entry.kind));
  if (entry.kind == store::AuditKind::kCheckpoint) {
    return line + " pruned through #" +
           std::to_string(util::IntField(entry.detail, "pruned_through_id", 0)) + " (" +
           std::to_string(util::IntField(entry.detail, "pruned_count", 0)) + " entries)";
  }
  if (!entry.tool_name.empty()) line += " " + entry.tool_name;
  if (!entry.session.empty()) line += " session=" + entry.session;
  if (!entry.detail.is_null()) line += " " + Summary(entry.detail, 160);
  return line;
}

// Each line of `text` fitted to the terminal.
void PrintFitted(const std::string& text, std::size_t width) {
  std::size_t from = 0;
  while (from <= text.size()) {
    const std::size_t end = std::min(text.find('\n', from), text.size());
    std::cout << FitTo(text.substr(from, end - from), width) << "\n";
    from = end + 1;
  }
}

// --since/--until/--decision/--level/--project/--tool/--session, shared by
// tail and export.
struct FilterOptions {
  std::string since, until, project, tool, session;
  std::vector<std::string> decisions, levels;
};

void AddFilterOptions(CLI::App& command, FilterOptions& options) {
  command.add_option("--since", options.since,
                     "Entries from this time on: a duration back (30m, 12h, 7d, 2w) or a UTC date "
                     "(2026-11-27, 2026-11-27T14:00)");
  command.add_option("--until", options.until, "Entries before this time (same forms)");
  command.add_option("--decision", options.decisions, "allow, pass, ask, deny (repeat or a,b)")
      ->delimiter(',')
      ->check(CLI::IsMember({"allow", "pass", "ask", "deny"}));
  command.add_option("--level", options.levels, "L0, L1, L2, L3 (repeat or a,b)")
      ->delimiter(',')
      ->check(CLI::IsMember({"L0", "L1", "L2", "L3"}));
  command.add_option("--project", options.project,
                     "Calls made in this directory or below it (`.`: the current one)");
  command.add_option("--tool", options.tool, "Calls of this tool (Bash, Write, …)");
  command.add_option("--session", options.session, "Calls of this host session id");
}

Result<store::AuditFilter> ToFilter(const FilterOptions& options) {
  store::AuditFilter filter;
  const auto now = std::chrono::system_clock::now();
  for (auto [text, bound] :
       {std::pair{&options.since, &filter.since}, std::pair{&options.until, &filter.until}}) {
    if (text->empty()) continue;
    auto parsed = store::ParseTimeBound(*text, now);
    if (!parsed) return Fail(parsed.error());
    *bound = std::move(*parsed);
  }
  filter.decisions = options.decisions;
  filter.levels = options.levels;
  filter.tool = options.tool;
  filter.session = options.session;
  if (!options.project.empty()) {
    std::error_code error;
    const std::filesystem::path absolute = std::filesystem::absolute(options.project, error);
    if (error) return Fail("--project " + options.project + ": " + error.message());
    filter.project = absolute.lexically_normal().string();
  }
  return filter;
}

struct VerifyOptions {
  DatabaseOption db;
  bool json_output = false;
};

int Verify(const VerifyOptions& options) {
  int exit_code = kExitOk;
  auto db = OpenForReading(options.db, exit_code);
  if (!db) return exit_code;
  auto report = store::AuditLog(*db).Verify();
  if (!report) {
    std::cerr << "togmal: " << report.error() << "\n";
    return kExitFailure;
  }
  if (options.json_output) {
    json out = {{"ok", report->ok},
                {"checked", report->checked},
                {"tip_hash", report->tip_hash},
                {"anchor_id", report->anchor_id ? json(*report->anchor_id) : json(nullptr)},
                {"broken_id", report->broken_id ? json(*report->broken_id) : json(nullptr)},
                {"problem", report->ok ? json(nullptr) : json(report->problem)}};
    std::cout << out.dump() << "\n";
  } else if (report->ok) {
    std::cout << "audit trail OK: " << report->checked << " entries verified";
    if (report->anchor_id) std::cout << " (entries up to #" << *report->anchor_id << " pruned)";
    std::cout << "\ntip hash: " << report->tip_hash << "\n";
  } else {
    std::cout << "audit trail BROKEN at entry #" << report->broken_id.value_or(0) << ": "
              << report->problem << "\n";
  }
  return report->ok ? kExitOk : kExitFailure;
}

struct TailOptions {
  DatabaseOption db;
  FilterOptions filter;
  int64_t count = 20;
  bool follow = false;
  bool json_output = false;
  int poll_ms = 250;
};

int Tail(const TailOptions& options) {
  int exit_code = kExitOk;
  auto db = OpenForReading(options.db, exit_code);
  if (!db) return exit_code;
  auto filter = ToFilter(options.filter);
  if (!filter) {
    std::cerr << "togmal: " << filter.error() << "\n";
    return kExitUsage;
  }
  store::AuditLog log(*db);
  const std::size_t width = options.json_output ? 0 : TerminalWidth();
  auto print = [&options, width](const store::AuditEntry& entry) {
    if (options.json_output) {
      std::cout << Dump(store::ToJson(entry)) << "\n";
    } else {
      PrintFitted(HumanLine(entry), width);
    }
  };
  auto tail = log.Tail(options.count, *filter);
  if (!tail) {
    std::cerr << "togmal: " << tail.error() << "\n";
    return kExitFailure;
  }
  int64_t last_id = 0;
  for (const store::AuditEntry& entry : *tail) {
    print(entry);
    last_id = entry.id;
  }
  if (tail->empty()) {
    // Follow from the current end, not from the beginning.
    auto newest = log.Tail(1);  // any entry: where the end is, not what matches
    if (newest && !newest->empty()) last_id = newest->back().id;
  }
  std::cout << std::flush;
  while (options.follow && std::cout.good()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(options.poll_ms));
    auto fresh = log.After(last_id, 1000);
    if (!fresh) {
      std::cerr << "togmal: " << fresh.error() << "\n";
      return kExitFailure;
    }
    if (fresh->empty()) continue;
    auto matching = log.After(last_id, 1000, *filter);
    if (!matching) {
      std::cerr << "togmal: " << matching.error() << "\n";
      return kExitFailure;
    }
    for (const store::AuditEntry& entry : *matching) {
      if (entry.id <= fresh->back().id) print(entry);
    }
    last_id = fresh->back().id;
    std::cout << std::flush;
  }
  return kExitOk;
}

struct ExportOptions {
  DatabaseOption db;
  FilterOptions filter;
  std::string format = "jsonl";
  std::string output;
};

int Export(const ExportOptions& options) {
  auto filter = ToFilter(options.filter);
  if (!filter) {
    std::cerr << "togmal: " << filter.error() << "\n";
    return kExitUsage;
  }
  int exit_code = kExitOk;
  auto db = OpenForReading(options.db, exit_code);
  if (!db) return exit_code;
  std::ofstream file;
  if (!options.output.empty()) {
    file.open(options.output, std::ios::binary | std::ios::trunc);
    if (!file) {
      std::cerr << "togmal: cannot write " << options.output << "\n";
      return kExitCantCreat;
    }
  }
  std::ostream& out = options.output.empty() ? std::cout : file;
  auto count = store::AuditLog(*db).ForEach(
      [&out](const store::AuditEntry& entry) { out << Dump(store::ToJson(entry)) << "\n"; },
      *filter);
  if (!count) {
    std::cerr << "togmal: " << count.error() << "\n";
    return kExitFailure;
  }
  out.flush();
  if (!out) {
    std::cerr << "togmal: writing the export failed\n";
    return kExitCantCreat;
  }
  spdlog::info("exported {} audit entries", *count);
  return kExitOk;
}

struct PruneOptions {
  DatabaseOption db;
  int days = -1;
};

int Prune(const PruneOptions& options) {
  int days = options.days;
  if (days < 0) {
    auto settings = store::LoadStoreSettings();
    if (!settings) {
      std::cerr << "togmal: " << settings.error() << "\n";
      return kExitConfig;
    }
    days = settings->audit_retention_days;
  }
  auto db = store::Database::Open(options.db.Resolve());
  if (!db) {
    std::cerr << "togmal: " << db.error() << "\n";
    return kExitCantCreat;
  }
  auto report = store::AuditLog(*db).ApplyRetention(days);
  if (!report) {
    std::cerr << "togmal: " << report.error() << "\n";
    return kExitFailure;
  }
  if (report->pruned == 0) {
    std::cout << "nothing older than " << days << " days"
              << (days == 0 ? " (retention 0 keeps everything)" : "") << "\n";
  } else {
    std::cout << "pruned " << report->pruned << " entries (through #"
              << report->through_id.value_or(0) << "); checkpoint #"
              << report->checkpoint_id.value_or(0) << " keeps the chain verifiable\n";
  }
  return kExitOk;
}

}  // namespace

Action DefineAudit(CLI::App& command) {
  command.require_subcommand(1);

  CLI::App* verify = command.add_subcommand(
      "verify", "Check the hash chain; names the first broken entry and exits 1 if there is one");
  auto verify_options = std::make_shared<VerifyOptions>();
  verify_options->db = AddDatabaseOption(*verify);
  verify->add_flag("--json", verify_options->json_output, "Print the report as JSON");

  CLI::App* tail = command.add_subcommand("tail", "Print the newest audit entries");
  auto tail_options = std::make_shared<TailOptions>();
  tail_options->db = AddDatabaseOption(*tail);
  tail->add_option("-n,--lines", tail_options->count, "How many entries")
      ->check(CLI::Range(int64_t{0}, int64_t{1000000}))
      ->capture_default_str();
  tail->add_flag("-f,--follow", tail_options->follow, "Keep printing new entries as they arrive");
  tail->add_flag("--json", tail_options->json_output,
                 "One JSON object per line (chain fields included)");
  AddFilterOptions(*tail, tail_options->filter);

  CLI::App* export_command = command.add_subcommand(
      "export", "Write every entry, with prev_hash and hash, for a log pipeline");
  auto export_options = std::make_shared<ExportOptions>();
  export_options->db = AddDatabaseOption(*export_command);
  export_command->add_option("--format", export_options->format, "Output format")
      ->check(CLI::IsMember({"jsonl"}))
      ->capture_default_str();
  export_command->add_option("-o,--output", export_options->output, "File (default: stdout)");
  AddFilterOptions(*export_command, export_options->filter);

  CLI::App* prune = command.add_subcommand(
      "prune", "Delete entries older than the retention period, keeping the chain verifiable");
  auto prune_options = std::make_shared<PruneOptions>();
  prune_options->db = AddDatabaseOption(*prune);
  prune
      ->add_option("--days", prune_options->days,
                   "Keep this many days (default: audit.retention_days from settings)")
      ->check(CLI::Range(0, 365000));

  CLI::App* ship = command.add_subcommand(
      "ship",
      "Send the entries not yet shipped to an OTLP/HTTP endpoint or syslog, then record how far "
      "it got");
  Action ship_action = DefineAuditShip(*ship);

  return [=] {
    if (ship->parsed()) return ship_action();
    if (verify->parsed()) return Verify(*verify_options);
    if (tail->parsed()) return Tail(*tail_options);
    if (export_command->parsed()) return Export(*export_options);
    if (prune->parsed()) return Prune(*prune_options);
    return kExitUsage;
  };
}

}  // namespace togmal::cli
