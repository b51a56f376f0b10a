#include "togmal/util/paths.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace togmal::util {
namespace {

class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = getenv(name)) old_ = old, had_ = true;
    if (value) setenv(name, value, 1); else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1); else unsetenv(name_);
  }
 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

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
