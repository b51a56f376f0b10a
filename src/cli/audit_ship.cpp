// `togmal audit ship`: sends the audit entries each destination has not
// acknowledged yet (src/ship/), then says how far it got. Run by hand, by the
// systemd timer (packaging/systemd/) on machines that only run the hook, and
// in the background by `serve`. Never by the hook.
#include "audit_ship.h"

#include <signal.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "database_option.h"
#include "togmal/ship/destinations.h"
#include "togmal/ship/settings.h"
#include "togmal/ship/shipper.h"
#include "togmal/store/database.h"

namespace togmal::cli {
namespace {

struct ShipCommandOptions {
  DatabaseOption db;
  std::optional<std::string> otlp;  // --otlp given: its URL, or "" for the environment's
  std::string otlp_url;
  std::string syslog;
  int64_t batch = 0;  // 0: ship.batch from settings
  int retries = -1;   // -1: ship.retries from settings
  long long timeout_ms = 10'000;
  bool dry_run = false;
};

int RunShip(const ShipCommandOptions& options) {
  signal(SIGPIPE, SIG_IGN);
  auto settings = ship::LoadShipSettings();
  if (!settings) {
    std::cerr << "togmal: " << settings.error() << "\n";
    return kExitConfig;
  }
  auto destinations = ship::ChooseDestinations(
      {.otlp = options.otlp, .syslog = options.syslog, .environment_fallback = true}, *settings,
      ship::ProcessEnvironment(), ship::CurrentContext(),
      std::chrono::milliseconds(options.timeout_ms));
  if (!destinations) {
    std::cerr << "togmal: " << destinations.error() << "\n";
    return kExitUsage;
  }
  if (destinations->empty()) {
    std::cerr << "togmal: no destination: give --otlp URL or --syslog TARGET, set ship.otlp or "
                 "ship.syslog in settings.yaml, or set OTEL_EXPORTER_OTLP_ENDPOINT\n";
    return kExitUsage;
  }
  const auto path = options.db.Resolve();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    std::cerr << "togmal: no audit trail at " << path.string() << "\n";
    return kExitNoInput;
  }
  auto db = store::Database::Open(path);
  if (!db) {
    std::cerr << "togmal: " << db.error() << "\n";
    return kExitFailure;
  }
  ship::ShipOptions ship_options;
  ship_options.batch = options.batch > 0 ? options.batch : settings->batch;
  ship_options.retries = options.retries >= 0 ? options.retries : settings->retries;
  ship_options.dry_run = options.dry_run;
  ship_options.preview = [](std::string_view wire) {
    std::cout << wire << (wire.ends_with('\n') ? "" : "\n");
  };
  int exit_code = kExitOk;
  for (const auto& destination : *destinations) {
    const ship::ShipReport report = ship::Ship(*db, *destination, ship_options);
    if (!report.ok) {
      std::cerr << "togmal: shipping to " << report.destination << " failed";
      if (report.first_unshipped) {
        std::cerr << " at entry #" << *report.first_unshipped << " (not shipped, nor any after it)";
      }
      std::cerr << ": " << report.problem << "; " << report.shipped
                << " entries shipped in this run, the cursor stays at #" << report.cursor
                << " and the next run starts after it\n";
      exit_code = kExitFailure;
      continue;
    }
    if (options.dry_run) {
      std::cout << "would ship " << report.shipped << " entries to " << report.destination
                << " (after #" << report.cursor << ")\n";
    } else if (report.shipped == 0) {
      std::cout << "nothing new for " << report.destination << " (cursor #" << report.cursor
                << ")\n";
    } else {
      std::cout << "shipped " << report.shipped << " entries in " << report.batches
                << " batches to " << report.destination << " (cursor #" << report.cursor << ")\n";
    }
  }
  return exit_code;
}

}  // namespace

Action DefineAuditShip(CLI::App& ship) {
  auto options = std::make_shared<ShipCommandOptions>();
  options->db = AddDatabaseOption(ship);
  CLI::Option* otlp =
      ship.add_option("--otlp", options->otlp_url,
                      "OTLP/HTTP logs endpoint (http:// only); without a URL, "
                      "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/logs")
          ->expected(0, 1);
  ship.add_option("--syslog", options->syslog,
                  "Syslog receiver: unix:/dev/log, udp://HOST:PORT or tcp://HOST:PORT");
  ship.add_option("--batch", options->batch, "Entries per request (default: ship.batch)")
      ->check(CLI::Range(int64_t{1}, int64_t{10000}));
  ship.add_option("--retries", options->retries,
                  "Further attempts at a batch the destination did not take, with backoff "
                  "(default: ship.retries)")
      ->check(CLI::Range(0, 20));
  ship.add_option("--timeout-ms", options->timeout_ms,
                  "How long to wait to connect, send or hear back (milliseconds)")
      ->check(CLI::Range(100LL, 600'000LL))
      ->capture_default_str();
  ship.add_flag("--dry-run", options->dry_run,
                "Print what would be sent and how many entries; send nothing, move no cursor");
  return [options, otlp] {
    if (otlp->count() > 0) options->otlp = options->otlp_url;
    return RunShip(*options);
  };
}

}  // namespace togmal::cli
