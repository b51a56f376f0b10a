// `togmal stats`: the agent's decisions (today, 7 days, all), then the
// failure-mode taxonomy, the detection model in use and the audit trail's size.
#include <chrono>
#include <iostream>
#include <memory>
#include <string>

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

int64_t Total(const store::DecisionTally& tally, const std::string& decision) {
  int64_t total = 0;
  if (auto found = tally.find(decision); found != tally.end()) {
    for (const auto& [level, count] : found->second) total += count;
  }
  return total;
}

std::string Padded(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

// What the agent was told, today / in 7 days / ever, then the week by level.
void PrintDecisions(const store::DecisionTally& today, const store::DecisionTally& week,
                    const store::DecisionTally& ever) {
  std::cout << "agent decisions      today   7 days      all\n";
  for (const std::string decision : {"allow", "pass", "ask", "deny"}) {
    std::cout << "  " << decision << std::string(17 - decision.size(), ' ')
              << Padded(std::to_string(Total(today, decision)), 7)
              << Padded(std::to_string(Total(week, decision)), 9)
              << Padded(std::to_string(Total(ever, decision)), 9) << "\n";
  }
  std::cout << "  last 7 days by level:";
  for (const std::string level : {"L0", "L1", "L2", "L3"}) {
    int64_t count = 0;
    for (const auto& [decision, by_level] : week) {
      if (auto found = by_level.find(level); found != by_level.end()) count += found->second;
    }
    std::cout << " " << level << " " << count;
  }
  std::cout << "\n";
}

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
  // The agent's decisions, apart from the failure-mode taxonomy.
  const auto now = std::chrono::system_clock::now();
  store::AuditFilter today, week;
  today.since = store::StartOfLocalDay(now);
  week.since = store::FormatAuditTime(now - std::chrono::hours(24 * 7));
  store::AuditLog log(*db);
  auto decided_today = log.DecisionCounts(today);
  auto decided_week = log.DecisionCounts(week);
  auto decided_ever = log.DecisionCounts({});
  for (const auto* tally : {&decided_today, &decided_week, &decided_ever}) {
    if (!*tally) {
      std::cerr << "togmal: " << tally->error() << "\n";
      return kExitFailure;
    }
  }
  const std::shared_ptr<const analysis::Model> model = analysis::ActiveModel();
  if (options.json_output) {
    const json out = {
        {"database", path.string()},
        {"decisions",
         {{"today", *decided_today}, {"last_7_days", *decided_week}, {"all", *decided_ever}}},
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
  std::cout << "database: " << path.string() << "\n\n";
  PrintDecisions(*decided_today, *decided_week, *decided_ever);
  std::cout << "\nfailure-mode taxonomy (submitted evidence): " << taxonomy->used << " of "
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
