#pragma once
/// The detection model: per category a logistic regression over the features
/// of features.h, its weights quantised to int8 (one row of categories per
/// hash bucket), a Platt calibration fitted on the validation split and the
/// threshold chosen there. The built-in model is constant data compiled into
/// the binary; `togmal train` writes a user model in the same file format.
///
/// File format: the line "togmal-model 1", one line of JSON (categories and
/// their calibration, when and from what it was trained, the users' verdicts on
/// exact texts, a checksum of the weights), then the weights as raw bytes.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/analysis/features.h"
#include "togmal/util/result.h"

namespace togmal::analysis {

struct ModelCategory {
  std::string name;
  double bias = 0;
  double scale = 1;  ///< weight = int8 × scale
  double platt_a = 1;
  double platt_b = 0;
  double threshold = 0.5;  ///< calibrated probability at which it counts as detected
  /// Also detected when the RE2 detectors alone detect it (chosen in training
  /// only where that scored better on the validation split).
  bool or_rules = false;
};

/// A person's verdict on one exact text: it shows the failure, or the category
/// was flagged wrongly.
enum class Verdict { kFailure, kFalsePositive };

class Model {
 public:
  std::string origin;      ///< "built-in" or the file it was read from
  std::string trained_at;  ///< ISO 8601 UTC
  std::string trained_on;  ///< what it learnt from, in words
  std::vector<ModelCategory> categories;
  /// The users' verdicts: text hash → category → verdict.
  std::map<std::uint64_t, std::map<std::string, Verdict>> verdicts;
  /// Figures on the built-in validation split when it was trained (JSON object).
  std::string validation_json;

  /// Index of a category, or -1.
  int Find(std::string_view category) const;
  std::span<const std::int8_t> weights() const { return weights_; }
  void SetWeights(std::vector<std::int8_t> weights);

  /// The raw decision value of each category (bias + Σ w·x).
  std::vector<double> Scores(const std::vector<Feature>& features) const;
  /// Calibrated probability of category `c` for a raw score.
  double Probability(std::size_t c, double score) const;
  /// Weight of one bucket for category `c`.
  double Weight(std::uint32_t bucket, std::size_t c) const {
    return weights_[static_cast<std::size_t>(bucket) * categories.size() + c] * categories[c].scale;
  }
  /// The verdict on this exact text for a category, if a person gave one.
  const Verdict* FindVerdict(std::string_view text, std::string_view category) const;

  std::string Serialize() const;
  /// Parses a model file. `borrow` keeps pointing into `bytes` (constant data
  /// that outlives the model) instead of copying the weights.
  static Result<Model> Parse(std::string_view bytes, std::string origin, bool borrow = false);

 private:
  std::shared_ptr<const std::vector<std::int8_t>> owned_;  // shared: copies stay valid
  std::span<const std::int8_t> weights_;
};

/// The stable hash of an exact text that verdicts are keyed by.
std::uint64_t TextHash(std::string_view text);

/// The model compiled into the binary (parsed on first use).
const Model& BuiltInModel();

}  // namespace togmal::analysis
