#include "togmal/util/glob.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace togmal::util {
namespace {

struct GlobCase {
  const char* pattern;
  const char* text;
  bool matches;
  bool case_insensitive = false;
};

class GlobTable : public ::testing::TestWithParam<GlobCase> {};

TEST_P(GlobTable, Matches) {
  const GlobCase& c = GetParam();
  EXPECT_EQ(Glob(c.pattern, c.case_insensitive).Matches(c.text), c.matches)
      << "pattern " << c.pattern << " text " << c.text;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GlobTable,
    ::testing::Values(
        GlobCase{"Bash", "Bash", true}, GlobCase{"Bash", "bash", false},
        GlobCase{"Bash", "bash", true, true}, GlobCase{"Bash", "Bashful", false},
        GlobCase{"mcp__*", "mcp__github__create_pr", true},
        GlobCase{"mcp__github__*", "mcp__gitlab__x", false}, GlobCase{"*", "", true},
        GlobCase{"*", "a/b", false}, GlobCase{"**", "a/b", true}, GlobCase{"**/.env", ".env", true},
        GlobCase{"**/.env", "/home/u/p/.env", true},
        GlobCase{"**/.env", "/home/u/p/.env.example", false},
        GlobCase{"**/.env*", "/p/.env.local", true}, GlobCase{"src/**/*.py", "src/a.py", true},
        GlobCase{"src/**/*.py", "src/a/b/c.py", true}, GlobCase{"src/*.py", "src/a/b.py", false},
        GlobCase{"/home/*/proj/**", "/home/u/proj", true},
        GlobCase{"/home/*/proj/**", "/home/u/proj/x/y", true},
        GlobCase{"/home/*/proj/**", "/home/u/project", false},
        GlobCase{"file?.txt", "file1.txt", true}, GlobCase{"file?.txt", "file/.txt", false},
        GlobCase{"[abc].md", "b.md", true}, GlobCase{"[!abc].md", "b.md", false},
        GlobCase{"[a-c]x", "cx", true}, GlobCase{"[a-c]x", "dx", false},
        GlobCase{"[A-C]X", "bx", true, true}, GlobCase{"\\*.md", "*.md", true},
        GlobCase{"\\*.md", "a.md", false}, GlobCase{"[abc", "[abc", true},
        GlobCase{"a***b", "a/x/b", true}, GlobCase{"", "", true}, GlobCase{"", "x", false},
        // Literal ends checked before the automaton: optional parts stay optional.
        GlobCase{"/etc/**", "/etc", true}, GlobCase{"/etc/**", "/etcetera", false},
        GlobCase{"a/**/b", "a/b", true}, GlobCase{"a/**/b", "a/x/y/b", true},
        GlobCase{"a/**/b", "ab", false}, GlobCase{"x\\*", "x*", true},
        GlobCase{"abc*abc", "abc", false}, GlobCase{"abc*abc", "abcabc", true},
        GlobCase{"[ab]x*.sh", "bxy.sh", true}, GlobCase{"[ab]x*.sh", "bxy.s", false},
        GlobCase{"/ETC/**", "/etc/passwd", true, true}));

TEST(Glob, IsLinearOnHugeInput) {
  // A backtracking matcher would take exponential time here.
  std::string text(1 << 20, 'a');
  EXPECT_FALSE(Glob("*a*a*a*a*a*a*a*b").Matches(text));
  EXPECT_TRUE(Glob("**a*a*a*a").Matches(text));
}

TEST(Glob, OneFunctionCompilesEachPatternOnce) {
  // The same results through the cached entry point, repeatedly and interleaved.
  for (int round = 0; round < 3; ++round) {
    EXPECT_TRUE(GlobMatches("**/.ssh/**", "/home/u/.ssh/id_ed25519"));
    EXPECT_FALSE(GlobMatches("**/.ssh/**", "/home/u/ssh/id_ed25519"));
    EXPECT_TRUE(GlobMatches("*.db", "togmal.db"));
    EXPECT_FALSE(GlobMatches("*.db", "togmal.db-wal"));
  }
}

// GlobMatches rejects on a pattern's literal head before compiling it; the
// shortcut must never change an answer, whatever the pattern's shape.
TEST(Glob, CachedMatcherAgreesWithACompiledGlob) {
  const std::vector<std::string> atoms = {"a",    "b",    "/",   ".", "*",   "**",  "?",
                                          "[ab]", "[!a]", "\\*", "[", "**/", "/**", "-"};
  const std::string alphabet = "ab/.-*[";
  std::mt19937 random(1127);
  for (int p = 0; p < 500; ++p) {
    std::string pattern;
    const int length = 1 + static_cast<int>(random() % 6);
    for (int i = 0; i < length; ++i) pattern += atoms[random() % atoms.size()];
    const Glob compiled(pattern);
    for (int t = 0; t < 40; ++t) {
      std::string text;
      const int size = static_cast<int>(random() % 8);
      for (int i = 0; i < size; ++i) text += alphabet[random() % alphabet.size()];
      ASSERT_EQ(GlobMatches(pattern, text), compiled.Matches(text))
          << "pattern '" << pattern << "' text '" << text << "'";
    }
    // Texts that share the pattern's head reach the automaton too: every
    // prefix of the pattern, with and without its special characters.
    std::string plain;
    for (char c : pattern) {
      if (c != '*' && c != '?' && c != '\\') plain += c;
    }
    for (const std::string& source : {pattern, plain}) {
      for (std::size_t cut = 0; cut <= source.size(); ++cut) {
        const std::string text = source.substr(0, cut);
        ASSERT_EQ(GlobMatches(pattern, text), compiled.Matches(text))
            << "pattern '" << pattern << "' text '" << text << "'";
      }
    }
  }
}

}  // namespace
}  // namespace togmal::util
