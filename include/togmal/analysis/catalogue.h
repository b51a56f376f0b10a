#pragma once
/// The detector catalogue: which failure-mode categories exist, the signal
/// patterns that reveal them, the context checks that soften them, their risk
/// weights and the interventions they call for. It is data
/// (config/detectors.yaml, embedded; a user file in ConfigDir() replaces it),
/// so adding a category or a pattern needs no C++ change.

#include <string>
#include <string_view>
#include <vector>

#include "togmal/util/result.h"

namespace togmal::analysis {

/// One named RE2 pattern whose matches count as evidence for a category.
struct SignalSpec {
  std::string name;
  std::string pattern;  ///< RE2 syntax; `(?i)` is prepended unless case_sensitive
  bool case_sensitive = false;
  /// Added to the category's evidence when the signal fires (once per
  /// signal, however often it matches). Positive evidence is capped at 1
  /// before negative scores (benign framing: a question, a warning) apply.
  double score = 0;
  /// The signal fires only with at least this many matches (structural
  /// signals such as "lots of math notation").
  int min_count = 1;
  /// The signal is ignored when this check of its category holds (e.g. a
  /// statistic is only unsupported while `has_sources` is false).
  std::string unless_check;
  /// Checks this signal switches off when it fires: "no need to see a doctor"
  /// contains the safeguard "see a doctor" but negates it.
  std::vector<std::string> cancels;
  bool structural = false;  ///< documents a structural signal (counts, numbers)
  int line = 0;             ///< where it is defined, for messages
  int pattern_line = 0;     ///< where its pattern is written, for messages
};

/// A context check (`has_sources`, `has_hedging`, …): patterns whose presence
/// multiplies the category's confidence by `factor`.
struct CheckSpec {
  std::string name;
  std::vector<std::string> patterns;
  std::vector<int> pattern_lines;  ///< where each pattern is written, for messages
  double factor = 1.0;
  int line = 0;
};

struct CategorySpec {
  std::string name;
  std::string description;
  double weight = 0;       ///< contribution to the risk score per unit of confidence
  double threshold = 0.5;  ///< confidence at which the category counts as detected
  /// Added when the category also shows up in the response's context (the
  /// prompt), and the response itself has positive evidence.
  double context_boost = 0;
  std::vector<SignalSpec> signals;
  std::vector<CheckSpec> checks;
  std::vector<std::string> interventions;  ///< intervention types
  int line = 0;
};

struct InterventionSpec {
  std::string type;  ///< e.g. "human_in_the_loop"
  std::string reason;
  std::string suggestion;
};

/// Score thresholds of the risk levels (score ≥ threshold).
struct RiskThresholds {
  double critical = 1.5;
  double high = 1.0;
  double moderate = 0.5;
};

struct Catalogue {
  std::string source;  ///< file name it came from (for messages)
  std::vector<CategorySpec> categories;
  std::vector<InterventionSpec> interventions;
  RiskThresholds thresholds;

  const InterventionSpec* FindIntervention(std::string_view type) const;
};

/// Parses and validates a catalogue; every error names `file_name:line`.
/// Whether each pattern compiles is DetectorBank::Build's to say (with the
/// pattern's line): compiling them here too cost as much as reading the YAML
/// five times over, on every `togmal analyze`.
Result<Catalogue> ParseCatalogue(std::string_view yaml, std::string_view file_name);

/// The active catalogue: `ConfigDir()/detectors.yaml` if it exists, else the
/// embedded default.
Result<Catalogue> LoadCatalogue();

}  // namespace togmal::analysis
