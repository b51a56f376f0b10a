#include "togmal/install/text_diff.h"

#include <gtest/gtest.h>

namespace togmal::install {
namespace {

TEST(UnifiedDiff, EqualTextsHaveNoDiff) { EXPECT_EQ(UnifiedDiff("a\nb\n", "a\nb\n", "f"), ""); }

TEST(UnifiedDiff, AnAddedLineWithContext) {
  EXPECT_EQ(UnifiedDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\n3\n4\nnew\n5\n6\n7\n8\n", "f.json"),
            "--- f.json\n+++ f.json\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n");
}

TEST(UnifiedDiff, ANewFile) {
  EXPECT_EQ(UnifiedDiff("", "{\n}\n", "n"), "--- n\n+++ n\n@@ -0,0 +1,2 @@\n+{\n+}\n");
}

TEST(UnifiedDiff, ChangesFarApartAreSeparateHunks) {
  std::string before, after;
  for (int i = 0; i < 20; ++i) {
    before += std::to_string(i) + "\n";
    after += (i == 2 || i == 17 ? "x" : std::to_string(i)) + "\n";
  }
  const std::string diff = UnifiedDiff(before, after, "f");
  EXPECT_NE(diff.find("@@ -1,6 +1,6 @@"), std::string::npos) << diff;
  EXPECT_NE(diff.find("@@ -15,6 +15,6 @@"), std::string::npos) << diff;
}

}  // namespace
}  // namespace togmal::install
