// The OTEL_EXPORTER_OTLP_* variables, as the OpenTelemetry SDKs read them.
#include <cstdlib>

#include "togmal/ship/otlp.h"

namespace togmal::ship {

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX decoded; a '%' not followed by two hex digits is kept as it is.
std::string PercentDecode(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      const int high = HexDigit(text[i + 1]), low = HexDigit(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out.push_back(static_cast<char>(high * 16 + low));
        i += 2;
        continue;
      }
    }
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace

Result<HttpHeaders> ParseOtlpHeaders(std::string_view text) {
  HttpHeaders headers;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view part = Trim(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    if (part.empty()) continue;
    const std::size_t equals = part.find('=');
    if (equals == std::string_view::npos || Trim(part.substr(0, equals)).empty()) {
      return Fail("OTLP header \"" + std::string(part) +
                  "\" is not key=value (OTEL_EXPORTER_OTLP_HEADERS is key=value,key2=value2)");
    }
    const std::string key = PercentDecode(Trim(part.substr(0, equals)));
    const std::string value = PercentDecode(Trim(part.substr(equals + 1)));
    for (char c : key + value) {
      if (c == '\r' || c == '\n' || c == '\0') {
        return Fail("OTLP header \"" + key + "\" holds a line break");
      }
    }
    headers.emplace_back(key, value);
  }
  return headers;
}

EnvironmentLookup ProcessEnvironment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return std::nullopt;
    return std::string(value);
  };
}

std::optional<std::string> OtlpEndpointFromEnvironment(const EnvironmentLookup& env) {
  if (auto logs = env("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")) return logs;
  auto base = env("OTEL_EXPORTER_OTLP_ENDPOINT");
  if (!base) return std::nullopt;
  while (!base->empty() && base->back() == '/') base->pop_back();
  return *base + "/v1/logs";
}

Result<HttpHeaders> OtlpHeadersFromEnvironment(const EnvironmentLookup& env) {
  HttpHeaders headers;
  for (const char* name : {"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_LOGS_HEADERS"}) {
    const auto text = env(name);
    if (!text) continue;
    auto parsed = ParseOtlpHeaders(*text);
    if (!parsed) return Fail(std::string(name) + ": " + parsed.error());
    for (auto& [key, value] : *parsed) {
      std::erase_if(headers, [&key](const auto& header) { return header.first == key; });
      headers.emplace_back(std::move(key), std::move(value));
    }
  }
  return headers;
}

}  // namespace togmal::ship
