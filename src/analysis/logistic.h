#pragma once
// The pieces of training that the built-in training and the cross-writer
// validation share: texts turned into LIBLINEAR rows once, one category's
// logistic regression, and Platt's calibration. Internal to the analysis module.

#include <linear.h>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/training.h"

namespace togmal::analysis::logistic {

/// One text as the solver reads it, and whether the rules alone detected each category.
struct Row {
  std::vector<feature_node> nodes;
  std::vector<bool> rule_detected;  ///< [category]
};

/// The rows of `examples`, computed on `threads` threads (the RE2 scan and the
/// n-grams are most of a training's time).
std::vector<Row> PrepareRows(const DetectorBank& bank, const std::vector<Example>& examples,
                             int threads);

/// Weights of one category's L2-regularised logistic regression (bias last),
/// for label +1. All zero when `y` has only one class.
std::vector<double> TrainOne(const std::vector<feature_node*>& x, std::vector<double> y, double c);

/// Runs `work(i)` for i in [0, count) on up to `threads` threads.
void ParallelFor(std::size_t count, int threads, const std::function<void(std::size_t)>& work);

/// Platt scaling (Lin, Lin and Weng's Newton method): fits
/// P(positive | score) = 1 / (1 + exp(a·score + b)); returns {a, b}.
std::pair<double, double> FitSigmoid(const std::vector<double>& scores,
                                     const std::vector<bool>& positive);

/// The raw score of `row` under unquantised weights (bias last).
double RawScore(const std::vector<double>& weights, const Row& row);

}  // namespace togmal::analysis::logistic
