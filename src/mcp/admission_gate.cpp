#include "admission_gate.h"

namespace togmal::mcp {

AdmissionGate::AdmissionGate(AdmissionLimits limits) : limits_(limits) {}

bool AdmissionGate::Over(std::size_t bytes, std::size_t factor) const {
  // One request is always admitted when none is held, however large.
  if (held_ == 0) return false;
  return held_ >= limits_.requests * factor || held_bytes_ + bytes > limits_.bytes * factor;
}

bool AdmissionGate::Admit(std::size_t bytes) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return waiting_for_client_ > 0 || !Over(bytes, 1); });
  if (Over(bytes, limits_.hard_factor)) return false;
  ++held_;
  held_bytes_ += bytes;
  return true;
}

void AdmissionGate::Release(std::size_t bytes) {
  {
    std::lock_guard lock(mutex_);
    --held_;
    held_bytes_ -= bytes;
  }
  changed_.notify_all();
}

void AdmissionGate::BeginWaitForClient() {
  {
    std::lock_guard lock(mutex_);
    ++waiting_for_client_;
  }
  changed_.notify_all();
}

void AdmissionGate::EndWaitForClient() {
  std::lock_guard lock(mutex_);
  --waiting_for_client_;
}

}  // namespace togmal::mcp
