#pragma once
/// Training the detection model (LIBLINEAR, L2-regularised logistic
/// regression per category) and measuring it. Used by the build tool that
/// makes the built-in model and by `togmal train`. Deterministic: the same
/// examples in the same order give the same bytes.

#include <string>
#include <string_view>
#include <vector>

#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/model.h"
#include "togmal/util/result.h"

namespace togmal::analysis {

/// One labelled text. `label` is "positive", "negative" or "hard_negative"
/// (same vocabulary as the category, benign meaning).
struct Example {
  std::string category;
  std::string label;
  std::string kind;  ///< "prompt" or "response"
  std::string text;
  std::string context;
  /// A person's verdict from the evidence database: it always trains (never
  /// validates), counts several times, and only for its own category.
  bool from_user = false;
  /// Who wrote it: the corpus file's name without `.jsonl` (or a "writer"
  /// field of the line). The cross-writer validation holds out one at a time.
  std::string writer;
};

/// Parses JSON Lines ({"category", "label", "kind", "text", "context"?,
/// "writer"?} per line); errors name source:line.
Result<std::vector<Example>> ParseCorpus(std::string_view jsonl, const std::string& source);
/// Reads a JSON Lines corpus file; errors name file:line.
Result<std::vector<Example>> ReadCorpusFile(const std::string& path);
/// Every `*.jsonl` directly in `directory`, in name order; each file is one
/// writer, named by the file's stem.
Result<std::vector<Example>> ReadCorpusDirectory(const std::string& directory);

/// A person's verdict as a training example for its category: the judged
/// text, `judged` being "prompt" (the prompt alone) or "response" (the
/// response, its prompt as context when given). Empty means not given.
Example VerdictExample(std::string category, bool failure, std::string_view judged,
                       std::string prompt, std::string response);

/// Whether a corpus text belongs to the validation split (a fifth of the texts,
/// chosen by a stable hash of the text).
bool IsValidation(std::string_view text);

struct CategoryFigures {
  std::string category;
  int positives = 0;
  int negatives = 0;  ///< hard ones included
  int hard_negatives = 0;
  int true_positives = 0;
  int false_positives = 0;
  int hard_flagged = 0;
  double Precision() const;
  double Recall() const;
  double F1() const;
};

struct Figures {
  std::vector<CategoryFigures> categories;
  double MacroF1() const;
  int HardNegatives() const;
  int HardFlagged() const;
  double HardRate() const;
  /// A markdown table: per category counts, precision, recall, F1, hard negatives flagged.
  std::string Table() const;
  std::string Json() const;
};

/// Scores `model` (null: the rules alone) on `examples`, each counted in its
/// own category only.
Figures Evaluate(const DetectorBank& bank, const Model* model,
                 const std::vector<Example>& examples);

struct Selection;

struct TrainOptions {
  double c = 16.0;                       ///< LIBLINEAR's C (inverse regularisation)
  double max_hard_negative_rate = 0.05;  ///< per category, when choosing thresholds
  int user_repeat = 20;                  ///< how often a user verdict counts
  /// How often a category's own hard negatives count in its training: they
  /// are what the threshold is held against.
  int hard_negative_repeat = 1;
  std::string trained_on;
  std::string trained_at;  ///< empty: now
  /// Settings chosen across writers (cross_writer.h). When given, every corpus
  /// text trains and the model takes the selection's C, calibration and
  /// thresholds; otherwise a fifth of the texts is held back to choose them.
  const Selection* selection = nullptr;
  int threads = 2;  ///< for the features and the categories' regressions
};

struct TrainResult {
  Model model;
  /// On the validation split of the non-user examples; empty with a selection
  /// (its figures are the cross-writer ones).
  Figures validation;
};

/// Trains a model for every category of `bank`'s catalogue on the training
/// split of `examples` (all of them with a selection), calibrates it on the
/// validation split (or takes the selection's calibration), and records the
/// user examples' verdicts on their exact texts. Progress goes to the log.
Result<TrainResult> Train(const DetectorBank& bank, const std::vector<Example>& examples,
                          const TrainOptions& options);

/// The examples of the validation split (no user examples).
std::vector<Example> ValidationSplit(const std::vector<Example>& examples);

}  // namespace togmal::analysis
