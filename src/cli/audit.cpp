// `togmal audit verify|tail|export|prune`: read and check the audit trail.
#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <thread>

#include "command.h"
#include "database_option.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"

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
  std::string text = value.is_string() ? value.get<std::string>() : Dump(value);
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (text.size() > max) {
    std::size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
    text = text.substr(0, cut) + "…";
  }
  return text;
}

// One readable line per entry.
std::string HumanLine(const store::AuditEntry& entry) {
  std::string line = "#" + std::to_string(entry.id) + " " + entry.time + " " +
                     std::string(store::AuditKindName(entry.kind));
  auto add = [&line](const std::string& label, const std::string& value) {
    if (!value.empty()) line += " " + label + value;
  };
  switch (entry.kind) {
    case store::AuditKind::kDecision:
      add("", entry.decision);
      add("", entry.level);
      add("", entry.tool_name);
      add("rule=", entry.rule);
      if (!entry.input.is_null()) {
        const json& input = entry.input;
        const json shown =
            input.is_object() && input.contains("command") ? input["command"] : input;
        line += " " + Summary(shown, 100);
      }
      if (entry.latency_us > 0) line += " (" + std::to_string(entry.latency_us) + " µs)";
      break;
    case store::AuditKind::kCheckpoint:
      line += " pruned through #" +
              std::to_string(entry.detail.value("pruned_through_id", int64_t{0})) + " (" +
              std::to_string(entry.detail.value("pruned_count", int64_t{0})) + " entries)";
      break;
    default:
      add("", entry.tool_name);
      add("session=", entry.session);
      if (!entry.detail.is_null()) line += " " + Summary(entry.detail, 160);
  }
  return line;
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
  int64_t count = 20;
  bool follow = false;
  bool json_output = false;
  int poll_ms = 250;
};

int Tail(const TailOptions& options) {
  int exit_code = kExitOk;
  auto db = OpenForReading(options.db, exit_code);
  if (!db) return exit_code;
  store::AuditLog log(*db);
  auto print = [&options](const store::AuditEntry& entry) {
    std::cout << (options.json_output ? Dump(store::ToJson(entry)) : HumanLine(entry)) << "\n";
  };
  auto tail = log.Tail(options.count);
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
    auto newest = log.Tail(1);
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
    for (const store::AuditEntry& entry : *fresh) {
      print(entry);
      last_id = entry.id;
    }
    std::cout << std::flush;
  }
  return kExitOk;
}

struct ExportOptions {
  DatabaseOption db;
  std::string format = "jsonl";
  std::string output;
};

int Export(const ExportOptions& options) {
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
      [&out](const store::AuditEntry& entry) { out << Dump(store::ToJson(entry)) << "\n"; });
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

  CLI::App* export_command = command.add_subcommand(
      "export", "Write every entry, with prev_hash and hash, for a log pipeline");
  auto export_options = std::make_shared<ExportOptions>();
  export_options->db = AddDatabaseOption(*export_command);
  export_command->add_option("--format", export_options->format, "Output format")
      ->check(CLI::IsMember({"jsonl"}))
      ->capture_default_str();
  export_command->add_option("-o,--output", export_options->output, "File (default: stdout)");

  CLI::App* prune = command.add_subcommand(
      "prune", "Delete entries older than the retention period, keeping the chain verifiable");
  auto prune_options = std::make_shared<PruneOptions>();
  prune_options->db = AddDatabaseOption(*prune);
  prune
      ->add_option("--days", prune_options->days,
                   "Keep this many days (default: audit.retention_days from settings)")
      ->check(CLI::Range(0, 365000));

  return [=] {
    if (verify->parsed()) return Verify(*verify_options);
    if (tail->parsed()) return Tail(*tail_options);
    if (export_command->parsed()) return Export(*export_options);
    if (prune->parsed()) return Prune(*prune_options);
    return kExitUsage;
  };
}

}  // namespace togmal::cli
