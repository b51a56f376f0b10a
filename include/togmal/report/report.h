#pragma once
/// `togmal report`: one self-contained HTML page about what the agent did,
/// rendered from the database by the binary. The page's frame (styles,
/// layout) is config/report.html, embedded at build time; every value from
/// the database is escaped before it reaches the page (commands are text an
/// agent, or whoever steers it, wrote).

#include <string>
#include <string_view>
#include <vector>

#include "togmal/report/suggestions.h"
#include "togmal/store/allow_grants.h"
#include "togmal/store/audit_filter.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/decision_summary.h"
#include "togmal/store/taxonomy.h"
#include "togmal/util/result.h"

namespace togmal::report {

/// Everything the page shows, read from one database.
struct ReportData {
  std::string database;       ///< its path, for the header
  std::string generated_at;   ///< an audit time (UTC)
  store::AuditFilter filter;  ///< what was selected (since, project)
  store::DecisionSummary decisions;
  std::vector<Suggestion> suggestions;
  std::vector<store::AllowGrant> grants;  ///< active grants
  store::VerifyReport chain;              ///< as `togmal audit verify` reports it
  store::TaxonomyStatistics taxonomy;
  std::vector<store::Evidence> evidence;  ///< the newest entries
};

/// Reads the report's data from `database` (which it does not change).
Result<ReportData> CollectReport(store::Database& database, const store::AuditFilter& filter,
                                 int64_t taxonomy_capacity);

/// The page, from the embedded template.
std::string RenderReport(const ReportData& data);

/// `text` safe as HTML text and as a quoted attribute value: & < > " ' escaped.
std::string EscapeHtml(std::string_view text);

/// What a call did, in one line: a Bash command, a file path, a URL, else its input as JSON.
std::string ShownInput(const nlohmann::json& input);

}  // namespace togmal::report
