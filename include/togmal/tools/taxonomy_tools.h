#pragma once
/// The taxonomy tools (`togmal_submit_evidence`, `togmal_get_taxonomy`,
/// `togmal_get_statistics`) and the store's resources (`taxonomy://statistics`,
/// `audit://recent`), bound to the MCP registries.

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/mcp/tool.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/shared_database.h"
#include "togmal/store/taxonomy.h"

namespace togmal::tools {

struct TaxonomyToolsOptions {
  /// The database every tool and resource uses (required).
  std::shared_ptr<store::SharedDatabase> database;
  /// How many entries the taxonomy holds (settings: taxonomy.capacity).
  int64_t capacity = store::kDefaultCapacity;
  /// Audit options (settings: audit.store_raw_input).
  store::AuditOptions audit;
  /// Called with a resource URI after a tool changed it (wire to
  /// mcp::Server::NotifyResourceUpdated); may be empty.
  std::function<void(const std::string& uri)> resource_changed;
};

/// The three tools, in registration order.
std::vector<mcp::Tool> TaxonomyTools(const TaxonomyToolsOptions& options);

/// `taxonomy://statistics` and `audit://recent`.
std::vector<mcp::Resource> StoreResources(const TaxonomyToolsOptions& options);

/// Adds TaxonomyTools() and StoreResources() to the registries.
void RegisterTaxonomyTools(mcp::ToolRegistry& tools, mcp::ResourceRegistry& resources,
                           const TaxonomyToolsOptions& options);

/// For the analysis tools' `similar_evidence`: the closest stored entries
/// (at most 5) as `[{id, category, description, score}]`; `[]` when the
/// database cannot be read (the analysis must not fail for it).
std::function<nlohmann::json(std::string_view text)> SimilarEvidenceFinderFor(
    std::shared_ptr<store::SharedDatabase> database);

/// Cuts tool text at 25,000 characters, with a closing line that says so
/// (structuredContent is never cut).
std::string CutToolText(std::string text);

}  // namespace togmal::tools
