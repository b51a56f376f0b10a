#pragma once
/// Where audit entries are shipped: an OTLP/HTTP endpoint or a syslog
/// receiver. A destination sends one batch and says whether it was
/// acknowledged, worth retrying, or refused for good.

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "togmal/ship/otlp.h"
#include "togmal/ship/record.h"
#include "togmal/store/audit_log.h"
#include "togmal/util/result.h"

namespace togmal::ship {

enum class Outcome {
  kAcknowledged,  ///< the destination took the whole batch
  kRetry,         ///< down, busy or overloaded: try again later
  kRefused,       ///< it will never take this batch as sent (bad URL, 400, 401…)
};

struct Delivery {
  Outcome outcome = Outcome::kAcknowledged;
  std::string problem;  ///< why not, one sentence, when not acknowledged
};

class Destination {
 public:
  virtual ~Destination() = default;
  /// The destination as a person wrote it ("otlp http://…/v1/logs", "syslog
  /// tcp://…"); also the key of its cursor.
  virtual std::string Name() const = 0;
  virtual Delivery Send(std::span<const store::AuditEntry> entries) = 0;
  /// What Send would put on the wire (`audit ship --dry-run`).
  virtual std::string Preview(std::span<const store::AuditEntry> entries) const = 0;
};

/// An OTLP/HTTP JSON logs endpoint (a plain http:// URL).
Result<std::unique_ptr<Destination>> MakeOtlpDestination(std::string_view url, HttpHeaders headers,
                                                         ShipContext context,
                                                         std::chrono::milliseconds timeout);

/// A syslog receiver: unix:/PATH (a datagram socket such as /dev/log),
/// udp://HOST:PORT, or tcp://HOST:PORT (octet-counted frames).
Result<std::unique_ptr<Destination>> MakeSyslogDestination(std::string_view target,
                                                           ShipContext context,
                                                           std::chrono::milliseconds timeout);

}  // namespace togmal::ship
