// The text helpers every module shares: cutting text for people without
// splitting a UTF-8 character, ASCII lower case, names in lists, JSON as text.
#include "togmal/util/text.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace togmal::util {
namespace {

// é is two bytes (C3 A9), € three (E2 82 AC), 😀 four (F0 9F 98 80).
constexpr std::string_view kE = "\xC3\xA9";
constexpr std::string_view kEuro = "\xE2\x82\xAC";
constexpr std::string_view kSmile = "\xF0\x9F\x98\x80";

bool IsValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if ((lead & 0xC0) == 0x80 || i + length > text.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

TEST(Shorten, KeepsTextThatFits) {
  EXPECT_EQ(Shorten("abc", 5), "abc");
  EXPECT_EQ(Shorten("abc", 3), "abc");
  EXPECT_EQ(Shorten("", 0), "");
  EXPECT_EQ(Shorten(std::string("a") + std::string(kE), 3), "a" + std::string(kE));
}

TEST(Shorten, CutsAtTheLimitAndSaysSo) {
  EXPECT_EQ(Shorten("abcdef", 3), "abc…");
  EXPECT_EQ(Shorten("abcdef", 0), "…");
}

TEST(Shorten, NeverCutsACharacterInHalf) {
  // The limit falls inside é, €, 😀 at every possible byte: the whole
  // character goes, and what is left is valid UTF-8.
  for (std::string_view character : {kE, kEuro, kSmile}) {
    const std::string text = "ab" + std::string(character) + "cd";
    for (std::size_t inside = 1; inside < character.size(); ++inside) {
      const std::string cut = Shorten(text, 2 + inside);
      EXPECT_EQ(cut, "ab…") << "limit " << 2 + inside;
      EXPECT_TRUE(IsValidUtf8(cut));
    }
    EXPECT_EQ(Shorten(text, 2 + character.size()), "ab" + std::string(character) + "…");
  }
}

TEST(Shorten, NeverCutsACharacterInHalfInLongText) {
  std::string text;
  for (int i = 0; i < 100; ++i) text += kEuro;
  for (std::size_t limit = 0; limit < 40; ++limit) {
    const std::string cut = Shorten(text, limit);
    EXPECT_TRUE(IsValidUtf8(cut)) << "limit " << limit;
    EXPECT_EQ(cut.size(), limit / 3 * 3 + std::string_view("…").size());
  }
}

TEST(OneLine, TurnsLineBreaksAndTabsIntoSpaces) {
  EXPECT_EQ(OneLine("a\nb\tc\rd", 10), "a b c d");
  EXPECT_EQ(OneLine("a\nbcdef", 3), "a b…");
  EXPECT_EQ(OneLine("a" + std::string(kE) + "\n", 2), "a…");
}

TEST(AsciiLower, LowersOnlyAsciiLetters) {
  EXPECT_EQ(AsciiLower("Hello, WORLD 42_@[`{"), "hello, world 42_@[`{");
  // Bytes of UTF-8 characters are never changed (É is C3 89).
  EXPECT_EQ(AsciiLower("\xC3\x89T\xC3\xA9"), "\xC3\x89t\xC3\xA9");
  EXPECT_EQ(AsciiLower(std::string_view()), "");
  EXPECT_EQ(AsciiLower('Q'), 'q');
  EXPECT_EQ(AsciiLower('q'), 'q');
  EXPECT_EQ(AsciiLower('@'), '@');
  EXPECT_EQ(AsciiLower('['), '[');
  EXPECT_EQ(AsciiLower(static_cast<char>(0xC9)), static_cast<char>(0xC9));
}

TEST(NameIn, FindsExactNamesInAnyList) {
  EXPECT_TRUE(NameIn("tar", {"tar", "gtar"}));
  EXPECT_FALSE(NameIn("Tar", {"tar", "gtar"}));
  EXPECT_FALSE(NameIn("ta", {"tar", "gtar"}));
  EXPECT_FALSE(NameIn("tar", {}));
  const std::vector<std::string> owned = {"-o", "--output"};
  EXPECT_TRUE(NameIn("--output", owned));
  EXPECT_FALSE(NameIn("--out", owned));
  constexpr std::array<std::string_view, 2> fixed = {"low", "high"};
  EXPECT_TRUE(NameIn("high", fixed));
  EXPECT_FALSE(NameIn("", fixed));
}

TEST(Trim, CutsOnlyTheNamedBlankBytesAtEachEnd) {
  EXPECT_EQ(Trim(" \t a b \t "), "a b");
  EXPECT_EQ(TrimLeft("  a "), "a ");
  EXPECT_EQ(TrimRight("  a \t"), "  a");
  EXPECT_EQ(Trim("a\r"), "a\r");  // only spaces and tabs unless told
  EXPECT_EQ(Trim(" a\r\n", " \r\n"), "a");
  EXPECT_EQ(Trim(" \t "), "");
  EXPECT_EQ(Trim(""), "");
  static_assert(Trim("  x  ") == "x");
}

TEST(ShellQuote, QuotesSoThatTheShellReadsTheWordBack) {
  EXPECT_EQ(ShellQuote("plain"), "'plain'");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("it's $HOME"), "'it'\\''s $HOME'");
}

TEST(IsShellNameChar, LettersDigitsAndUnderscoreOnly) {
  for (const char c : std::string_view("azAZ09_")) EXPECT_TRUE(IsShellNameChar(c)) << c;
  for (const char c : std::string_view("-.:$ \xC3")) EXPECT_FALSE(IsShellNameChar(c)) << c;
}

}  // namespace
}  // namespace togmal::util
