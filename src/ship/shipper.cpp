#include "togmal/ship/shipper.h"

#include <algorithm>
#include <thread>

#include "togmal/ship/cursor.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::ship {

namespace {

bool SleepFor(std::chrono::milliseconds delay) {
  std::this_thread::sleep_for(delay);
  return true;
}

}  // namespace

ShipReport Ship(store::Database& database, Destination& destination, const ShipOptions& options) {
  ShipReport report;
  report.destination = destination.Name();
  auto fail = [&report](std::optional<int64_t> first, std::string problem) {
    report.ok = false;
    report.first_unshipped = first;
    report.problem = std::move(problem);
    return report;
  };
  auto cursor = ReadShipCursor(database, report.destination);
  if (!cursor) return fail(std::nullopt, cursor.error());
  report.cursor = *cursor;
  const auto wait = options.wait ? options.wait : SleepFor;
  std::chrono::milliseconds waited{0};
  store::AuditLog log(database);
  int64_t position = report.cursor;
  while (true) {
    auto batch = log.After(position, std::max<int64_t>(options.batch, 1));
    if (!batch) return fail(position + 1, batch.error());
    if (batch->empty()) return report;
    const int64_t first = batch->front().id, last = batch->back().id;
    if (options.dry_run) {
      if (options.preview) options.preview(destination.Preview(*batch));
      report.shipped += static_cast<int64_t>(batch->size());
      ++report.batches;
      position = last;
      continue;
    }
    Delivery delivery = destination.Send(*batch);
    auto backoff = options.first_backoff;
    for (int attempt = 0; delivery.outcome == Outcome::kRetry && attempt < options.retries;
         ++attempt) {
      // Bounded: the whole run never waits longer than max_wait in all.
      const auto delay = std::min(backoff, options.max_wait - waited);
      if (delay <= std::chrono::milliseconds(0) || !wait(delay)) break;
      waited += delay;
      backoff *= 2;
      delivery = destination.Send(*batch);
    }
    if (delivery.outcome != Outcome::kAcknowledged) {
      const bool refused = delivery.outcome == Outcome::kRefused;
      return fail(first, (refused ? "refused: " : "unreachable: ") + delivery.problem);
    }
    if (auto advanced = AdvanceShipCursor(database, report.destination, last); !advanced) {
      // Delivered but not recorded: the next run sends this batch again
      // (at least once), and says so now.
      return fail(first, advanced.error());
    }
    report.cursor = position = last;
    report.shipped += static_cast<int64_t>(batch->size());
    ++report.batches;
  }
}

}  // namespace togmal::ship
