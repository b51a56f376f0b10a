#pragma once
/// `togmal serve`'s shipper: a thread that ships to the configured
/// destinations every ship.interval_seconds on its own database connection,
/// so that answering tool calls never waits for it. Stops when destroyed.

#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "togmal/ship/destination.h"
#include "togmal/ship/settings.h"
#include "togmal/store/database.h"

namespace togmal::ship {

class BackgroundShipper {
 public:
  BackgroundShipper(std::filesystem::path database_path, store::OpenOptions open_options,
                    ShipSettings settings, std::vector<std::unique_ptr<Destination>> destinations);
  ~BackgroundShipper();
  BackgroundShipper(const BackgroundShipper&) = delete;
  BackgroundShipper& operator=(const BackgroundShipper&) = delete;

  /// Wakes the thread and waits for it (a send in flight finishes or times out first).
  void Stop();

 private:
  void Run();
  /// Waits `period` or until Stop(); false when stopping.
  bool Wait(std::chrono::milliseconds period);

  std::filesystem::path database_path_;
  store::OpenOptions open_options_;
  ShipSettings settings_;
  std::vector<std::unique_ptr<Destination>> destinations_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace togmal::ship
