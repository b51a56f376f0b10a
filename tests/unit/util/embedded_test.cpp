#include "togmal/util/embedded.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace togmal::util {
namespace {

TEST(Embedded, HoldsEveryConfigFileByteForByte) {
  auto settings = FindEmbeddedFile("settings.yaml");
  ASSERT_TRUE(settings.has_value());
  std::ifstream file(std::string(TOGMAL_SOURCE_DIR) + "/config/settings.yaml", std::ios::binary);
  std::stringstream on_disk;
  on_disk << file.rdbuf();
  EXPECT_EQ(*settings, on_disk.str());
}

TEST(Embedded, UnknownNameIsAbsent) { EXPECT_FALSE(FindEmbeddedFile("nope.yaml").has_value()); }

}  // namespace
}  // namespace togmal::util
