// OTEL_EXPORTER_OTLP_* as the OpenTelemetry SDKs read them.
#include <gtest/gtest.h>

#include <map>

#include "togmal/ship/otlp.h"

namespace togmal::ship {
namespace {

EnvironmentLookup Env(std::map<std::string, std::string> values) {
  return [values](const char* name) -> std::optional<std::string> {
    auto found = values.find(name);
    if (found == values.end()) return std::nullopt;
    return found->second;
  };
}

TEST(OtlpHeaders, KeyValuePairsTrimmedAndPercentDecoded) {
  auto headers = ParseOtlpHeaders(" api-key = s3cr%3Dt ,X-Scope-OrgID=team%20a,,");
  ASSERT_TRUE(headers.ok()) << headers.error();
  ASSERT_EQ(headers->size(), 2u);
  EXPECT_EQ((*headers)[0], std::make_pair(std::string("api-key"), std::string("s3cr=t")));
  EXPECT_EQ((*headers)[1], std::make_pair(std::string("X-Scope-OrgID"), std::string("team a")));
}

TEST(OtlpHeaders, APartWithoutAKeyIsAnError) {
  EXPECT_FALSE(ParseOtlpHeaders("novalue").ok());
  EXPECT_FALSE(ParseOtlpHeaders("=x").ok());
  EXPECT_FALSE(ParseOtlpHeaders("a=b%0d%0aInjected: 1").ok());
  EXPECT_NE(ParseOtlpHeaders("a=1,broken").error().find("broken"), std::string::npos);
}

TEST(OtlpHeaders, LogsHeadersReplaceTheGeneralOnes) {
  auto headers = OtlpHeadersFromEnvironment(
      Env({{"OTEL_EXPORTER_OTLP_HEADERS", "a=1,b=2"}, {"OTEL_EXPORTER_OTLP_LOGS_HEADERS", "b=3"}}));
  ASSERT_TRUE(headers.ok());
  ASSERT_EQ(headers->size(), 2u);
  EXPECT_EQ((*headers)[0].second, "1");
  EXPECT_EQ((*headers)[1], std::make_pair(std::string("b"), std::string("3")));
}

TEST(OtlpEndpoint, LogsEndpointAsGivenElseBasePlusV1Logs) {
  EXPECT_EQ(OtlpEndpointFromEnvironment(Env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318/"}})),
            "http://c:4318/v1/logs");
  EXPECT_EQ(
      OtlpEndpointFromEnvironment(Env({{"OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"},
                                       {"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://l:9/custom"}})),
      "http://l:9/custom");
  EXPECT_FALSE(OtlpEndpointFromEnvironment(Env({})));
}

}  // namespace
}  // namespace togmal::ship
