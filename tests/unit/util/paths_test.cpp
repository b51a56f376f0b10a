#include "togmal/util/paths.h"

#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

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

// Without HOME the password database names the home; a relative HOME is no
// home. Never a path relative to the working directory (the project).
TEST(Paths, WithoutHomeThePasswordDatabaseNamesIt) {
  ScopedEnv data("XDG_DATA_HOME", nullptr);
  ScopedEnv config("XDG_CONFIG_HOME", nullptr);
  const struct passwd* entry = ::getpwuid(::geteuid());
  for (const char* home : {static_cast<const char*>(nullptr), "", "relative/home"}) {
    ScopedEnv unset("HOME", home);
    if (entry == nullptr || entry->pw_dir == nullptr || entry->pw_dir[0] != '/') {
      EXPECT_TRUE(DataDir().empty());
      EXPECT_TRUE(UserConfigFile("settings.yaml").empty());
    } else {
      EXPECT_EQ(HomeDir(), entry->pw_dir);
      EXPECT_EQ(UserDataFile("togmal.db"),
                std::filesystem::path(entry->pw_dir) / ".local/share/togmal/togmal.db");
    }
    EXPECT_TRUE(DataDir().empty() || DataDir().is_absolute());
    EXPECT_TRUE(ConfigDir().empty() || ConfigDir().is_absolute());
  }
}

}  // namespace
}  // namespace togmal::util
