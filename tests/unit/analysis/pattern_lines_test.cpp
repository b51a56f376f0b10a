// Which detector patterns can match a '\n' (src/analysis/pattern_lines.h): a
// pattern said not to is run line by line, so "no" must never be wrong.

#include "pattern_lines.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace togmal::analysis
