#include "togmal/analysis/cross_writer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "logistic.h"
#include "togmal/analysis/model.h"

namespace togmal::analysis {
namespace {

/// The most thresholds tried per category: quantiles of the scores beyond that
/// (the figures move by less than one text between neighbours).
constexpr std::size_t kMaxThresholds = 600;

double Sigmoid(double a, double b, double score) {
  return 1.0 / (1.0 + std::exp(-(a * score + b)));
}

/// Counts of one category on one writer's own-category texts at one threshold.
struct Counts {
  int positives = 0;
  int tp = 0;
  int fp = 0;
  int hard = 0;
  int hard_flagged = 0;
  double F1() const { return tp == 0 ? 0.0 : 2.0 * tp / (2.0 * tp + fp + (positives - tp)); }
  double HardRate() const { return hard == 0 ? 0.0 : static_cast<double>(hard_flagged) / hard; }
};

struct ThresholdChoice {
  double threshold = 0.5;
  bool feasible = false;
  double worst_f1 = -1;
  double mean_f1 = -1;
  double worst_hard_rate = 1;
};

/// Whether `a` is the better threshold: a feasible one first, then the best
/// worst writer, then the best mean; among infeasible ones the lowest worst
/// hard-negative rate.
bool Better(const ThresholdChoice& a, const ThresholdChoice& b) {
  if (a.feasible != b.feasible) return a.feasible;
  if (!a.feasible && a.worst_hard_rate != b.worst_hard_rate) {
    return a.worst_hard_rate < b.worst_hard_rate;
  }
  if (a.worst_f1 != b.worst_f1) return a.worst_f1 > b.worst_f1;
  return a.mean_f1 > b.mean_f1;
}

}  // namespace

const CategorySelection* Selection::Find(const std::string& category) const {
  for (const CategorySelection& entry : categories) {
    if (entry.name == category) return &entry;
  }
  return nullptr;
}

std::string Selection::Json() const {
  nlohmann::ordered_json j;
  j["c"] = c;
  j["max_hard_negative_rate"] = max_hard_negative_rate;
  j["corpus_digest"] = corpus_digest;
  nlohmann::ordered_json cats = nlohmann::ordered_json::object();
  for (const CategorySelection& category : categories) {
    cats[category.name] = {{"platt_a", category.platt_a},
                           {"platt_b", category.platt_b},
                           {"threshold", category.threshold}};
  }
  j["categories"] = cats;
  j["pooled"] = pooled_json.empty() ? nlohmann::ordered_json::object()
                                    : nlohmann::ordered_json::parse(pooled_json);
  nlohmann::ordered_json writers = nlohmann::ordered_json::object();
  for (const auto& [writer, figures] : writer_json) {
    writers[writer] = nlohmann::ordered_json::parse(figures);
  }
  j["writers"] = writers;
  return j.dump(1) + "\n";
}

Result<Selection> Selection::Parse(const std::string& json, const std::string& source) {
  try {
    const auto j = nlohmann::ordered_json::parse(json);
    Selection selection;
    selection.c = j.at("c").get<double>();
    selection.max_hard_negative_rate = j.value("max_hard_negative_rate", 0.08);
    selection.corpus_digest = j.value("corpus_digest", "");
    for (const auto& [name, value] : j.at("categories").items()) {
      selection.categories.push_back(CategorySelection{name, value.at("platt_a").get<double>(),
                                                       value.at("platt_b").get<double>(),
                                                       value.at("threshold").get<double>()});
    }
    if (j.contains("pooled")) selection.pooled_json = j["pooled"].dump();
    if (j.contains("writers")) {
      for (const auto& [writer, figures] : j["writers"].items()) {
        selection.writer_json.emplace_back(writer, figures.dump());
      }
    }
    if (!(selection.c > 0)) return Fail(source + ": c must be positive");
    return selection;
  } catch (const nlohmann::json::exception& e) {
    return Fail(source + ": " + e.what());
  }
}

std::string CorpusDigest(const std::vector<Example>& examples) {
  std::string all;
  for (const Example& e : examples) {
    if (e.from_user) continue;
    all += e.writer + '\0' + e.category + '\0' + e.label + '\0' + e.kind + '\0' + e.context + '\0' +
           e.text + '\0';
  }
  return fmt::format("{:016x}", TextHash(all));
}

Result<CrossWriterResult> SelectAcrossWriters(const DetectorBank& bank,
                                              const std::vector<Example>& all_examples,
                                              const CrossWriterOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  std::vector<Example> examples;
  for (const Example& e : all_examples) {
    if (!e.from_user) examples.push_back(e);
  }
  std::vector<std::string> writers;
  std::vector<std::size_t> writer_of(examples.size());
  for (std::size_t i = 0; i < examples.size(); ++i) {
    auto it = std::find(writers.begin(), writers.end(), examples[i].writer);
    if (it == writers.end()) it = writers.insert(writers.end(), examples[i].writer);
    writer_of[i] = static_cast<std::size_t>(it - writers.begin());
  }
  if (writers.size() < 2) return Fail("cross-writer validation needs at least two writers");
  if (options.c_grid.empty()) return Fail("cross-writer validation needs at least one C");

  const auto& cats = bank.catalogue().categories;
  const std::size_t n_categories = cats.size();
  const std::vector<logistic::Row> rows = logistic::PrepareRows(bank, examples, options.threads);
  spdlog::info("cross-writer: {} texts by {} writers, features in {:.1f} s", examples.size(),
               writers.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());

  CrossWriterResult best;
  double best_worst = -1;
  for (const double c_value : options.c_grid) {
    // Every text scored by the models that never saw its writer.
    std::vector<std::vector<double>> held_out(examples.size(), std::vector<double>(n_categories));
    logistic::ParallelFor(writers.size() * n_categories, options.threads, [&](std::size_t task) {
      const std::size_t w = task / n_categories;
      const std::size_t c = task % n_categories;
      std::vector<feature_node*> x;
      std::vector<double> y;
      for (std::size_t i = 0; i < examples.size(); ++i) {
        if (writer_of[i] == w) continue;
        x.push_back(const_cast<feature_node*>(rows[i].nodes.data()));
        y.push_back(examples[i].category == cats[c].name && examples[i].label == "positive" ? 1.0
                                                                                            : -1.0);
      }
      const std::vector<double> weights = logistic::TrainOne(x, std::move(y), c_value);
      for (std::size_t i = 0; i < examples.size(); ++i) {
        if (writer_of[i] == w) held_out[i][c] = logistic::RawScore(weights, rows[i]);
      }
    });

    Selection selection;
    selection.c = c_value;
    selection.max_hard_negative_rate = options.max_hard_negative_rate;
    std::vector<std::vector<bool>> flagged(examples.size(), std::vector<bool>(n_categories));
    for (std::size_t c = 0; c < n_categories; ++c) {
      std::vector<double> scores(examples.size());
      std::vector<bool> positive(examples.size());
      for (std::size_t i = 0; i < examples.size(); ++i) {
        scores[i] = held_out[i][c];
        positive[i] = examples[i].category == cats[c].name && examples[i].label == "positive";
      }
      const auto [fa, fb] = logistic::FitSigmoid(scores, positive);
      const double a = -fa;
      const double b = -fb;
      // The category's own texts decide its threshold, each writer apart.
      std::vector<std::size_t> own;
      std::vector<double> probability(examples.size());
      for (std::size_t i = 0; i < examples.size(); ++i) {
        probability[i] = Sigmoid(a, b, scores[i]);
        if (examples[i].category == cats[c].name) own.push_back(i);
      }
      std::vector<double> candidates;
      for (std::size_t i : own) candidates.push_back(probability[i]);
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
      if (candidates.size() > kMaxThresholds) {
        std::vector<double> thinned;
        for (std::size_t k = 0; k < kMaxThresholds; ++k) {
          thinned.push_back(candidates[k * (candidates.size() - 1) / (kMaxThresholds - 1)]);
        }
        candidates = std::move(thinned);
      }
      ThresholdChoice chosen;
      chosen.feasible = false;
      chosen.worst_hard_rate = std::numeric_limits<double>::infinity();
      for (std::size_t k = 0; k < candidates.size(); ++k) {
        // Midway to the next lower score: a text scoring like this one is detected.
        const double threshold = k == 0 ? candidates[0] : (candidates[k] + candidates[k - 1]) / 2;
        std::vector<Counts> counts(writers.size());
        for (std::size_t i : own) {
          Counts& n = counts[writer_of[i]];
          const bool hit = probability[i] >= threshold;
          if (examples[i].label == "positive") {
            ++n.positives;
            if (hit) ++n.tp;
          } else {
            if (hit) ++n.fp;
            if (examples[i].label == "hard_negative") {
              ++n.hard;
              if (hit) ++n.hard_flagged;
            }
          }
        }
        ThresholdChoice here{threshold, true, 2.0, 0.0, 0.0};
        int scored = 0;
        for (const Counts& n : counts) {
          here.worst_hard_rate = std::max(here.worst_hard_rate, n.HardRate());
          if (n.HardRate() > options.max_hard_negative_rate) here.feasible = false;
          if (n.positives == 0) continue;
          here.worst_f1 = std::min(here.worst_f1, n.F1());
          here.mean_f1 += n.F1();
          ++scored;
        }
        if (scored > 0) here.mean_f1 /= scored;
        if (Better(here, chosen)) chosen = here;
      }
      if (!chosen.feasible) {
        spdlog::warn(
            "{} at C = {}: no threshold keeps every writer's hard negatives within "
            "{:.0f} %; the lowest worst rate is {:.1f} %",
            cats[c].name, c_value, 100 * options.max_hard_negative_rate,
            100 * chosen.worst_hard_rate);
      }
      selection.categories.push_back(CategorySelection{cats[c].name, a, b, chosen.threshold});
      for (std::size_t i = 0; i < examples.size(); ++i) {
        flagged[i][c] = probability[i] >= chosen.threshold;
      }
    }

    // The figures with these settings, each text in its own category.
    auto figures_of = [&](auto keep) {
      Figures figures;
      for (const auto& category : cats)
        figures.categories.push_back(CategoryFigures{category.name});
      for (std::size_t i = 0; i < examples.size(); ++i) {
        if (!keep(i)) continue;
        for (std::size_t c = 0; c < n_categories; ++c) {
          if (examples[i].category != cats[c].name) continue;
          CategoryFigures& f = figures.categories[c];
          const bool hit = flagged[i][c];
          if (examples[i].label == "positive") {
            ++f.positives;
            if (hit) ++f.true_positives;
          } else {
            ++f.negatives;
            if (hit) ++f.false_positives;
            if (examples[i].label == "hard_negative") {
              ++f.hard_negatives;
              if (hit) ++f.hard_flagged;
            }
          }
        }
      }
      return figures;
    };
    CrossWriterResult result;
    result.pooled = figures_of([](std::size_t) { return true; });
    double worst = 2.0;
    std::string worst_writer;
    for (std::size_t w = 0; w < writers.size(); ++w) {
      Figures figures = figures_of([&](std::size_t i) { return writer_of[i] == w; });
      if (figures.MacroF1() < worst) {
        worst = figures.MacroF1();
        worst_writer = writers[w];
      }
      selection.writer_json.emplace_back(writers[w], figures.Json());
      result.per_writer.emplace_back(writers[w], std::move(figures));
    }
    selection.pooled_json = result.pooled.Json();
    selection.corpus_digest = CorpusDigest(examples);
    const std::string trial = fmt::format(
        "C = {}: worst writer {} macro-F1 {:.3f}; pooled macro-F1 {:.3f}, hard "
        "negatives flagged {:.1f} %",
        c_value, worst_writer, worst, result.pooled.MacroF1(), 100 * result.pooled.HardRate());
    spdlog::info("cross-writer: {}", trial);
    best.trials.push_back(trial);
    if (worst > best_worst) {
      best_worst = worst;
      result.trials = best.trials;
      result.selection = std::move(selection);
      best = std::move(result);
    }
  }
  spdlog::info("cross-writer: chose C = {} in {:.1f} s", best.selection.c,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return best;
}

}  // namespace togmal::analysis
