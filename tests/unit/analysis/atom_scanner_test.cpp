// The detector bank's Aho-Corasick pass over its atoms (src/analysis/atom_scanner.h):
// which atoms it reports on which line, against a naive search.

#include "atom_scanner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace togmal::analysis {
namespace {

using Found = std::set<std::pair<std::uint32_t, std::uint32_t>>;  // (line, atom)

Found Scan(const std::vector<std::string>& atoms, std::string_view text) {
  const AtomScanner scanner(atoms);
  AtomScanner::Result result;
  scanner.Scan(text, result);
  Found found;
  for (const AtomScanner::Hit& hit : result.hits) {
    EXPECT_TRUE(found.emplace(hit.line, hit.atom).second)
        << "atom " << hit.atom << " reported twice on line " << hit.line;
  }
  return found;
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// Every (line, atom) where the atom occurs in the line, ASCII case-insensitively.
Found Naive(const std::vector<std::string>& atoms, std::string_view text) {
  Found found;
  std::uint32_t line = 0;
  std::size_t start = 0;
  const std::string lower = Lower(text);
  while (true) {
    const std::size_t end = std::min(lower.find('\n', start), lower.size());
    const std::string_view line_text = std::string_view(lower).substr(start, end - start);
    for (std::size_t a = 0; a < atoms.size(); ++a) {
      if (line_text.find(Lower(atoms[a])) != std::string_view::npos) {
        found.emplace(line, static_cast<std::uint32_t>(a));
      }
    }
    if (end == lower.size()) break;
    start = end + 1;
    ++line;
  }
  return found;
}

TEST(AtomScanner, OverlappingAtomsAndAtomsInsideAtoms) {
  // "she" and "he" end together; "hers" overlaps "she"; "his" is absent.
  const std::vector<std::string> atoms = {"he", "she", "his", "hers"};
  EXPECT_EQ(Scan(atoms, "ushers"), (Found{{0, 0}, {0, 1}, {0, 3}}));
  const std::vector<std::string> nested = {"abc", "abcd", "bcd", "cd", "bc"};
  EXPECT_EQ(Scan(nested, "xabcdx"), Naive(nested, "xabcdx"));
  EXPECT_EQ(Scan(nested, "xabcdx").size(), 5u);
  const std::vector<std::string> repeats = {"aa", "aaa"};
  EXPECT_EQ(Scan(repeats, "aaaa"), (Found{{0, 0}, {0, 1}}));
}

TEST(AtomScanner, PrefixesAndSuffixesOfEachOther) {
  const std::vector<std::string> atoms = {"time", "times", "imes", "sometimes", "me"};
  for (const char* text : {"sometimes", "time", "times", "some time", "imes", "tim", "sometime"}) {
    EXPECT_EQ(Scan(atoms, text), Naive(atoms, text)) << text;
  }
}

TEST(AtomScanner, AsciiCaseFolds) {
  const std::vector<std::string> atoms = {"you should", "rm -rf"};
  EXPECT_EQ(Scan(atoms, "YOU SHOULD run RM -RF"), (Found{{0, 0}, {0, 1}}));
  EXPECT_EQ(Scan(atoms, "You Should"), (Found{{0, 0}}));
  // Atoms given in upper case fold too.
  EXPECT_EQ(Scan({"ABC"}, "xaBcx"), (Found{{0, 0}}));
}

TEST(AtomScanner, LinesAndPositions) {
  const std::vector<std::string> atoms = {"you", "time"};
  const std::string text = "you\n\nTime after time\nnothing\nyou and you";
  EXPECT_EQ(Scan(atoms, text), (Found{{0, 0}, {2, 1}, {4, 0}}));
  const AtomScanner scanner(atoms);
  AtomScanner::Result result;
  scanner.Scan(text, result);
  ASSERT_EQ(result.line_starts.size(), 5u);
  ASSERT_EQ(result.line_ends.size(), 5u);
  EXPECT_EQ(result.line_starts[2], 5u);
  EXPECT_EQ(result.line_ends[2], 20u);
  EXPECT_EQ(text.substr(result.line_starts[2], result.line_ends[2] - result.line_starts[2]),
            "Time after time");
  EXPECT_EQ(result.line_ends.back(), text.size());
  // Hits come in line order.
  for (std::size_t i = 1; i < result.hits.size(); ++i) {
    EXPECT_LE(result.hits[i - 1].line, result.hits[i].line);
  }
}

TEST(AtomScanner, EmptyTextAndAtomAtTheEnd) {
  EXPECT_EQ(Scan({"abc"}, ""), Found{});
  const AtomScanner scanner({"abc"});
  AtomScanner::Result result;
  scanner.Scan("", result);
  EXPECT_EQ(result.line_starts, std::vector<std::size_t>{0});
  EXPECT_EQ(result.line_ends, std::vector<std::size_t>{0});
  EXPECT_EQ(Scan({"abc"}, "xxabc"), (Found{{0, 0}}));
  EXPECT_EQ(Scan({"abc"}, "xxab"), Found{});
  EXPECT_EQ(Scan({"abc"}, "xx\nabc"), (Found{{1, 0}}));
  EXPECT_EQ(Scan({"abc"}, "abc\n"), (Found{{0, 0}}));
  // An atom is not found across a line's end: "ab\nc" holds no "abc".
  EXPECT_EQ(Scan({"abc"}, "ab\nc"), Found{});
}

TEST(AtomScanner, KelvinSignAndLongSFoldAsRe2Does) {
  // (?i)k matches U+212A and (?i)s matches U+017F in RE2, so the atoms "kill"
  // and "sure" must be found where a text spells them with those characters.
  EXPECT_EQ(Scan({"kill", "sure"}, "\xE2\x84\xAAILL it, \xC5\xBFure"), (Found{{0, 0}, {0, 1}}));
  // An atom holding a long s is found in plain ASCII text too.
  EXPECT_EQ(Scan({"\xC5\xBFure"}, "SURE"), (Found{{0, 0}}));
}

TEST(AtomScanner, CasedNonAsciiAtomsAreReportedOnEveryNonAsciiLine) {
  // "café" might be written "CAFÉ", which ASCII folding does not see: such an
  // atom is reported on every line holding a non-ASCII byte, and only there.
  const std::vector<std::string> atoms = {"caf\xC3\xA9",
                                          "schr\xC3\xB6"
                                          "dinger"};
  EXPECT_EQ(Scan(atoms, "CAF\xC3\x89\nplain caf\n\xE2\x80\x99"),
            (Found{{0, 0}, {0, 1}, {2, 0}, {2, 1}}));
  EXPECT_EQ(Scan(atoms, "ascii only"), Found{});
}

TEST(AtomScanner, CaselessNonAsciiCharactersMatchAsTheirBytes) {
  // ’ and — have no case in RE2's folding: their atoms are found where they
  // occur and nowhere else, whatever else the line holds.
  const std::vector<std::string> atoms = {"i\xE2\x80\x99m", "\xE2\x80\x94 not"};
  EXPECT_EQ(Scan(atoms, "I\xE2\x80\x99M sure \xE2\x80\x94 NOT\nI'm \xC3\xA9\ni\xE2\x80\x99m"),
            (Found{{0, 0}, {0, 1}, {2, 0}}));
}

TEST(AtomScanner, EndsAndEveryOccurrence) {
  // "ab" is reported at each occurrence, "cd" once a line; each hit says
  // where its atom ends, and hits come in the order of their ends.
  const AtomScanner scanner({"ab", "cd", "bc"}, {true, false, false});
  AtomScanner::Result result;
  scanner.Scan("ab abcd cd\nxxab cd", result);
  std::vector<std::tuple<std::uint32_t, std::uint32_t, std::size_t>> hits;
  for (const AtomScanner::Hit& hit : result.hits) hits.emplace_back(hit.line, hit.atom, hit.end);
  EXPECT_EQ(hits, (std::vector<std::tuple<std::uint32_t, std::uint32_t, std::size_t>>{
                      {0, 0, 2}, {0, 0, 5}, {0, 2, 6}, {0, 1, 7}, {1, 0, 15}, {1, 1, 18}}));
  EXPECT_TRUE(scanner.Exact(0));
  // A cased non-ASCII atom is placed at its line's end only.
  const AtomScanner cased({"caf\xC3\xA9", "i\xE2\x80\x99m"});
  EXPECT_FALSE(cased.Exact(0));
  EXPECT_TRUE(cased.Exact(1));
  cased.Scan("x CAF\xC3\x89 y", result);
  ASSERT_EQ(result.hits.size(), 1u);
  EXPECT_EQ(result.hits[0].end, 9u);
}

TEST(AtomScanner, AgreesWithANaiveSearchOnMixedText) {
  const std::vector<std::string> atoms = {"the universe", "universe", "the",  "you",   "your",
                                          "you should",   "he",       "ever", "every", "one",
                                          "rm -rf",       "-rf",      "e u"};
  const std::string text =
      "The universe is everyone's.\nYOUR turn: you should\n\nrm -rf / then -RF\nhe ever\n"
      "the\nTHE UNIVERSE\nxyz";
  EXPECT_EQ(Scan(atoms, text), Naive(atoms, text));
}

TEST(AtomScanner, AgreesWithANaiveSearchOnRandomText) {
  // A small alphabet makes overlaps, shared prefixes and suffixes common.
  std::mt19937 random(20261129);
  const std::string alphabet = "abAB \n";
  auto draw = [&](std::size_t length) {
    std::string out;
    for (std::size_t i = 0; i < length; ++i) out += alphabet[random() % alphabet.size()];
    return out;
  };
  for (int round = 0; round < 300; ++round) {
    std::vector<std::string> atoms;
    for (int a = 0; a < 6; ++a) {
      std::string atom = draw(1 + random() % 4);
      atom.erase(std::remove(atom.begin(), atom.end(), '\n'), atom.end());
      if (!atom.empty()) atoms.push_back(atom);
    }
    if (atoms.empty()) continue;
    const std::string text = draw(random() % 60);
    ASSERT_EQ(Scan(atoms, text), Naive(atoms, text)) << "text '" << text << "'";
  }
}

}  // namespace
}  // namespace togmal::analysis
