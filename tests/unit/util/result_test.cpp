#include "togmal/util/result.h"

#include <gtest/gtest.h>

namespace togmal {
namespace {

Result<int> Half(int n) {
  if (n % 2 != 0) return Fail(std::to_string(n) + " is odd");
  return n / 2;
}

TEST(Result, CarriesValueOrMessage) {
  auto good = Half(4);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 2);
  auto bad = Half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), "3 is odd");
}

TEST(Result, VoidResult) {
  Result<void> fine;
  EXPECT_TRUE(fine.ok());
  Result<void> broken = Fail("broken");
  EXPECT_FALSE(broken.ok());
  EXPECT_EQ(broken.error(), "broken");
}

}  // namespace
}  // namespace togmal
