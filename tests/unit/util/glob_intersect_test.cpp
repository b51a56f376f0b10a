// Whether a shell pattern can name a file a path list holds.
#include <gtest/gtest.h>

#include "togmal/util/glob.h"

namespace togmal::util {
namespace {

TEST(GlobsIntersect, APatternThatCanNameTheFileIntersects) {
  EXPECT_TRUE(GlobsIntersect("~/.ss[h]/id_*", "**/.ssh/**"));
  EXPECT_TRUE(GlobsIntersect("~/.*/id_*", "**/.ssh/**"));
  EXPECT_TRUE(GlobsIntersect("/etc/shado[w]", "/etc/shadow"));
  EXPECT_TRUE(GlobsIntersect("/etc/shado?", "/etc/shadow"));
  EXPECT_TRUE(GlobsIntersect(".en[v]", ".env"));
  EXPECT_TRUE(GlobsIntersect("id_*", "id_rsa*"));
  EXPECT_TRUE(GlobsIntersect("cre*", "credentials"));
  EXPECT_TRUE(GlobsIntersect("*", "credentials.json"));
  EXPECT_TRUE(GlobsIntersect("~/.[a-z]*/cre*", "~/.aws/credentials"));
  EXPECT_TRUE(GlobsIntersect("~/.ss[h]", "**/.ssh/**"));  // the folder itself
  EXPECT_TRUE(GlobsIntersect("[!x]d_rsa", "id_rsa*"));
}

TEST(GlobsIntersect, APatternThatCannotNameTheFileDoesNot) {
  // The shell's wildcards take no '.' that starts a name.
  EXPECT_FALSE(GlobsIntersect("*", ".env"));
  EXPECT_FALSE(GlobsIntersect("~/*/id_rsa", "**/.ssh/**"));
  EXPECT_FALSE(GlobsIntersect("?env", ".env"));
  EXPECT_FALSE(GlobsIntersect("*.ts", "*.pem"));
  EXPECT_FALSE(GlobsIntersect("src/*.md", "**/.ssh/**"));
  EXPECT_FALSE(GlobsIntersect("/etc/shado[xyz]", "/etc/shadow"));
  EXPECT_FALSE(GlobsIntersect("[!i]d_rsa", "id_rsa*"));
  // `*` stays within a name; `**` of a pattern crosses folders.
  EXPECT_FALSE(GlobsIntersect("/etc/*", "/etc/ssl/private/key"));
  EXPECT_TRUE(GlobsIntersect("/etc/*/*/*", "/etc/ssl/**"));
}

TEST(GlobsIntersect, PlainWordsAreMatchedAsThemselves) {
  EXPECT_TRUE(GlobsIntersect("/etc/shadow", "/etc/shadow"));
  EXPECT_FALSE(GlobsIntersect("/etc/hosts", "/etc/shadow"));
  EXPECT_TRUE(HasGlobChars("a*"));
  EXPECT_TRUE(HasGlobChars("[ab]"));
  EXPECT_FALSE(HasGlobChars("~/.ssh/id_rsa"));
}

}  // namespace
}  // namespace togmal::util
