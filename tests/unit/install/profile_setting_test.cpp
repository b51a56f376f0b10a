// `togmal install HOST --profile NAME` sets one line of the user's settings.yaml.
#include "togmal/install/profile_setting.h"

#include <gtest/gtest.h>

namespace togmal::install {
namespace {

TEST(WithProfile, AppendsToAnEmptyOrUnrelatedFile) {
  EXPECT_EQ(WithProfile("", "strict"), "profile: strict\n");
  EXPECT_EQ(WithProfile("audit:\n  sync: full", "strict"),
            "audit:\n  sync: full\nprofile: strict\n");
}

TEST(WithProfile, ReplacesTheTopLevelLineAndKeepsEverythingElse) {
  const std::string before =
      "# mine\nhook:\n  profile: not-this-one\nprofile: standard  # chosen at install\n"
      "audit: {sync: full}\n";
  EXPECT_EQ(WithProfile(before, "strict"),
            "# mine\nhook:\n  profile: not-this-one\nprofile: strict  # chosen at install\n"
            "audit: {sync: full}\n");
  EXPECT_EQ(WithProfile(WithProfile(before, "strict"), "strict"), WithProfile(before, "strict"));
}

}  // namespace
}  // namespace togmal::install
