#pragma once
/// The detector bank: every pattern of every category (signals and checks),
/// compiled once. Analysing a text is one pass that finds the literal strings
/// the patterns need, line by line, then each pattern run only where those
/// strings allow a match (on those lines; on the stretches between bytes it
/// cannot match, for a pattern that can span lines; else on the whole text),
/// then scoring. Linear in the text's length.

#include <memory>
#include <string_view>

#include "togmal/analysis/analysis.h"
#include "togmal/analysis/catalogue.h"
#include "togmal/util/result.h"

namespace togmal::analysis {

struct DetectorEvidence;  // src/analysis/detector_evidence.h

class DetectorBank {
 public:
  /// Compiles the catalogue. Fails (naming file:line) if a pattern does not
  /// compile or the set cannot be built.
  static Result<std::unique_ptr<DetectorBank>> Build(Catalogue catalogue);

  ~DetectorBank();
  DetectorBank(const DetectorBank&) = delete;
  DetectorBank& operator=(const DetectorBank&) = delete;

  /// Analyses `text`. `context` (optional, e.g. the prompt a response answers)
  /// can raise a category the response also shows. Thread-safe.
  Analysis Analyze(std::string_view text, std::string_view context = {}) const;

  const Catalogue& catalogue() const;

 private:
  friend DetectorEvidence CollectEvidence(const DetectorBank& bank, std::string_view text);
  struct Impl;
  explicit DetectorBank(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Sets `analysis`'s risk score, level and interventions from its detections
/// (Σ weight × confidence over detected categories).
void ScoreRisk(const Catalogue& catalogue, Analysis& analysis);

/// The bank for the active catalogue (LoadCatalogue()), built on first use
/// and shared afterwards; a bad catalogue is reported on every call.
Result<const DetectorBank*> SharedDetectorBank();

}  // namespace togmal::analysis
