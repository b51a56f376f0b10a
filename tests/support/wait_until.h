#pragma once
// Polls a condition another thread or process makes true, within a bound:
// tests wait for what they need, never for a fixed time.

#include <chrono>
#include <thread>

namespace togmal::testing {

/// Waits (bounded) until `done()`; false on timeout.
template <typename Predicate>
bool WaitUntil(Predicate done, std::chrono::seconds limit = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace togmal::testing
