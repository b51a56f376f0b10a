#pragma once
// A fixed set of threads running queued tasks: tool calls must not block the
// reader (it routes the client's replies to handlers waiting in Ask), and a
// thread per call would cost too much at thousands of calls per second.

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace togmal::mcp {

class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void Submit(std::function<void()> task);
  /// Blocks until the queue is empty and no task is running.
  void Drain();

 private:
  void Work();

  std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable idle_;
  std::deque<std::function<void()>> queue_;
  unsigned running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace togmal::mcp
