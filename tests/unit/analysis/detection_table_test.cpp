// The labelled table (table/*.yaml) as a specification of the catalogue's
// quality: enough cases per category, and per-category precision/recall and
// hard-negative flag rates above the bar. Set TOGMAL_DETECTION_REPORT=<file>
// to write the markdown table used in docs/detection.md.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

#include "table_support.h"

namespace togmal::analysis::testing {
namespace {

class DetectionTable : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cases_ = new std::vector<LabelledCase>(LoadTable());
    scores_ = new std::vector<CategoryScore>(Score(EmbeddedBank(), *cases_));
  }
  static void TearDownTestSuite() {
    delete cases_;
    delete scores_;
  }
  static std::vector<LabelledCase>* cases_;
  static std::vector<CategoryScore>* scores_;
};
std::vector<LabelledCase>* DetectionTable::cases_ = nullptr;
std::vector<CategoryScore>* DetectionTable::scores_ = nullptr;

TEST_F(DetectionTable, EveryCategoryHasEnoughCases) {
  ASSERT_EQ(scores_->size(), 5u);
  for (const auto& s : *scores_) {
    EXPECT_GE(s.positives, 40) << s.category;
    EXPECT_GE(s.negatives, 40) << s.category;
    EXPECT_GE(s.hard_negatives * 2, s.negatives) << s.category << ": half the negatives are hard";
  }
}

TEST_F(DetectionTable, PrecisionRecallAndHardNegativesMeetTheBar) {
  for (const auto& s : *scores_) {
    for (const auto& m : s.mistakes) std::cout << "  miss: " << m << "\n";
    EXPECT_GE(s.Precision(), 0.85) << s.category;
    EXPECT_GE(s.Recall(), 0.85) << s.category;
    EXPECT_LE(s.HardFlagRate(), 0.15) << s.category;
  }
  const std::string report = MarkdownReport(*scores_);
  std::cout << report;
  if (const char* path = std::getenv("TOGMAL_DETECTION_REPORT")) {
    std::ofstream(path) << report;
  }
}

}  // namespace
}  // namespace togmal::analysis::testing
