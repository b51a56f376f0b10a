#pragma once
/// What the detector bank finds in one text before scoring: every signal's
/// first spans and every check's truth. Internal: DetectorBank::Analyze scores
/// it, and the tests compare it with a whole-text evaluation of every pattern.

#include <string_view>
#include <vector>

#include "togmal/analysis/analysis.h"
#include "togmal/analysis/detector_bank.h"

namespace togmal::analysis {

struct DetectorEvidence {
  /// [category][signal]: the first max(min_count, 3) non-overlapping matches,
  /// leftmost first, as one search after another over the whole text finds them.
  std::vector<std::vector<std::vector<SignalHit>>> spans;
  std::vector<std::vector<bool>> checks;  ///< [category][check]: any pattern matches
};

/// The evidence `bank` finds in `text`.
DetectorEvidence CollectEvidence(const DetectorBank& bank, std::string_view text);

}  // namespace togmal::analysis
