// Reads what the page shows from the store's own queries: the decision
// summary (the filter `audit tail` uses), the active grants (`allow --list`),
// the chain check (`audit verify`) and the taxonomy (`stats`).
#include "togmal/report/report.h"

namespace togmal::report {

namespace {
constexpr int64_t kEvidenceShown = 20;
}

Result<ReportData> CollectReport(store::Database& database, const store::AuditFilter& filter,
                                 int64_t taxonomy_capacity) {
  ReportData data;
  data.database = database.path().string();
  data.generated_at = store::FormatAuditTime(std::chrono::system_clock::now());
  data.filter = filter;
  store::AuditLog log(database);
  auto decisions = store::SummarizeDecisions(log, filter);
  if (!decisions) return Fail(decisions.error());
  data.decisions = std::move(*decisions);
  data.suggestions = SuggestRules(data.decisions.actions);
  auto grants = store::AllowGrants(database).List(/*include_spent=*/false);
  if (!grants) return Fail(grants.error());
  data.grants = std::move(*grants);
  auto chain = log.Verify();
  if (!chain) return Fail(chain.error());
  data.chain = std::move(*chain);
  store::Taxonomy taxonomy(database, taxonomy_capacity);
  auto statistics = taxonomy.Statistics();
  if (!statistics) return Fail(statistics.error());
  data.taxonomy = std::move(*statistics);
  auto newest = taxonomy.Query({.limit = kEvidenceShown});
  if (!newest) return Fail(newest.error());
  data.evidence = std::move(newest->entries);
  return data;
}

}  // namespace togmal::report
