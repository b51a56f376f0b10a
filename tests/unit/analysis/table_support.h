#pragma once
// Loads the labelled detection table (table/*.yaml) and scores the detector
// bank against it: per-category precision, recall and hard-negative flag rate.

#include <string>
#include <vector>

#include "togmal/analysis/detector_bank.h"

namespace togmal::analysis::testing {

struct LabelledCase {
  std::string category;
  std::string expect;  ///< positive | negative | hard_negative
  std::string kind;    ///< prompt | response
  std::string text;
  std::string context;
  int line = 0;
};

struct CategoryScore {
  std::string category;
  int positives = 0, negatives = 0, hard_negatives = 0;
  int true_positives = 0, false_positives = 0, false_negatives = 0, hard_flagged = 0;
  std::vector<std::string> mistakes;  ///< "file:line expect … got …"

  double Precision() const;
  double Recall() const;
  double F1() const;
  double HardFlagRate() const;
};

/// Every case of every table file, in file order.
std::vector<LabelledCase> LoadTable();

/// The bank built from the embedded catalogue (never the user's file).
const DetectorBank& EmbeddedBank();

/// Scores per category, in catalogue order.
std::vector<CategoryScore> Score(const DetectorBank& bank, const std::vector<LabelledCase>& cases);

/// The markdown table for docs/detection.md.
std::string MarkdownReport(const std::vector<CategoryScore>& scores);

}  // namespace togmal::analysis::testing
