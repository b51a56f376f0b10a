#pragma once
/// The result of analysing one text: per-category detections with the words
/// that triggered them, the weighted risk score and level, and the
/// deduplicated interventions.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace togmal::analysis {

/// One match of a signal pattern. Offsets are byte offsets into the analysed
/// text (UTF-8), end exclusive.
struct SignalHit {
  std::string name;
  std::string text;
  std::size_t start = 0;
  std::size_t end = 0;
};

struct CategoryDetection {
  std::string category;
  bool detected = false;
  double confidence = 0;               ///< 0..1
  std::vector<SignalHit> signals;      ///< the words that triggered positive signals
  std::vector<SignalHit> mitigations;  ///< benign framing that lowered confidence
  /// The category's context checks, in catalogue order: name → holds.
  std::vector<std::pair<std::string, bool>> checks;
  bool context_matched = false;  ///< the context showed this category too
};

enum class RiskLevel { kLow, kModerate, kHigh, kCritical };

/// "low", "moderate", "high", "critical".
std::string_view RiskLevelName(RiskLevel level);

struct Intervention {
  std::string type;
  std::string reason;
  std::string suggestion;
  std::vector<std::string> categories;  ///< the detected categories calling for it
};

struct Analysis {
  std::vector<CategoryDetection> detections;  ///< every catalogue category, in order
  double risk_score = 0;
  RiskLevel risk_level = RiskLevel::kLow;
  std::vector<Intervention> interventions;

  const CategoryDetection* Find(std::string_view category) const;
};

}  // namespace togmal::analysis
