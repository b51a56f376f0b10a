// The OTLP/HTTP JSON body of a batch of audit entries. Field names and
// encodings follow the OTLP specification's "JSON Protobuf Encoding" and the
// logs data model: lowerCamelCase keys, 64-bit integers (timeUnixNano,
// intValue) as decimal strings, severityNumber as a number.
#include "togmal/ship/otlp.h"

#include <charconv>
#include <chrono>

namespace togmal::ship {

using nlohmann::json;

namespace {

// The scope of every record: who wrote it.
constexpr const char* kScopeName = "togmal.audit";

json AnyValue(const Attribute& attribute) {
  if (const auto* number = std::get_if<int64_t>(&attribute.value)) {
    return {{"intValue", std::to_string(*number)}};
  }
  return {{"stringValue", std::get<std::string>(attribute.value)}};
}

json KeyValue(const std::string& key, json value) { return {{"key", key}, {"value", value}}; }

const char* SeverityText(Severity severity) {
  switch (severity) {
    case Severity::kWarning:
      return "WARN";
    case Severity::kNotice:
      return "INFO2";
    case Severity::kInfo:
      break;
  }
  return "INFO";
}

json LogRecord(const store::AuditEntry& entry, const ShipContext& context, int64_t observed) {
  const Severity severity = EntrySeverity(entry);
  json attributes = json::array();
  for (const Attribute& attribute : EntryAttributes(entry, context)) {
    attributes.push_back(KeyValue(attribute.key, AnyValue(attribute)));
  }
  json record = {
      {"observedTimeUnixNano", std::to_string(observed)},
      {"severityNumber", OtlpSeverityNumber(severity)},
      {"severityText", SeverityText(severity)},
      {"body", {{"stringValue", EntryBody(entry)}}},
      {"attributes", std::move(attributes)},
  };
  // An unreadable time is left out (0 would mean "unknown" anyway).
  if (auto time = UnixNanos(entry.time)) record["timeUnixNano"] = std::to_string(*time);
  return record;
}

}  // namespace

int OtlpSeverityNumber(Severity severity) {
  switch (severity) {
    case Severity::kWarning:
      return 13;
    case Severity::kNotice:
      return 10;
    case Severity::kInfo:
      break;
  }
  return 9;
}

std::optional<int64_t> UnixNanos(std::string_view text) {
  // "YYYY-MM-DDTHH:MM:SS[.ffffff]Z"
  auto number = [&text](std::size_t at, std::size_t width, int& out) {
    if (at + width > text.size()) return false;
    auto [end, error] = std::from_chars(text.data() + at, text.data() + at + width, out);
    return error == std::errc() && end == text.data() + at + width;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text.back() != 'Z' || !number(0, 4, year) || !number(5, 2, month) ||
      !number(8, 2, day) || !number(11, 2, hour) || !number(14, 2, minute) ||
      !number(17, 2, second)) {
    return std::nullopt;
  }
  int64_t nanos = 0;
  if (text.size() > 20) {
    if (text[19] != '.' || text.size() > 30) return std::nullopt;
    const std::string_view fraction = text.substr(20, text.size() - 21);
    if (fraction.empty()) return std::nullopt;
    for (std::size_t i = 0; i < 9; ++i) {
      const char c = i < fraction.size() ? fraction[i] : '0';
      if (c < '0' || c > '9') return std::nullopt;
      nanos = nanos * 10 + (c - '0');
    }
  } else if (text[19] != 'Z') {
    return std::nullopt;
  }
  using namespace std::chrono;
  const year_month_day date{std::chrono::year{year},
                            std::chrono::month{static_cast<unsigned>(month)},
                            std::chrono::day{static_cast<unsigned>(day)}};
  if (!date.ok() || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  const auto seconds_since_epoch = sys_days{date}.time_since_epoch() + hours{hour} +
                                   minutes{minute} + std::chrono::seconds{second};
  return duration_cast<nanoseconds>(seconds_since_epoch).count() + nanos;
}

std::string EncodeOtlpLogs(std::span<const store::AuditEntry> entries, const ShipContext& context) {
  const int64_t observed = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  json records = json::array();
  for (const store::AuditEntry& entry : entries) {
    records.push_back(LogRecord(entry, context, observed));
  }
  json resource = {
      {"attributes", json::array({
                         KeyValue("service.name", {{"stringValue", "togmal"}}),
                         KeyValue("service.version", {{"stringValue", context.version}}),
                         KeyValue("host.name", {{"stringValue", context.host}}),
                     })}};
  json body = {
      {"resourceLogs",
       json::array({{{"resource", std::move(resource)},
                     {"scopeLogs",
                      json::array({{{"scope", {{"name", kScopeName}, {"version", context.version}}},
                                    {"logRecords", std::move(records)}}})}}})}};
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace togmal::ship
