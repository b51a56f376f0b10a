#pragma once
// A tiny OTLP/HTTP logs receiver for the shipping test: a thread that accepts
// one POST per connection, checks the OTLP JSON shape of the body, records
// every log record and answers 200 (or what the test asks for).

#include <atomic>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace togmal::testing {

class OtlpReceiver {
 public:
  /// Listens on 127.0.0.1:`port` (0: any free port).
  explicit OtlpReceiver(int port = 0);
  ~OtlpReceiver();
  OtlpReceiver(const OtlpReceiver&) = delete;
  OtlpReceiver& operator=(const OtlpReceiver&) = delete;

  int port() const { return port_; }
  /// Every log record received, in arrival order.
  std::vector<nlohmann::json> Records();
  /// What was wrong with the requests (shape, headers); empty when all were right.
  std::vector<std::string> Problems();
  /// Requests answered so far.
  int Requests() const { return requests_; }
  /// The headers of the last request, lower-cased names.
  std::string LastHead();

 private:
  void Serve();
  void Handle(int fd);
  void Check(const nlohmann::json& body);

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::vector<nlohmann::json> records_;
  std::vector<std::string> problems_;
  std::string last_head_;
  std::thread thread_;
};

}  // namespace togmal::testing
