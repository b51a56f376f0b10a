// serve's background shipping. Its own connection (the server's is used by
// the request thread only) and its own thread: a destination that is slow or
// down costs this thread time, never an answer. Each round tries every batch
// once (no backoff inside the round); the next round, one period later, is
// the retry.
#include "togmal/ship/background.h"

#include <spdlog/spdlog.h>

#include <map>
#include <string>

#include "togmal/ship/shipper.h"

namespace togmal::ship {

BackgroundShipper::BackgroundShipper(std::filesystem::path database_path,
                                     store::OpenOptions open_options, ShipSettings settings,
                                     std::vector<std::unique_ptr<Destination>> destinations)
    : database_path_(std::move(database_path)),
      open_options_(open_options),
      settings_(std::move(settings)),
      destinations_(std::move(destinations)) {
  thread_ = std::thread([this] { Run(); });
}

BackgroundShipper::~BackgroundShipper() { Stop(); }

void BackgroundShipper::Stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool BackgroundShipper::Wait(std::chrono::milliseconds period) {
  std::unique_lock lock(mutex_);
  return !wake_.wait_for(lock, period, [this] { return stopping_; });
}

void BackgroundShipper::Run() {
  const std::chrono::milliseconds period = std::chrono::seconds(settings_.interval_seconds);
  // The last problem said of each destination (by name).
  std::map<std::string, std::string> said;
  // The first round waits one period too: serve's start-up stays as fast as before.
  while (Wait(period)) {
    auto database = store::Database::Open(database_path_, open_options_);
    if (!database) {
      spdlog::warn("audit shipping: {}", database.error());
      continue;
    }
    for (const auto& destination : destinations_) {
      ShipOptions options;
      options.batch = settings_.batch;
      options.retries = 0;
      const ShipReport report = Ship(*database, *destination, options);
      if (report.ok) {
        if (report.shipped > 0) {
          spdlog::debug("audit shipping: {} entries to {}", report.shipped, report.destination);
        }
        said.erase(report.destination);
        continue;
      }
      // Said once per problem, not every period while a destination is down.
      if (said[report.destination] != report.problem) {
        spdlog::warn(
            "audit shipping to {} stopped at entry #{} (not shipped yet; the next round sends it): "
            "{}",
            report.destination, report.first_unshipped.value_or(0), report.problem);
        said[report.destination] = report.problem;
      }
      std::lock_guard lock(mutex_);
      if (stopping_) return;
    }
  }
}

}  // namespace togmal::ship
