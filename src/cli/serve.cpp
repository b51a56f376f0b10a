// `togmal serve`: the MCP server on stdio. This file is the composition point:
// it builds the tool and resource registries, lets each tools module register
// into them, and runs the server until stdin closes or a signal arrives.
#include <signal.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <memory>

#include "command.h"
#include "database_option.h"
#include "togmal/mcp/server.h"
#include "togmal/mcp/tool.h"
#include "togmal/mcp/transport.h"
#include "togmal/ship/background.h"
#include "togmal/ship/destinations.h"
#include "togmal/store/settings.h"
#include "togmal/tools/analyze_tools.h"
#include "togmal/tools/check_tool_call_tools.h"
#include "togmal/tools/taxonomy_tools.h"
#include "togmal/version.h"
#ifdef TOGMAL_WITH_TEST_TOOLS
#include "togmal/mcp/test_tools.h"
#endif

namespace togmal::cli {
namespace {

struct ServeOptions {
  long long ask_timeout_ms = 30'000;
  std::size_t max_line_bytes = mcp::kDefaultMaxLineBytes;
  DatabaseOption db;
};

/// Every tools module registers here (one line each).
void RegisterAll(mcp::ToolRegistry& tools, mcp::ResourceRegistry& resources,
                 const tools::TaxonomyToolsOptions& store_options) {
  tools::RegisterAnalyzeTools(tools, tools::SimilarEvidenceFinderFor(store_options.database));
  tools::RegisterTaxonomyTools(tools, resources, store_options);
  if (auto check = tools::ServeCheckToolCallOptions(store_options.database, store_options.audit)) {
    check->hot_reload = true;
    check->resource_changed = store_options.resource_changed;
    tools::RegisterCheckToolCallTools(tools, resources, std::move(*check));
  } else {
    spdlog::error("togmal_check_tool_call: {}", check.error());
  }
#ifdef TOGMAL_WITH_TEST_TOOLS
  if (mcp::TestToolsRequested()) mcp::RegisterTestTools(tools);
#endif
}

// When settings.yaml names shipping destinations (`ship:`), a thread ships
// the audit trail to them every ship.interval_seconds (ship/background.h).
// Bad shipping settings are logged and leave serving alone.
std::unique_ptr<ship::BackgroundShipper> StartShipping(const std::filesystem::path& database,
                                                       bool sync_full) {
  auto settings = ship::LoadShipSettings();
  if (!settings) {
    spdlog::warn("audit shipping is off: {}", settings.error());
    return nullptr;
  }
  if (!settings->Configured()) return nullptr;
  ship::DestinationChoice choice;
  choice.environment_fallback = false;  // only what settings.yaml names
  auto destinations = ship::ChooseDestinations(choice, *settings, ship::ProcessEnvironment(),
                                               ship::CurrentContext(), std::chrono::seconds(5));
  if (!destinations) {
    spdlog::warn("audit shipping is off: {}", destinations.error());
    return nullptr;
  }
  return std::make_unique<ship::BackgroundShipper>(
      database, store::OpenOptions{.sync_every_commit = sync_full}, *settings,
      std::move(*destinations));
}

int Serve(const ServeOptions& options) {
  // A client that closes its end of stdout must not kill us mid-write.
  signal(SIGPIPE, SIG_IGN);
  auto settings = store::LoadStoreSettings();
  if (!settings) {
    spdlog::error("{}", settings.error());
    return kExitConfig;
  }
  // The database opens on first use, so probing clients start fast.
  tools::TaxonomyToolsOptions store_options;
  store_options.database = std::make_shared<store::SharedDatabase>(
      options.db.Resolve(), store::OpenOptions{.sync_every_commit = settings->audit_sync_full});
  store_options.capacity = settings->taxonomy_capacity;
  store_options.audit.store_raw_input = settings->audit_store_raw_input;
  store_options.database->OnFirstOpen([days = settings->audit_retention_days](store::Database& db) {
    if (auto pruned = store::AuditLog(db).ApplyRetention(days); !pruned) {
      spdlog::warn("audit retention: {}", pruned.error());
    }
  });
  // Tools run before the server exists; they notify through this slot.
  auto server_slot = std::make_shared<std::atomic<mcp::Server*>>(nullptr);
  store_options.resource_changed = [server_slot](const std::string& uri) {
    if (mcp::Server* server = server_slot->load()) server->NotifyResourceUpdated(uri);
  };
  mcp::ToolRegistry tools;
  mcp::ResourceRegistry resources;
  RegisterAll(tools, resources, store_options);

  auto shipper = StartShipping(options.db.Resolve(), settings->audit_sync_full);

  mcp::StdioTransport transport(options.max_line_bytes);
  transport.StopOnSignals({SIGTERM, SIGINT});
  mcp::ServerOptions server_options;
  server_options.info = {"togmal", std::string(kVersion), ""};
  server_options.ask_timeout = std::chrono::milliseconds(options.ask_timeout_ms);
  mcp::Server server(transport, tools, resources, server_options);
  server_slot->store(&server);
  spdlog::debug("serving {} tools and {} resources on stdio", tools.All().size(),
                resources.All().size());
  const int exit_code = server.Run();
  server_slot->store(nullptr);
  if (shipper) shipper->Stop();
  return exit_code;
}

}  // namespace

Action DefineServe(CLI::App& command) {
  auto options = std::make_shared<ServeOptions>();
  command
      .add_option("--ask-timeout-ms", options->ask_timeout_ms,
                  "How long to wait for a legacy client to answer a sampling or elicitation "
                  "request (milliseconds)")
      ->check(CLI::Range(1LL, 3'600'000LL))
      ->capture_default_str();
  command
      .add_option("--max-line-bytes", options->max_line_bytes,
                  "Longest accepted JSON-RPC line; longer ones are answered with an error")
      ->check(CLI::Range(std::size_t{64}, std::size_t{1} << 30))
      ->capture_default_str();
  options->db = AddDatabaseOption(command);
  return [options] { return Serve(*options); };
}

}  // namespace togmal::cli
