#include "togmal/ship/settings.h"

#include <gtest/gtest.h>

#include "scoped_env.h"

namespace togmal::ship {
namespace {

Result<ShipSettings> Parse(std::string_view yaml) {
  auto layer = util::ParseSettingsLayer(yaml, "settings.yaml");
  if (!layer) return Fail(layer.error());
  return ShipSettingsFrom(*layer, {});
}

TEST(ShipSettings, DestinationsAndNumbers) {
  auto settings = Parse(
      "ship:\n  otlp: http://localhost:4318/v1/logs\n  syslog: tcp://127.0.0.1:514\n"
      "  interval_seconds: 5\n  batch: 20\n  retries: 0\n");
  ASSERT_TRUE(settings.ok()) << settings.error();
  EXPECT_TRUE(settings->Configured());
  EXPECT_EQ(settings->otlp, "http://localhost:4318/v1/logs");
  EXPECT_EQ(settings->syslog, "tcp://127.0.0.1:514");
  EXPECT_EQ(settings->interval_seconds, 5);
  EXPECT_EQ(settings->batch, 20);
  EXPECT_EQ(settings->retries, 0);
}

TEST(ShipSettings, NothingConfiguredByDefault) {
  // No user file: the built-in layer alone.
  togmal::testing::ScopedEnv config("XDG_CONFIG_HOME", "/nonexistent/togmal-ship-test");
  auto built_in = LoadShipSettings();
  ASSERT_TRUE(built_in.ok()) << built_in.error();
  EXPECT_FALSE(built_in->Configured());
  EXPECT_EQ(built_in->interval_seconds, 60);
}

TEST(ShipSettings, OutOfRangeNamesFileAndLine) {
  auto settings = Parse("ship:\n  batch: 0\n");
  ASSERT_FALSE(settings.ok());
  EXPECT_NE(settings.error().find("settings.yaml:2: ship.batch"), std::string::npos)
      << settings.error();
}

}  // namespace
}  // namespace togmal::ship
