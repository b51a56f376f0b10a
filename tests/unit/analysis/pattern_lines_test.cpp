// Which detector patterns can match a '\n' (src/analysis/pattern_lines.h): a
// pattern said not to is run line by line, so "no" must never be wrong.

#include "pattern_lines.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "togmal/analysis/catalogue.h"

namespace togmal::analysis {
namespace {

TEST(PatternLines, PlainWordsAndWindowsStayOnALine) {
  for (const char* pattern :
       {R"(\byou should\b)", R"((?i)\b(?:i|we) (?:built|got)\b)", R"(\bx\b[^.?!\n]{0,40}\by)",
        R"(\d+%)", R"(\w+\.\w+)", R"(a.b)", R"((?i)^foo$)", R"([a-z0-9_-]+)", R"(\[\d{1,3}\])",
        R"(https?://)", R"(['’]s\b)", R"([^\n]+)", R"(\S+)", R"(\x41)", R"(\Qa.b\E)",
        R"((?P<steps>abc))", R"([\t ]+)", R"([^\s]+)", R"(\A\z)"}) {
    EXPECT_FALSE(MayMatchNewline(pattern)) << pattern;
  }
}

TEST(PatternLines, WhatCanMatchANewlineSaysSo) {
  for (const char* pattern : {R"(a\sb)",
                              R"(a\Wb)",
                              R"(\D)",
                              R"([^.]+)",
                              R"([^a-z])",
                              R"((?s)a.b)",
                              R"((?is:a.b))",
                              R"((?-s:a).b)",
                              R"(\pL)",
                              R"(\PL)",
                              R"([[:space:]])",
                              R"([\x00-\x7f])",
                              R"(\x0a)",
                              R"(\x{A})",
                              R"(\012)",
                              R"([\n])",
                              "a\nb",
                              R"(\C)",
                              R"([\s])",
                              R"([\W])",
                              R"(\Qa)"
                              "\n"
                              R"(b\E)",
                              R"([\t-\r])",
                              R"(\z\p{Greek})",
                              R"([)",
                              R"(\)"}) {
    EXPECT_TRUE(MayMatchNewline(pattern)) << pattern;
  }
}

TEST(PatternLines, MatchableBytes) {
  const auto words = MatchableBytes(R"((?i)\bwater[- ]fuel\s+cell\b)");
  for (char c : std::string("waterWATER- fuelFUEL\n\t"))
    EXPECT_TRUE(words[static_cast<unsigned char>(c)]) << c;
  for (char c : std::string(".,?!:;()0123456789\"'"))
    EXPECT_FALSE(words[static_cast<unsigned char>(c)]) << c;
  EXPECT_TRUE(words[0xE2]) << "bytes >= 0x80 always count";

  // A window excludes what its negated class lists.
  const auto window = MatchableBytes(R"(\bx\b[^.?!\n]{0,40}\by)");
  for (char c : std::string(".?!\n")) EXPECT_FALSE(window[static_cast<unsigned char>(c)]) << c;
  for (char c : std::string(",;: xXyYabc")) EXPECT_TRUE(window[static_cast<unsigned char>(c)]) << c;
  EXPECT_FALSE(MatchableBytes(R"(x{2,5})")['2']) << "a repetition's digits are syntax";
  EXPECT_TRUE(MatchableBytes(R"(a{)")['{']) << "a '{' that is no repetition is a literal";
  EXPECT_TRUE(MatchableBytes(R"(\d{1,3}%)")['%']);
  EXPECT_TRUE(MatchableBytes(R"(\d{1,3}%)")['7']);

  // Classes: ranges, escapes, negated letters kept in both cases.
  EXPECT_TRUE(MatchableBytes(R"([a-c])")['B']);
  EXPECT_FALSE(MatchableBytes(R"([a-c])")['d']);
  EXPECT_TRUE(MatchableBytes(R"([^a])")['a']) << "a negated letter is not narrowed";
  EXPECT_FALSE(MatchableBytes(R"([^,])")[',']);
  EXPECT_TRUE(MatchableBytes(R"(\W)")['.']);
  EXPECT_FALSE(MatchableBytes(R"(\w+)")['.']);
  EXPECT_TRUE(MatchableBytes(R"(\pL)")['.']) << "not understood: every byte";
  EXPECT_TRUE(MatchableBytes(R"([[:alpha:]])")['.']);
  // What a negated class lists but is not understood excludes nothing.
  EXPECT_TRUE(MatchableBytes(R"([^\pL])")['.']);
  EXPECT_TRUE(MatchableBytes(R"([^\pL\n])")[',']);
  EXPECT_FALSE(MatchableBytes(R"([^\pL\n])")['\n']);
  EXPECT_TRUE(MatchableBytes(R"([^[:alpha:]])")['.']);
  EXPECT_TRUE(MatchableBytes(R"(a.b)")[',']);
  EXPECT_FALSE(MatchableBytes(R"(a.b)")['\n']);
}

TEST(PatternLines, LineBoundWhitespaceAndAnchorsStayOnALine) {
  for (const char* pattern : {R"(\brm[^\S\n]+-rf)", R"((?:(?m:^)|[\t\f\r (:])'x')",
                              R"(x(?:[\t\f\r .,]|(?m:$)))", R"((?m)^\w+$)"}) {
    EXPECT_FALSE(MayMatchNewline(pattern)) << pattern;
  }
}

// A pattern that can match a line break, and no byte it cannot, runs over the
// whole text instead of only on the lines that hold its literal words, which
// made 30 patterns 4.6 of the 11 ms a new 25 KB text took (docs/performance.md).
// Only these three mean to cross lines: a loop body on the next line, a
// Makefile target's recipe, a directory walk followed by deletes.
TEST(PatternLines, BuiltInPatternsCrossLinesOnlyWhereTheyMeanTo) {
  const std::set<std::string> crossing_on_purpose = {"find_delete", "scoped_build_target",
                                                     "code_bulk_delete"};
  auto catalogue = LoadCatalogue();
  ASSERT_TRUE(catalogue) << catalogue.error();
  int checked = 0;
  for (const CategorySpec& category : catalogue->categories) {
    for (const SignalSpec& signal : category.signals) {
      ++checked;
      const auto bytes = MatchableBytes(signal.pattern);
      if (crossing_on_purpose.count(signal.name) > 0) {
        EXPECT_TRUE(bytes['\n']) << signal.name
                                 << " no longer crosses lines: drop it from the list";
        continue;
      }
      EXPECT_TRUE(!bytes['\n'] || !bytes.all())
          << category.name << "/" << signal.name
          << " can match any byte: write [^\\S\\n] for \\s, (?m:^) and (?m:$) for ^ and $";
    }
    for (const CheckSpec& check : category.checks) {
      for (const std::string& pattern : check.patterns) {
        ++checked;
        EXPECT_TRUE(!MatchableBytes(pattern).all()) << category.name << "/" << check.name;
      }
    }
  }
  EXPECT_GT(checked, 200);
}

}  // namespace
}  // namespace togmal::analysis
