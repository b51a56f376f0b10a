#pragma once
/// The `ship:` section of settings.yaml: which destinations `togmal audit
/// ship` and `togmal serve` ship the audit trail to, how often and how.

#include <string>

#include "togmal/util/result.h"
#include "togmal/util/settings_layers.h"

namespace togmal::ship {

struct ShipSettings {
  /// ship.otlp: an http:// logs endpoint, "env" for the OTEL_EXPORTER_OTLP_*
  /// variables, or "" (not shipped over OTLP).
  std::string otlp;
  /// ship.syslog: unix:/dev/log, udp://HOST:PORT, tcp://HOST:PORT, or "".
  std::string syslog;
  int interval_seconds = 60;  ///< ship.interval_seconds: serve's period
  int batch = 100;            ///< ship.batch
  int retries = 3;            ///< ship.retries

  bool Configured() const { return !otlp.empty() || !syslog.empty(); }
};

/// `base` with one layer's `ship:` keys applied; errors name file:line.
Result<ShipSettings> ShipSettingsFrom(const util::SettingsLayer& layer, ShipSettings base);

/// The embedded settings, then the user's.
Result<ShipSettings> LoadShipSettings();

}  // namespace togmal::ship
