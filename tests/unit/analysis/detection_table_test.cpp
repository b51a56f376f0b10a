// The labelled table (table/*.yaml) as a specification of the catalogue's
// quality: enough cases per category, and per-category precision/recall and
// hard-negative flag rates above the bar. Set TOGMAL_DETECTION_REPORT=<file>
// to write the markdown table used in docs/detection.md.
//
// TOGMAL_DETECTION_TABLE_STRIDE=N scores every Nth text only and skips the bar
// (which is a property of the whole table). The sanitizer preset sets it: the
// bar is checked by the normal build, and under AddressSanitizer every new DFA
// state of the detector set is a fresh mmap (RE2 allocates a prog-sized work
// array per state), which made the whole table take 400 s there.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "table_support.h"

namespace togmal::analysis::testing {
namespace {

// One test, so the table is scored once per run: scoring ~1,800 texts is the
// slowest thing in the suite under AddressSanitizer (every new DFA state of
// the detector set allocates a prog-sized work array).
std::size_t Stride() {
  const char* value = std::getenv("TOGMAL_DETECTION_TABLE_STRIDE");
  return value ? std::max<std::size_t>(1, std::strtoul(value, nullptr, 10)) : 1;
}

TEST(DetectionTable, PrecisionRecallAndHardNegativesMeetTheBar) {
  std::vector<LabelledCase> cases = LoadTable();
  const std::size_t stride = Stride();
  if (stride > 1) {
    std::vector<LabelledCase> sample;
    for (std::size_t i = 0; i < cases.size(); i += stride) sample.push_back(cases[i]);
    cases = std::move(sample);
  }
  const std::vector<CategoryScore> scores = Score(EmbeddedBank(), cases);
  ASSERT_EQ(scores.size(), 5u);
  if (stride > 1) {
    std::cout << "every " << stride << "th text only (" << cases.size()
              << "); the bar is checked on the whole table\n"
              << MarkdownReport(scores);
    return;
  }
  const bool own_table = std::getenv("TOGMAL_DETECTION_TABLE_DIR") == nullptr;
  for (const auto& s : scores) {
    if (own_table) {
      EXPECT_GE(s.positives, 40) << s.category;
      EXPECT_GE(s.negatives, 40) << s.category;
      EXPECT_GE(s.hard_negatives * 2, s.negatives) << s.category << ": half the negatives are hard";
    }
    for (const auto& m : s.mistakes) std::cout << "  miss: " << m << "\n";
    EXPECT_GE(s.Precision(), 0.85) << s.category;
    EXPECT_GE(s.Recall(), 0.85) << s.category;
    EXPECT_LE(s.HardFlagRate(), 0.15) << s.category;
  }
  const std::string report = MarkdownReport(scores);
  std::cout << report;
  if (const char* path = std::getenv("TOGMAL_DETECTION_REPORT")) {
    std::ofstream(path) << report;
  }
}

}  // namespace
}  // namespace togmal::analysis::testing
