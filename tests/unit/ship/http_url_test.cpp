// Which URLs the shipper accepts: plain http:// only, and says why not.
#include <gtest/gtest.h>

#include "togmal/ship/http.h"

namespace togmal::ship {
namespace {

TEST(HttpUrl, HostPortAndPath) {
  auto url = ParseHttpUrl("http://localhost:4318/v1/logs");
  ASSERT_TRUE(url.ok()) << url.error();
  EXPECT_EQ(url->host, "localhost");
  EXPECT_EQ(url->port, 4318);
  EXPECT_EQ(url->path, "/v1/logs");
  auto bare = ParseHttpUrl("http://collector");
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->port, 80);
  EXPECT_EQ(bare->path, "/");
  auto v6 = ParseHttpUrl("http://[::1]:9/x");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->ToString(), "http://[::1]:9/x");
}

TEST(HttpUrl, HttpsFailsSayingWhy) {
  auto url = ParseHttpUrl("https://otel.example.com/v1/logs");
  ASSERT_FALSE(url.ok());
  EXPECT_NE(url.error().find("https:// is not supported"), std::string::npos);
}

TEST(HttpUrl, BadPortsAndSchemesFail) {
  EXPECT_FALSE(ParseHttpUrl("http://h:0/").ok());
  EXPECT_FALSE(ParseHttpUrl("http://h:70000/").ok());
  EXPECT_FALSE(ParseHttpUrl("http://h:x/").ok());
  EXPECT_FALSE(ParseHttpUrl("ftp://h/").ok());
  EXPECT_FALSE(ParseHttpUrl("http:///path").ok());
  EXPECT_FALSE(ParseHttpUrl("http://h/a b").ok());
}

}  // namespace
}  // namespace togmal::ship
