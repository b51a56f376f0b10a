// The OTLP/HTTP JSON body: the shape the OTLP specification's JSON encoding
// gives ExportLogsServiceRequest, checked field by field.
#include "togmal/ship/otlp.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "entries.h"

namespace togmal::ship {
namespace {

using nlohmann::json;
using testing::Decision;

// The attribute `key` of a log record, or null.
json Attribute(const json& record, const std::string& key) {
  for (const json& attribute : record["attributes"]) {
    if (attribute["key"] == key) return attribute["value"];
  }
  return nullptr;
}

TEST(OtlpEncoding, OneLogRecordPerEntryInOrderUnderResourceAndScope) {
  const std::vector<store::AuditEntry> entries = {Decision(7, "deny", "rm -rf /"),
                                                  Decision(8, "allow", "ls")};
  const json body = json::parse(EncodeOtlpLogs(entries, {"devbox", "0.1.0"}));
  ASSERT_EQ(body["resourceLogs"].size(), 1u);
  const json& resource_logs = body["resourceLogs"][0];
  const json& resource_attributes = resource_logs["resource"]["attributes"];
  ASSERT_TRUE(resource_attributes.is_array());
  EXPECT_EQ(resource_attributes[0]["key"], "service.name");
  EXPECT_EQ(resource_attributes[0]["value"]["stringValue"], "togmal");
  ASSERT_EQ(resource_logs["scopeLogs"].size(), 1u);
  EXPECT_EQ(resource_logs["scopeLogs"][0]["scope"]["name"], "togmal.audit");
  const json& records = resource_logs["scopeLogs"][0]["logRecords"];
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(Attribute(records[0], "seq"), json({{"intValue", "7"}}));
  EXPECT_EQ(Attribute(records[1], "seq"), json({{"intValue", "8"}}));
}

TEST(OtlpEncoding, RecordCarriesTimeSeverityBodyAndTheChain) {
  const std::vector<store::AuditEntry> entries = {Decision(7, "deny", "rm -rf /")};
  const json record = json::parse(EncodeOtlpLogs(
      entries, {"devbox", "0.1.0"}))["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0];
  // 64-bit integers are decimal strings in OTLP/JSON.
  EXPECT_EQ(record["timeUnixNano"], "1795788185123456000");
  EXPECT_TRUE(record["observedTimeUnixNano"].is_string());
  EXPECT_EQ(record["severityNumber"], 13);
  EXPECT_EQ(record["severityText"], "WARN");
  EXPECT_EQ(record["body"]["stringValue"], R"({"command":"rm -rf /"})");
  EXPECT_EQ(Attribute(record, "decision")["stringValue"], "deny");
  EXPECT_EQ(Attribute(record, "level")["stringValue"], "L3");
  EXPECT_EQ(Attribute(record, "tool")["stringValue"], "Bash");
  EXPECT_EQ(Attribute(record, "project")["stringValue"], "/home/dev/proj");
  EXPECT_EQ(Attribute(record, "session")["stringValue"], "9f3c2a7e");
  EXPECT_EQ(Attribute(record, "host")["stringValue"], "devbox");
  EXPECT_EQ(Attribute(record, "prev_hash")["stringValue"], std::string(64, 'a'));
  EXPECT_EQ(Attribute(record, "hash")["stringValue"], std::string(64, 'b'));
}

TEST(OtlpEncoding, SeverityFollowsTheDecision) {
  EXPECT_EQ(OtlpSeverityNumber(EntrySeverity(Decision(1, "ask", "x"))), 10);
  EXPECT_EQ(OtlpSeverityNumber(EntrySeverity(Decision(1, "allow", "x"))), 9);
  EXPECT_EQ(OtlpSeverityNumber(EntrySeverity(Decision(1, "pass", "x"))), 9);
  EXPECT_EQ(OtlpSeverityNumber(EntrySeverity(Decision(1, "deny", "x"))), 13);
}

TEST(OtlpEncoding, UnixNanosReadsTheStoredTimeOnly) {
  EXPECT_EQ(UnixNanos("1970-01-01T00:00:01.000001Z"), 1'000'001'000);
  EXPECT_EQ(UnixNanos("2000-03-01T00:00:00Z"), int64_t{951868800} * 1'000'000'000);
  EXPECT_FALSE(UnixNanos("2026-11-27 14:03:05Z"));
  EXPECT_FALSE(UnixNanos("2026-02-30T00:00:00Z"));
  EXPECT_FALSE(UnixNanos("yesterday"));
}

}  // namespace
}  // namespace togmal::ship
