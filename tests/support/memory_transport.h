#pragma once
// An in-memory MCP transport for tests: lines are pushed in, sent messages
// are collected and can be awaited. The server under test cannot tell it
// from stdio (togmal/mcp/transport.h).

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/mcp/transport.h"

namespace togmal::mcp {

class MemoryTransport final : public Transport {
 public:
  IncomingLine Receive() override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !incoming_.empty() || closed_; });
    if (incoming_.empty()) return {IncomingLine::Kind::kClosed, {}};
    IncomingLine line = std::move(incoming_.front());
    incoming_.pop_front();
    return line;
  }

  void Send(std::string_view message) override {
    std::lock_guard lock(mutex_);
    sent_.emplace_back(message);
    changed_.notify_all();
  }

  /// Queues an incoming line.
  void Push(std::string line) {
    std::lock_guard lock(mutex_);
    incoming_.push_back({IncomingLine::Kind::kMessage, std::move(line)});
    changed_.notify_all();
  }

  /// Queues the marker an oversize line produces.
  void PushOversize() {
    std::lock_guard lock(mutex_);
    incoming_.push_back({IncomingLine::Kind::kOversize, "message longer than the limit"});
    changed_.notify_all();
  }

  /// Ends input once everything queued has been received.
  void Close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

  /// All messages sent so far.
  std::vector<std::string> Sent() const {
    std::lock_guard lock(mutex_);
    return sent_;
  }

  /// Waits until at least `count` messages were sent; false on timeout.
  bool WaitForSent(std::size_t count, int timeout_ms = 5000) const {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                             [&] { return sent_.size() >= count; });
  }

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::deque<IncomingLine> incoming_;
  bool closed_ = false;
  std::vector<std::string> sent_;
};

}  // namespace togmal::mcp
