#include "logistic.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <mutex>
#include <thread>

#include "togmal/analysis/features.h"

namespace togmal::analysis::logistic {
namespace {

// LIBLINEAR prints its progress on stdout, which is the protocol in `serve`.
void LiblinearToLog(const char* message) {
  std::string line(message);
  while (!line.empty() && line.back() == '\n') line.pop_back();
  if (!line.empty()) spdlog::debug("liblinear: {}", line);
}

/// One example's features as LIBLINEAR wants them: merged, sorted by index
/// (1-based), the bias node last, then the terminator.
std::vector<feature_node> ToNodes(std::vector<Feature> features) {
  std::sort(features.begin(), features.end(),
            [](const Feature& a, const Feature& b) { return a.bucket < b.bucket; });
  std::vector<feature_node> nodes;
  nodes.reserve(features.size() + 2);
  for (const Feature& f : features) {
    const int index = static_cast<int>(f.bucket) + 1;
    if (!nodes.empty() && nodes.back().index == index) {
      nodes.back().value += f.value;
    } else {
      nodes.push_back(feature_node{index, f.value});
    }
  }
  nodes.push_back(feature_node{static_cast<int>(kFeatureBuckets) + 1, 1.0});
  nodes.push_back(feature_node{-1, 0.0});
  // The rows of a whole corpus are most of training's memory; a third of the
  // capacity reserved above went to n-grams merged away.
  nodes.shrink_to_fit();
  return nodes;
}

}  // namespace

void ParallelFor(std::size_t count, int threads, const std::function<void(std::size_t)>& work) {
  const std::size_t n = std::max<std::size_t>(
      1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), count));
  if (n == 1) {
    for (std::size_t i = 0; i < count; ++i) work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < n; ++t) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < count; i = next++) work(i);
    });
  }
  for (std::thread& thread : pool) thread.join();
}

std::vector<Row> PrepareRows(const DetectorBank& bank, const std::vector<Example>& examples,
                             int threads) {
  // `togmal train` is held to 400 MB, and the rows below are most of it
  // (docs/detection.md). RE2 keeps the DFA states it builds for a pattern as
  // long as the pattern lives, and every corpus text is new text: scanned by
  // one bank, 17,000 texts leave some 60 MB of states beside the rows. A bank
  // of our own per slice of the corpus, dropped after it, bounds that (its
  // analyses are `bank`'s), and malloc_trim hands the freed pages back
  // instead of keeping them in the allocator's free lists.
  constexpr std::size_t kTextsPerBank = 4096;
  malloc_trim(0);
  std::vector<Row> rows(examples.size());
  for (std::size_t from = 0; from < examples.size(); from += kTextsPerBank) {
    const std::size_t count = std::min(kTextsPerBank, examples.size() - from);
    auto own = DetectorBank::Build(bank.catalogue());
    const DetectorBank& scanner = own ? **own : bank;
    ParallelFor(count, threads, [&](std::size_t k) {
      const std::size_t i = from + k;
      thread_local std::vector<Feature> features;
      const Analysis rules = scanner.Analyze(examples[i].text, examples[i].context);
      ExtractFeatures(examples[i].text, examples[i].context, rules, features);
      rows[i].nodes = ToNodes(features);
      for (const CategoryDetection& d : rules.detections)
        rows[i].rule_detected.push_back(d.detected);
    });
    if (own) own.value().reset();
    malloc_trim(0);
  }
  return rows;
}

std::vector<double> TrainOne(const std::vector<feature_node*>& x, std::vector<double> y, double c) {
  static std::once_flag quiet;
  std::call_once(quiet, [] { set_print_string_function(&LiblinearToLog); });
  std::vector<double> w(std::size_t{kFeatureBuckets} + 1, 0.0);
  const bool has_positive = std::find(y.begin(), y.end(), 1.0) != y.end();
  const bool has_negative = std::find(y.begin(), y.end(), -1.0) != y.end();
  if (!has_positive || !has_negative) return w;  // nothing to separate
  problem prob{};
  prob.l = static_cast<int>(x.size());
  prob.n = static_cast<int>(kFeatureBuckets) + 1;
  prob.y = y.data();
  prob.x = const_cast<feature_node**>(x.data());
  prob.bias = 1;
  parameter param{};
  param.solver_type = L2R_LR;  // the primal Newton solver: no random order, deterministic
  param.eps = 0.01;
  param.C = c;
  model* trained = train(&prob, &param);
  const double sign = trained->label[0] == 1 ? 1.0 : -1.0;
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = sign * trained->w[i];
  free_and_destroy_model(&trained);
  return w;
}

double RawScore(const std::vector<double>& weights, const Row& row) {
  double score = 0;
  for (const feature_node& node : row.nodes) {
    if (node.index < 0) break;
    score += weights[static_cast<std::size_t>(node.index) - 1] * node.value;
  }
  return score;
}

std::pair<double, double> FitSigmoid(const std::vector<double>& scores,
                                     const std::vector<bool>& positive) {
  int prior1 = 0;
  for (bool p : positive) prior1 += p ? 1 : 0;
  const int prior0 = static_cast<int>(positive.size()) - prior1;
  const double hi = (prior1 + 1.0) / (prior1 + 2.0);
  const double lo = 1.0 / (prior0 + 2.0);
  std::vector<double> t(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) t[i] = positive[i] ? hi : lo;
  double a = 0;
  double b = std::log((prior0 + 1.0) / (prior1 + 1.0));
  auto objective = [&](double aa, double bb) {
    double f = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      const double z = scores[i] * aa + bb;
      f += z >= 0 ? t[i] * z + std::log1p(std::exp(-z)) : (t[i] - 1) * z + std::log1p(std::exp(z));
    }
    return f;
  };
  double fval = objective(a, b);
  for (int iteration = 0; iteration < 100; ++iteration) {
    double h11 = 1e-12, h22 = 1e-12, h21 = 0, g1 = 0, g2 = 0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      const double z = scores[i] * a + b;
      double p, q;
      if (z >= 0) {
        p = std::exp(-z) / (1.0 + std::exp(-z));
        q = 1.0 / (1.0 + std::exp(-z));
      } else {
        p = 1.0 / (1.0 + std::exp(z));
        q = std::exp(z) / (1.0 + std::exp(z));
      }
      const double d2 = p * q;
      h11 += scores[i] * scores[i] * d2;
      h22 += d2;
      h21 += scores[i] * d2;
      const double d1 = t[i] - p;
      g1 += scores[i] * d1;
      g2 += d1;
    }
    if (std::fabs(g1) < 1e-5 && std::fabs(g2) < 1e-5) break;
    const double det = h11 * h22 - h21 * h21;
    const double da = -(h22 * g1 - h21 * g2) / det;
    const double db = -(-h21 * g1 + h11 * g2) / det;
    const double gd = g1 * da + g2 * db;
    double step = 1;
    while (step >= 1e-10) {
      const double na = a + step * da;
      const double nb = b + step * db;
      const double nf = objective(na, nb);
      if (nf < fval + 0.0001 * step * gd) {
        a = na;
        b = nb;
        fval = nf;
        break;
      }
      step /= 2;
    }
    if (step < 1e-10) break;
  }
  return {a, b};
}

}  // namespace togmal::analysis::logistic
