#pragma once
/// Which destinations a run ships to: the command line's, else settings',
/// else the OTEL_EXPORTER_OTLP_* environment.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "togmal/ship/destination.h"
#include "togmal/ship/otlp.h"
#include "togmal/ship/settings.h"

namespace togmal::ship {

struct DestinationChoice {
  /// --otlp given: its URL, or "" for the environment's endpoint.
  std::optional<std::string> otlp;
  std::string syslog;  ///< --syslog
  /// Fall back to the environment's OTLP endpoint when neither flags nor
  /// settings name a destination (`audit ship`, not `serve`).
  bool environment_fallback = true;
};

/// The destinations to ship to; empty when none is named anywhere. An
/// unusable one (https://, a bad URL or header) fails, naming it.
Result<std::vector<std::unique_ptr<Destination>>> ChooseDestinations(
    const DestinationChoice& choice, const ShipSettings& settings, const EnvironmentLookup& env,
    const ShipContext& context, std::chrono::milliseconds timeout);

}  // namespace togmal::ship
