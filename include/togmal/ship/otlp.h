#pragma once
/// OpenTelemetry logs over OTLP/HTTP with the JSON encoding: the request
/// body (ExportLogsServiceRequest as proto3 JSON: lowerCamelCase names, 64-bit
/// integers as decimal strings, enums as numbers) and the standard
/// OTEL_EXPORTER_OTLP_* configuration.

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "togmal/ship/record.h"
#include "togmal/store/audit_log.h"
#include "togmal/util/result.h"

namespace togmal::ship {

/// {"resourceLogs":[{"resource":…,"scopeLogs":[{"scope":…,"logRecords":[…]}]}]},
/// one log record per entry, in order.
std::string EncodeOtlpLogs(std::span<const store::AuditEntry> entries, const ShipContext& context);

/// A stored time ("2026-11-22T18:47:19.123456Z") as nanoseconds since the
/// Unix epoch; nullopt when it is not in that form (edited by hand).
std::optional<int64_t> UnixNanos(std::string_view stored_time);

/// OTLP's severity number for a severity: INFO 9, INFO2 10, WARN 13 (the
/// logs data model's mapping of syslog's info, notice and warning).
int OtlpSeverityNumber(Severity severity);

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

/// OTEL_EXPORTER_OTLP_HEADERS: "key=value,key2=value2", whitespace around
/// each part trimmed, values percent-decoded. A part without '=' or with an
/// empty key fails, naming it.
Result<HttpHeaders> ParseOtlpHeaders(std::string_view text);

/// Reads an environment variable (std::getenv in production, a map in tests).
using EnvironmentLookup = std::function<std::optional<std::string>(const char* name)>;
EnvironmentLookup ProcessEnvironment();

/// The logs endpoint from the environment: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT
/// as given, else OTEL_EXPORTER_OTLP_ENDPOINT + "/v1/logs"; nullopt when
/// neither is set.
std::optional<std::string> OtlpEndpointFromEnvironment(const EnvironmentLookup& env);

/// OTEL_EXPORTER_OTLP_HEADERS, then OTEL_EXPORTER_OTLP_LOGS_HEADERS (whose
/// keys replace the general ones).
Result<HttpHeaders> OtlpHeadersFromEnvironment(const EnvironmentLookup& env);

}  // namespace togmal::ship
