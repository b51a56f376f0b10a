#include "togmal/util/paths.h"

#include <gtest/gtest.h>

#include "scoped_env.h"

namespace togmal::util {
namespace {

using togmal::testing::ScopedEnv;

TEST(Paths, XdgDataHomeWins) {
  ScopedEnv xdg("XDG_DATA_HOME", "/tmp/xdg-data");
  EXPECT_EQ(DataDir(), "/tmp/xdg-data/togmal");
}

TEST(Paths, FallsBackToHome) {
  ScopedEnv xdg("XDG_DATA_HOME", nullptr);
  ScopedEnv home("HOME", "/home/ada");
  EXPECT_EQ(DataDir(), "/home/ada/.local/share/togmal");
  ScopedEnv config("XDG_CONFIG_HOME", nullptr);
  EXPECT_EQ(ConfigDir(), "/home/ada/.config/togmal");
}

TEST(Paths, RelativeXdgValueIsIgnoredAsTheSpecSays) {
  ScopedEnv xdg("XDG_DATA_HOME", "relative/dir");
  ScopedEnv home("HOME", "/home/ada");
  EXPECT_EQ(DataDir(), "/home/ada/.local/share/togmal");
}

}  // namespace
}  // namespace togmal::util
