// The literal pre-check in front of rule regexes: it may only ever say
// "cannot match" when RE2 agrees, for every pattern shape it accepts.
#include "regex_prefilter.h"

#include <gtest/gtest.h>
#include <re2/re2.h>

#include <random>
#include <string>
#include <vector>

#include "togmal/rules/rule.h"

namespace togmal::rules {
namespace {

TEST(RegexPrefilter, TakesPlainPatternsApartIntoPieces) {
  auto filter = RegexPrefilter::For(R"(\btogmal\.db\b)");
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->pieces(), (std::vector<std::string>{"togmal.db"}));
  filter = RegexPrefilter::For(R"(^git push --force\b)");
  ASSERT_TRUE(filter);
  EXPECT_EQ(filter->pieces(), (std::vector<std::string>{"git push --force"}));
  filter = RegexPrefilter::For(R"((?i)DROP TABLE\b$)");
  ASSERT_TRUE(filter);
  EXPECT_TRUE(filter->case_insensitive());
  EXPECT_EQ(filter->pieces(), (std::vector<std::string>{"drop table"}));
}

TEST(RegexPrefilter, RefusesEverythingItCannotReadExactly) {
  for (const char* pattern :
       {"a|b", "ab?", "a*", "a+", "a{2}", "(ab)", "[ab]", "a.b", R"(\d)", R"(\w+)", R"(\s)",
        R"(\_)", R"(\1)", "(?s)a", "é", "\\", R"(\Qa\E)", R"(\pL)"}) {
    EXPECT_FALSE(RegexPrefilter::For(pattern)) << pattern;
  }
}

TEST(RegexPrefilter, EveryEscapeItAcceptsIsTheLiteralToRe2) {
  for (int c = 0x21; c < 0x7f; ++c) {
    const std::string pattern = std::string("\\") + static_cast<char>(c);
    auto filter = RegexPrefilter::For(pattern);
    if (!filter || filter->pieces().empty()) continue;  // not accepted, or \b and \B
    RE2 re(pattern);
    ASSERT_TRUE(re.ok()) << pattern << ": " << re.error();
    EXPECT_TRUE(RE2::FullMatch(std::string(1, static_cast<char>(c)), re)) << pattern;
  }
}

TEST(RegexPrefilter, CaseInsensitiveLeavesNonAsciiTextToRe2) {
  // RE2 folds K (U+212A KELVIN SIGN) to k; an ASCII lower-casing does not.
  const std::string kelvin = "\xE2\x84\xAA";
  LazyRegex regex("(?i)kill");
  auto matched = regex.Search(kelvin + "ill");
  ASSERT_TRUE(matched);
  EXPECT_EQ(*matched, RE2::PartialMatch(kelvin + "ill", RE2("(?i)kill")));
}

// Many patterns the prefilter accepts, each against many texts built from the
// same alphabet: LazyRegex (prefilter first) and RE2 alone always agree.
TEST(RegexPrefilter, AgreesWithRe2OnGeneratedPatternsAndTexts) {
  const std::vector<std::string> atoms = {"a",   "b",   "A", "-", " ",  "#", "\\.", "\\-",
                                          "\\b", "\\B", "^", "$", "db", "/", "\\/", "\\$"};
  const std::string text_alphabet = "abAB-. /$\t\xC3\xA9";
  std::mt19937 random(20261127);
  int compared = 0;
  for (int p = 0; p < 400; ++p) {
    std::string pattern = (p % 3 == 0) ? "(?i)" : "";
    const int length = 1 + static_cast<int>(random() % 6);
    for (int i = 0; i < length; ++i) pattern += atoms[random() % atoms.size()];
    ASSERT_TRUE(RegexPrefilter::For(pattern)) << pattern;
    RE2 reference(pattern);
    ASSERT_TRUE(reference.ok()) << pattern;
    LazyRegex regex(pattern);
    for (int t = 0; t < 60; ++t) {
      std::string text;
      const int size = static_cast<int>(random() % 9);
      for (int i = 0; i < size; ++i) text += text_alphabet[random() % text_alphabet.size()];
      auto matched = regex.Search(text);
      ASSERT_TRUE(matched);
      ASSERT_EQ(*matched, RE2::PartialMatch(text, reference))
          << "pattern " << pattern << " text '" << text << "'";
      ++compared;
    }
  }
  EXPECT_EQ(compared, 400 * 60);
}

}  // namespace
}  // namespace togmal::rules
