#include "togmal/analysis/training.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "logistic.h"
#include "togmal/analysis/analyzer.h"
#include "togmal/analysis/cross_writer.h"
#include "togmal/analysis/features.h"

namespace togmal::analysis {
namespace {

double Ratio(int numerator, int denominator) {
  return denominator == 0 ? 0.0 : static_cast<double>(numerator) / denominator;
}

std::string NowIso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

/// Without a cross-writer selection: fits each category's calibration on the
/// validation split and takes the threshold with the best F1 there that keeps
/// the category's own hard negatives within the limit.
void CalibrateOnValidation(const DetectorBank& bank, const std::vector<Example>& examples,
                           const std::vector<logistic::Row>& rows,
                           const std::vector<std::size_t>& validation, const TrainOptions& options,
                           Model& model) {
  const std::size_t n_categories = model.categories.size();
  std::vector<Feature> features;
  // Calibrate and choose thresholds on the validation split, with the
  // quantised weights that will ship.
  std::vector<std::vector<double>> scores(validation.size());
  for (std::size_t v = 0; v < validation.size(); ++v) {
    const Example& e = examples[validation[v]];
    const Analysis rules = bank.Analyze(e.text, e.context);
    ExtractFeatures(e.text, e.context, rules, features);
    scores[v] = model.Scores(features);
  }
  for (std::size_t c = 0; c < n_categories; ++c) {
    ModelCategory& category = model.categories[c];
    std::vector<double> s;
    std::vector<bool> positive;
    for (std::size_t v = 0; v < validation.size(); ++v) {
      const Example& e = examples[validation[v]];
      s.push_back(scores[v][c]);
      positive.push_back(e.category == category.name && e.label == "positive");
    }
    if (s.empty()) continue;
    const auto [a, b] = logistic::FitSigmoid(s, positive);
    category.platt_a = -a;
    category.platt_b = -b;

    struct Choice {
      double f1 = -1;
      double threshold = 0.5;
      bool or_rules = false;
    } best;
    std::vector<double> probabilities(s.size());
    for (std::size_t v = 0; v < s.size(); ++v) probabilities[v] = model.Probability(c, s[v]);
    std::vector<double> candidates = probabilities;
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (bool or_rules : {false, true}) {
      for (std::size_t k = 0; k < candidates.size(); ++k) {
        // Midway to the next lower score: a text scoring like this one is detected.
        const double threshold = k == 0 ? candidates[0] : (candidates[k] + candidates[k - 1]) / 2;
        int tp = 0, fp = 0, fn = 0, hard = 0, hard_flagged = 0;
        for (std::size_t v = 0; v < s.size(); ++v) {
          const Example& e = examples[validation[v]];
          const bool flagged =
              probabilities[v] >= threshold || (or_rules && rows[validation[v]].rule_detected[c]);
          if (positive[v]) {
            (flagged ? tp : fn) += 1;
          } else if (flagged) {
            ++fp;
          }
          if (e.category == category.name && e.label == "hard_negative") {
            ++hard;
            if (flagged) ++hard_flagged;
          }
        }
        if (Ratio(hard_flagged, hard) > options.max_hard_negative_rate) continue;
        const double f1 = tp == 0 ? 0.0 : 2.0 * tp / (2.0 * tp + fp + fn);
        // The OR must earn its place: it wins only if strictly better.
        if (f1 > best.f1 + (or_rules ? 1e-9 : 0.0)) best = Choice{f1, threshold, or_rules};
      }
    }
    category.threshold = best.threshold;
    category.or_rules = best.or_rules;
    spdlog::info("{}: threshold {:.3f}{}, validation F1 {:.3f}", category.name, category.threshold,
                 category.or_rules ? " (or the rules)" : "", best.f1);
  }
}

}  // namespace

Result<std::vector<Example>> ParseCorpus(std::string_view jsonl, const std::string& source) {
  std::vector<Example> examples;
  int number = 0;
  while (!jsonl.empty()) {
    const std::size_t end = std::min(jsonl.find('\n'), jsonl.size());
    const std::string_view line = jsonl.substr(0, end);
    jsonl.remove_prefix(std::min(end + 1, jsonl.size()));
    ++number;
    if (line.empty()) continue;
    const std::string where = source + ":" + std::to_string(number) + ": ";
    try {
      const auto j = nlohmann::json::parse(line);
      Example example;
      example.category = j.at("category").get<std::string>();
      example.label = j.at("label").get<std::string>();
      example.kind = j.value("kind", "prompt");
      example.text = j.at("text").get<std::string>();
      example.context = j.value("context", "");
      example.writer = j.value("writer", "");
      if (example.label != "positive" && example.label != "negative" &&
          example.label != "hard_negative") {
        return Fail(where + "label must be positive, negative or hard_negative");
      }
      examples.push_back(std::move(example));
    } catch (const nlohmann::json::exception& e) {
      return Fail(where + e.what());
    }
  }
  return examples;
}

Result<std::vector<Example>> ReadCorpusFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Fail("cannot read " + path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return ParseCorpus(bytes.str(), path);
}

Result<std::vector<Example>> ReadCorpusDirectory(const std::string& directory) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.path().extension() == ".jsonl") files.push_back(entry.path().string());
  }
  if (error) return Fail("cannot list " + directory + ": " + error.message());
  std::sort(files.begin(), files.end());
  std::vector<Example> all;
  for (const std::string& file : files) {
    auto examples = ReadCorpusFile(file);
    if (!examples) return Fail(examples.error());
    const std::string writer = std::filesystem::path(file).stem().string();
    for (Example& e : *examples) {
      if (e.writer.empty()) e.writer = writer;
    }
    all.insert(all.end(), std::make_move_iterator(examples->begin()),
               std::make_move_iterator(examples->end()));
  }
  return all;
}

Example VerdictExample(std::string category, bool failure, std::string_view judged,
                       std::string prompt, std::string response) {
  Example example;
  example.category = std::move(category);
  example.label = failure ? "positive" : "negative";
  example.from_user = true;
  if (judged == "response") {
    example.kind = "response";
    example.text = std::move(response);
    example.context = std::move(prompt);
  } else {
    example.kind = "prompt";
    example.text = std::move(prompt);
  }
  return example;
}

bool IsValidation(std::string_view text) { return TextHash(text) % 5 == 0; }

std::vector<Example> ValidationSplit(const std::vector<Example>& examples) {
  std::vector<Example> split;
  for (const Example& e : examples) {
    if (!e.from_user && IsValidation(e.text)) split.push_back(e);
  }
  return split;
}

double CategoryFigures::Precision() const {
  return Ratio(true_positives, true_positives + false_positives);
}
double CategoryFigures::Recall() const { return Ratio(true_positives, positives); }
double CategoryFigures::F1() const {
  const double p = Precision();
  const double r = Recall();
  return p + r == 0 ? 0.0 : 2 * p * r / (p + r);
}

double Figures::MacroF1() const {
  if (categories.empty()) return 0;
  double sum = 0;
  for (const auto& c : categories) sum += c.F1();
  return sum / static_cast<double>(categories.size());
}
int Figures::HardNegatives() const {
  int n = 0;
  for (const auto& c : categories) n += c.hard_negatives;
  return n;
}
int Figures::HardFlagged() const {
  int n = 0;
  for (const auto& c : categories) n += c.hard_flagged;
  return n;
}
double Figures::HardRate() const { return Ratio(HardFlagged(), HardNegatives()); }

std::string Figures::Table() const {
  std::string out =
      "| category | positives | negatives (hard) | precision | recall | F1 | hard negatives "
      "flagged |\n|---|---|---|---|---|---|---|\n";
  for (const auto& c : categories) {
    out += fmt::format("| {} | {} | {} ({}) | {:.2f} | {:.2f} | {:.2f} | {}/{} |\n", c.category,
                       c.positives, c.negatives, c.hard_negatives, c.Precision(), c.Recall(),
                       c.F1(), c.hard_flagged, c.hard_negatives);
  }
  out += fmt::format("\nMacro-F1: {:.3f}; hard negatives flagged: {}/{} ({:.2f} %)\n", MacroF1(),
                     HardFlagged(), HardNegatives(), 100 * HardRate());
  return out;
}

std::string Figures::Json() const {
  nlohmann::json j;
  j["macro_f1"] = std::round(MacroF1() * 1000) / 1000;
  j["hard_negatives"] = HardNegatives();
  j["hard_negatives_flagged"] = HardFlagged();
  nlohmann::json per = nlohmann::json::object();
  for (const auto& c : categories) {
    per[c.category] = {{"f1", std::round(c.F1() * 1000) / 1000},
                       {"precision", std::round(c.Precision() * 1000) / 1000},
                       {"recall", std::round(c.Recall() * 1000) / 1000},
                       {"hard_flagged", c.hard_flagged},
                       {"hard_negatives", c.hard_negatives}};
  }
  j["categories"] = per;
  return j.dump();
}

Figures Evaluate(const DetectorBank& bank, const Model* model,
                 const std::vector<Example>& examples) {
  Figures figures;
  for (const CategorySpec& category : bank.catalogue().categories) {
    figures.categories.push_back(CategoryFigures{category.name});
  }
  for (const Example& example : examples) {
    auto it =
        std::find_if(figures.categories.begin(), figures.categories.end(),
                     [&](const CategoryFigures& c) { return c.category == example.category; });
    if (it == figures.categories.end()) continue;
    const Analysis analysis = AnalyzeWithModel(bank, model, example.text, example.context);
    const CategoryDetection* detection = analysis.Find(example.category);
    const bool flagged = detection != nullptr && detection->detected;
    if (example.label == "positive") {
      ++it->positives;
      if (flagged) ++it->true_positives;
    } else {
      ++it->negatives;
      if (flagged) ++it->false_positives;
      if (example.label == "hard_negative") {
        ++it->hard_negatives;
        if (flagged) ++it->hard_flagged;
      }
    }
  }
  return figures;
}

Result<TrainResult> Train(const DetectorBank& bank, const std::vector<Example>& examples,
                          const TrainOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  const auto& cats = bank.catalogue().categories;
  const std::size_t n_categories = cats.size();
  const Selection* selection = options.selection;

  const std::vector<logistic::Row> rows = logistic::PrepareRows(bank, examples, options.threads);
  const auto featured = std::chrono::steady_clock::now();

  TrainResult result;
  Model& model = result.model;
  model.trained_at = options.trained_at.empty() ? NowIso8601() : options.trained_at;
  model.trained_on = options.trained_on;
  // With a selection every text trains (its settings were chosen across
  // writers); without one, a fifth of the texts is kept back to choose them.
  std::vector<std::size_t> validation;
  if (selection == nullptr) {
    for (std::size_t i = 0; i < examples.size(); ++i) {
      if (!examples[i].from_user && IsValidation(examples[i].text)) validation.push_back(i);
    }
  }
  const double c_value = selection != nullptr ? selection->c : options.c;

  std::vector<std::vector<double>> weights(n_categories);
  logistic::ParallelFor(n_categories, options.threads, [&](std::size_t c) {
    std::vector<feature_node*> x;
    std::vector<double> y;
    for (std::size_t i = 0; i < examples.size(); ++i) {
      const Example& e = examples[i];
      const bool mine = e.category == cats[c].name;
      const double label = mine && e.label == "positive" ? 1.0 : -1.0;
      int repeat = 1;
      if (e.from_user) {
        if (!mine) continue;
        repeat = options.user_repeat;
      } else if (selection == nullptr && IsValidation(e.text)) {
        continue;
      } else if (mine && e.label == "hard_negative") {
        repeat = options.hard_negative_repeat;
      }
      for (int k = 0; k < repeat; ++k) {
        x.push_back(const_cast<feature_node*>(rows[i].nodes.data()));
        y.push_back(label);
      }
    }
    weights[c] = logistic::TrainOne(x, std::move(y), c_value);
  });
  for (std::size_t c = 0; c < n_categories; ++c) {
    ModelCategory category;
    category.name = cats[c].name;
    category.bias = weights[c].back();
    double largest = 0;
    for (std::size_t b = 0; b < kFeatureBuckets; ++b)
      largest = std::max(largest, std::fabs(weights[c][b]));
    category.scale = largest > 0 ? largest / 127.0 : 1.0;
    model.categories.push_back(category);
  }

  // Quantise: one row of categories per bucket.
  std::vector<std::int8_t> quantised(std::size_t{kFeatureBuckets} * n_categories);
  for (std::size_t b = 0; b < kFeatureBuckets; ++b) {
    for (std::size_t c = 0; c < n_categories; ++c) {
      const double q = std::round(weights[c][b] / model.categories[c].scale);
      quantised[b * n_categories + c] = static_cast<std::int8_t>(std::clamp(q, -127.0, 127.0));
    }
  }
  model.SetWeights(std::move(quantised));

  if (selection != nullptr) {
    for (ModelCategory& category : model.categories) {
      const CategorySelection* chosen = selection->Find(category.name);
      if (chosen == nullptr) {
        // A category added after the selection: the plain logistic reading.
        spdlog::warn("{}: no cross-writer selection; threshold 0.5 on the raw probability",
                     category.name);
        continue;
      }
      category.platt_a = chosen->platt_a;
      category.platt_b = chosen->platt_b;
      category.threshold = chosen->threshold;
    }
    model.validation_json = selection->pooled_json;
  } else {
    CalibrateOnValidation(bank, examples, rows, validation, options, model);
  }

  // The users' verdicts on exact texts.
  for (const Example& e : examples) {
    if (!e.from_user) continue;
    model.verdicts[TextHash(e.text)][e.category] =
        e.label == "positive" ? Verdict::kFailure : Verdict::kFalsePositive;
  }

  if (selection == nullptr) {
    std::vector<Example> split;
    for (std::size_t i : validation) split.push_back(examples[i]);
    result.validation = Evaluate(bank, &model, split);
    model.validation_json = result.validation.Json();
  }
  const auto seconds = [](auto from, auto to) {
    return std::chrono::duration<double>(to - from).count();
  };
  spdlog::info("trained on {} examples in {:.1f} s ({:.1f} s for their features)", examples.size(),
               seconds(started, std::chrono::steady_clock::now()), seconds(started, featured));
  return result;
}

}  // namespace togmal::analysis
