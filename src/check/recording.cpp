#include "togmal/check/recording.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "togmal/store/allow_grants.h"
#include "togmal/store/audit_appender.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/store/shared_database.h"
#include "togmal/store/stored_input.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/text.h"

namespace togmal::check {
namespace {

// The one connection of a OneCallSinks pair, opened on first use.
class LazyConnection {
 public:
  explicit LazyConnection(AuditTarget target) : target_(std::move(target)) {}

  Result<store::Database*> Get() {
    if (!database_) {
      auto opened = OpenFor(target_);
      if (!opened) return Fail(opened.error());
      database_.emplace(std::move(opened).value());
    }
    return &*database_;
  }

 private:
  AuditTarget target_;
  std::optional<store::Database> database_;
};

}  // namespace

Result<store::Database> OpenFor(const AuditTarget& target) {
  return store::Database::Open(
      target.database.empty() ? store::DefaultDatabasePath() : target.database,
      {.busy_timeout_ms = target.lock_wait_ms,
       .sync_every_commit = target.sync_every_commit,
       .short_lived_writer = true});
}

int LockWaitForBudget(int budget_ms) { return std::max(1, budget_ms * 2 / 5); }

void ReadAuditSettings(const util::SettingsLayers& loaded, AuditTarget& target,
                       std::vector<std::string>& broken) {
  if (auto settings = store::StoreSettingsFrom(loaded.layers)) {
    target.store_raw_input = settings->audit_store_raw_input;
    target.sync_every_commit = settings->audit_sync_full;
  } else {
    broken.push_back(settings.error() + " (redacting inputs and syncing every entry)");
  }
}

JudgeSinks OneCallSinks(const AuditTarget& target) {
  auto connection = std::make_shared<LazyConnection>(target);
  const store::AuditOptions audit{.store_raw_input = target.store_raw_input};
  return {.audit = [connection, audit](store::AuditEntry entry) -> Result<int64_t> {
            auto database = connection->Get();
            if (!database) return Fail(database.error());
            return store::AuditLog(**database, audit).Append(std::move(entry));
          },
          .grants = [connection](std::string_view fingerprint,
                                 bool consume) -> Result<std::optional<store::AllowGrant>> {
            auto database = connection->Get();
            if (!database) return Fail(database.error());
            return store::AllowGrants(**database).Active(fingerprint, consume);
          }};
}

JudgeSinks SharedSinks(std::shared_ptr<store::SharedDatabase> database,
                       const store::AuditOptions& audit) {
  auto appender = std::make_shared<store::AuditAppender>(
      database, store::AuditAppenderOptions{.audit = audit, .before_commit = nullptr});
  return {.audit = [appender](store::AuditEntry entry) -> Result<int64_t> {
            return appender->Append(std::move(entry));
          },
          .grants =
              [database](std::string_view fingerprint, bool consume) {
                return database->With(
                    [&](store::Database& db) -> Result<std::optional<store::AllowGrant>> {
                      return store::AllowGrants(db).Active(fingerprint, consume);
                    });
              }};
}

nlohmann::json MalformedInput(std::string_view input) {
  nlohmann::json record = {
      {"malformed_input", util::DumpJson(nlohmann::json(util::Shorten(input, kMalformedCutBytes)))},
      {"bytes", input.size()}};
  if (input.size() > kMalformedCutBytes) record["sha256"] = store::TextDigest(input);
  return record;
}

}  // namespace togmal::check
