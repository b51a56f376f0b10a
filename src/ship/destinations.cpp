#include "togmal/ship/destinations.h"

namespace togmal::ship {

namespace {

Result<std::unique_ptr<Destination>> Otlp(const std::string& url, const EnvironmentLookup& env,
                                          const ShipContext& context,
                                          std::chrono::milliseconds timeout) {
  std::string endpoint = url;
  if (endpoint.empty() || endpoint == "env") {
    auto from_environment = OtlpEndpointFromEnvironment(env);
    if (!from_environment) {
      return Fail(
          "no OTLP endpoint: give --otlp URL or set OTEL_EXPORTER_OTLP_LOGS_ENDPOINT or "
          "OTEL_EXPORTER_OTLP_ENDPOINT");
    }
    endpoint = *from_environment;
  }
  auto headers = OtlpHeadersFromEnvironment(env);
  if (!headers) return Fail(headers.error());
  return MakeOtlpDestination(endpoint, std::move(*headers), context, timeout);
}

}  // namespace

Result<std::vector<std::unique_ptr<Destination>>> ChooseDestinations(
    const DestinationChoice& choice, const ShipSettings& settings, const EnvironmentLookup& env,
    const ShipContext& context, std::chrono::milliseconds timeout) {
  std::string otlp, syslog;
  bool want_otlp = false;
  if (choice.otlp || !choice.syslog.empty()) {
    want_otlp = choice.otlp.has_value();
    otlp = choice.otlp.value_or("");
    syslog = choice.syslog;
  } else if (settings.Configured()) {
    want_otlp = !settings.otlp.empty();
    otlp = settings.otlp;
    syslog = settings.syslog;
  } else if (choice.environment_fallback && OtlpEndpointFromEnvironment(env)) {
    want_otlp = true;
  }
  std::vector<std::unique_ptr<Destination>> destinations;
  if (want_otlp) {
    auto destination = Otlp(otlp, env, context, timeout);
    if (!destination) return Fail(destination.error());
    destinations.push_back(std::move(*destination));
  }
  if (!syslog.empty()) {
    auto destination = MakeSyslogDestination(syslog, context, timeout);
    if (!destination) return Fail(destination.error());
    destinations.push_back(std::move(*destination));
  }
  return destinations;
}

}  // namespace togmal::ship
