#pragma once
/// One shipping run to one destination: the entries after its cursor, in
/// order, in batches; each batch retried with backoff while the destination
/// is down; the cursor advanced after each acknowledged batch. At least once
/// and nothing skipped: a batch is sent again until it is acknowledged.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "togmal/ship/destination.h"

namespace togmal::store {
class Database;
}

namespace togmal::ship {

struct ShipOptions {
  int64_t batch = 100;  ///< entries per request (OTLP) or per connection (syslog)
  int retries = 3;      ///< further attempts at a batch that was not acknowledged
  std::chrono::milliseconds first_backoff{500};  ///< doubled after each attempt
  std::chrono::milliseconds max_wait{30'000};    ///< all the backoff of one run together
  /// Send nothing, move no cursor: hand each batch's wire form to `preview`.
  bool dry_run = false;
  std::function<void(std::string_view)> preview;
  /// How to wait between attempts (tests count instead of sleeping); the
  /// default sleeps. Returns false when the run should stop instead.
  std::function<bool(std::chrono::milliseconds)> wait;
};

struct ShipReport {
  std::string destination;
  int64_t shipped = 0;  ///< entries acknowledged (or previewed) in this run
  int64_t batches = 0;
  int64_t cursor = 0;  ///< the cursor after the run
  bool ok = true;
  std::optional<int64_t> first_unshipped;  ///< when !ok: the first entry not acknowledged
  std::string problem;                     ///< when !ok: why, one sentence
};

ShipReport Ship(store::Database& database, Destination& destination, const ShipOptions& options);

}  // namespace togmal::ship
