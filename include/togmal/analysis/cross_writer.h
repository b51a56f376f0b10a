#pragma once
/// Choosing the model's settings by leave-one-writer-out validation.
///
/// A random split of the corpus shares every writer's voice between training
/// and validation, so settings chosen on it do not transfer to a writer the
/// model has never seen. Here each corpus batch is one writer: for every
/// writer, a model is trained on all the others and scores that writer's texts.
/// From these out-of-writer scores come the calibration of each category, its
/// threshold (the one whose worst writer scores best, with no writer's hard
/// negatives flagged above the limit) and the regularisation C (the one whose
/// worst writer's macro-F1 is best). The shipped model then trains on every
/// writer and takes these settings (`Selection`), so the build trains once.

#include <string>
#include <vector>

#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/training.h"
#include "togmal/util/result.h"

namespace togmal::analysis {

struct CategorySelection {
  std::string name;
  double platt_a = 1;
  double platt_b = 0;
  double threshold = 0.5;
};

/// The settings the cross-writer validation chose, and what it measured with
/// them. Stored as JSON in data/corpus/selection.json and read by the build.
struct Selection {
  double c = 16.0;
  double max_hard_negative_rate = 0.08;
  std::vector<CategorySelection> categories;
  /// The corpus it was chosen on (TextHash over every text, in order), so the
  /// build can say when the corpus changed without a new selection.
  std::string corpus_digest;
  /// Figures on every writer's texts scored by the model that never saw that
  /// writer, pooled (JSON object as Figures::Json) and per writer.
  std::string pooled_json;
  std::vector<std::pair<std::string, std::string>> writer_json;

  const CategorySelection* Find(const std::string& category) const;
  std::string Json() const;
  static Result<Selection> Parse(const std::string& json, const std::string& source);
};

struct CrossWriterOptions {
  std::vector<double> c_grid = {4.0, 16.0, 64.0};
  double max_hard_negative_rate = 0.08;
  int threads = 2;
};

struct CrossWriterResult {
  Selection selection;
  Figures pooled;
  std::vector<std::pair<std::string, Figures>> per_writer;
  /// One line per C tried: its worst writer's macro-F1 and the pooled one.
  std::vector<std::string> trials;
};

/// Runs the leave-one-writer-out validation over `examples` (grouped by their
/// `writer`; at least two writers; user examples are ignored).
Result<CrossWriterResult> SelectAcrossWriters(const DetectorBank& bank,
                                              const std::vector<Example>& examples,
                                              const CrossWriterOptions& options);

/// The digest of a corpus as Selection::corpus_digest records it.
std::string CorpusDigest(const std::vector<Example>& examples);

}  // namespace togmal::analysis
