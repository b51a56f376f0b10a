// `togmal stats`: taxonomy and audit counts, and which detection model is in use.
#include <iostream>
#include <memory>

#include "command.h"
#include "database_option.h"
#include "togmal/analysis/active_model.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/store/taxonomy.h"

namespace togmal::cli {
namespace {

using nlohmann::json;

struct StatsOptions {
  DatabaseOption db;
  bool json_output = false;
};

int Stats(const StatsOptions& options) {
  auto settings = store::LoadStoreSettings();
  if (!settings) {
    std::cerr << "togmal: " << settings.error() << "\n";
    return kExitConfig;
  }
  const auto path = options.db.Resolve();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    std::cerr << "togmal: no database at " << path.string() << " yet (nothing recorded)\n";
    return kExitNoInput;
  }
  auto db = store::Database::Open(path, {.read_only = true});
  if (!db) {
    std::cerr << "togmal: " << db.error() << "\n";
    return kExitFailure;
  }
  auto taxonomy = store::Taxonomy(*db, settings->taxonomy_capacity).Statistics();
  if (!taxonomy) {
    std::cerr << "togmal: " << taxonomy.error() << "\n";
    return kExitFailure;
  }
  auto audit = store::AuditLog(*db).Counts();
  if (!audit) {
    std::cerr << "togmal: " << audit.error() << "\n";
    return kExitFailure;
  }
  const std::shared_ptr<const analysis::Model> model = analysis::ActiveModel();
  if (options.json_output) {
    const json out = {
        {"database", path.string()},
        {"taxonomy",
         {{"total", taxonomy->total},
          {"by_category", taxonomy->by_category},
          {"by_severity", taxonomy->by_severity},
          {"capacity", taxonomy->capacity},
          {"used", taxonomy->used}}},
        {"model",
         {{"origin", model->origin},
          {"trained_at", model->trained_at},
          {"trained_on", model->trained_on},
          {"verdicts", model->verdicts.size()}}},
        {"audit",
         {{"total", audit->total},
          {"by_kind", audit->by_kind},
          {"by_decision", audit->by_decision},
          {"first_time", audit->first_time.empty() ? json(nullptr) : json(audit->first_time)},
          {"last_time", audit->last_time.empty() ? json(nullptr) : json(audit->last_time)}}}};
    std::cout << out.dump() << "\n";
    return kExitOk;
  }
  std::cout << "database: " << path.string() << "\n\ntaxonomy: " << taxonomy->used << " of "
            << taxonomy->capacity << " entries\n";
  for (const auto& [category, count] : taxonomy->by_category) {
    std::cout << "  " << category << ": " << count << "\n";
  }
  std::cout << "by severity:";
  for (std::string_view severity : store::kSeverities) {
    std::cout << " " << severity << " " << taxonomy->by_severity[std::string(severity)];
  }
  std::cout << "\n\ndetection model: " << model->origin << ", trained " << model->trained_at
            << " on " << model->trained_on << "\n";
  std::cout << "\naudit trail: " << audit->total << " entries";
  if (!audit->first_time.empty()) {
    std::cout << " (" << audit->first_time << " to " << audit->last_time << ")";
  }
  std::cout << "\n";
  for (const auto& [kind, count] : audit->by_kind)
    std::cout << "  " << kind << ": " << count << "\n";
  if (!audit->by_decision.empty()) {
    std::cout << "decisions:";
    for (const auto& [decision, count] : audit->by_decision) {
      std::cout << " " << decision << " " << count;
    }
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace

Action DefineStats(CLI::App& command) {
  auto options = std::make_shared<StatsOptions>();
  options->db = AddDatabaseOption(command);
  command.add_flag("--json", options->json_output, "Print as JSON");
  return [options] { return Stats(*options); };
}

}  // namespace togmal::cli
