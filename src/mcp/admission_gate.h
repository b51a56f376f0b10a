#pragma once
// Backpressure for `serve`: the requests the server holds (queued for or
// running on the worker pool) are bounded. At the bound the reader stops
// taking new ones, so the client's writes wait in the pipe instead of the
// process's memory growing; reading resumes as work finishes. Only the reader
// can deliver the client's answer to a worker that asked it something (legacy
// Ask), so while one waits for such an answer the reader keeps reading, up to
// a hard bound past which new requests are refused.

#include <condition_variable>
#include <cstddef>
#include <mutex>

namespace togmal::mcp {

struct AdmissionLimits {
  std::size_t requests = 64;                ///< held requests at which the reader waits
  std::size_t bytes = 64u * 1024u * 1024u;  ///< input bytes of held requests, likewise
  std::size_t hard_factor = 4;              ///< × both: refuse instead of holding more
};

class AdmissionGate {
 public:
  explicit AdmissionGate(AdmissionLimits limits);

  /// Reader thread: waits until a request of `bytes` input bytes may be
  /// held; false if it must be refused (hard bound). Each true is paired
  /// with one Release(bytes).
  bool Admit(std::size_t bytes);
  void Release(std::size_t bytes);

  /// A held request starts/stops waiting for the client's answer.
  void BeginWaitForClient();
  void EndWaitForClient();

 private:
  bool Over(std::size_t bytes, std::size_t factor) const;

  const AdmissionLimits limits_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t held_ = 0;
  std::size_t held_bytes_ = 0;
  std::size_t waiting_for_client_ = 0;
};

}  // namespace togmal::mcp
