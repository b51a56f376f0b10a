// PathList: the classifier's path tables. Its literal pre-filters must never
// change an answer, so every case is also checked against the plain glob
// definition (util::GlobMatches on the name, the path, or `**/` + pattern).

#include "path_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "togmal/util/glob.h"

namespace togmal::policy {
namespace {

std::string_view FileName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// What a path list means, without any short cut.
bool Reference(const std::vector<std::string>& patterns, std::string_view path) {
  for (const std::string& pattern : patterns) {
    if (pattern.empty()) continue;
    if (pattern.find('/') == std::string::npos) {
      if (util::GlobMatches(pattern, FileName(path))) return true;
    } else if (pattern.front() == '/' || pattern.front() == '~') {
      if (util::GlobMatches(pattern, path)) return true;
    } else if (util::GlobMatches(pattern, path) || util::GlobMatches("**/" + pattern, path)) {
      return true;
    }
  }
  return false;
}

const std::vector<std::string> kPatterns = {".env",
                                            ".env.*",
                                            "*.pem",
                                            "id_[rd]sa",
                                            "/etc/**",
                                            "~/.ssh/**",
                                            "~/.aws/credentials",
                                            ".git/hooks/*",
                                            "**/.docker/config.json",
                                            ".github/workflows/*.yml",
                                            "makefile",
                                            "*.mk",
                                            "/usr/local/bin/*",
                                            "conf/*/secret?",
                                            "a\\*b",
                                            "",
                                            "x/**",
                                            "**/node_modules/.bin/*"};

const std::vector<std::string> kPaths = {".env",
                                         "project/.env",
                                         ".env.local",
                                         "dir/.env.local",
                                         "key.pem",
                                         "a/b/key.pem",
                                         "id_rsa",
                                         "~/.ssh/id_dsa",
                                         "~/.ssh",
                                         "/etc",
                                         "/etc/passwd",
                                         "/etcetera",
                                         "~/.ssh/config",
                                         "~/.aws/credentials",
                                         "~/.aws/credentials.bak",
                                         ".git/hooks/pre-commit",
                                         "sub/.git/hooks/pre-commit",
                                         ".git/hooks",
                                         ".docker/config.json",
                                         "~/x/.docker/config.json",
                                         ".github/workflows/ci.yml",
                                         "repo/.github/workflows/ci.yml",
                                         ".github/workflows/ci.yaml",
                                         "makefile",
                                         "src/makefile",
                                         "rules.mk",
                                         "/usr/local/bin/tool",
                                         "/usr/local/bin/a/b",
                                         "conf/x/secret1",
                                         "conf/x/y/secret1",
                                         "a*b",
                                         "axb",
                                         "x",
                                         "x/y/z",
                                         "y/x/z",
                                         "node_modules/.bin/tsc",
                                         "a/node_modules/.bin/tsc",
                                         "",
                                         "/",
                                         "src/main.cpp"};

TEST(PathListTest, AnswersAsThePlainGlobsDo) {
  const PathList list(kPatterns);
  for (const std::string& path : kPaths) {
    EXPECT_EQ(list.Matches(path), Reference(kPatterns, path)) << path;
  }
  // One pattern at a time, so a pattern that matches everything hides nothing.
  for (const std::string& pattern : kPatterns) {
    const PathList one(std::vector<std::string>{pattern});
    for (const std::string& path : kPaths) {
      EXPECT_EQ(one.Matches(path), Reference({pattern}, path)) << pattern << " vs " << path;
    }
  }
}

TEST(PathListTest, KnownAnswers) {
  const PathList list(kPatterns);
  EXPECT_TRUE(list.Matches("deep/down/.env"));            // a name matches at any depth
  EXPECT_TRUE(list.Matches("/etc"));                      // `/etc/**` matches the folder
  EXPECT_FALSE(list.Matches("/etcetera"));                // but not a longer name
  EXPECT_TRUE(list.Matches("repo/.git/hooks/pre-push"));  // relative: any depth
  EXPECT_FALSE(list.Matches("~/.aws/credentials.bak"));   // rooted: the whole path
  EXPECT_TRUE(list.Matches("a*b"));                       // `\*` is a literal star
  EXPECT_FALSE(list.Matches("axb"));
  EXPECT_FALSE(list.Matches("src/main.cpp"));
  EXPECT_FALSE(PathList().Matches("anything"));
  EXPECT_FALSE(PathList(std::vector<std::string>{""}).Matches(""));
}

TEST(PathListTest, CompiledListsAndAppendKeepEveryPattern) {
  const char* const compiled[] = {"*.pem", "/etc/**"};
  PathList list(util::RawStrings{compiled, 2});
  EXPECT_TRUE(list.Matches("k.pem"));
  EXPECT_FALSE(list.Matches("makefile"));
  const PathList before = list;  // a copy keeps its own answers
  list.Append({"makefile"});
  EXPECT_TRUE(list.Matches("src/makefile"));
  EXPECT_TRUE(list.Matches("/etc/hosts"));
  EXPECT_FALSE(before.Matches("src/makefile"));
  EXPECT_EQ(list.Patterns(), (std::vector<std::string>{"*.pem", "/etc/**", "makefile"}));
}

}  // namespace
}  // namespace togmal::policy
