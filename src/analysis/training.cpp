#include "togmal/analysis/training.h"

#include <linear.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "togmal/analysis/analyzer.h"
#include "togmal/analysis/features.h"

namespace togmal::analysis {
namespace {

// LIBLINEAR prints its progress on stdout, which is the protocol in `serve`.
void LiblinearToLog(const char* message) {
  std::string line(message);
  while (!line.empty() && line.back() == '\n') line.pop_back();
  if (!line.empty()) spdlog::debug("liblinear: {}", line);
}

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
  return nodes;
}

/// Platt scaling (Lin, Lin and Weng's Newton method): fits
/// P(positive | score) = 1 / (1 + exp(a·score + b)); returns {a, b}.
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

struct Prepared {
  std::vector<feature_node> nodes;
  std::vector<bool> rule_detected;  ///< [category]
};

/// Weights of one category's logistic regression (bias last), for label +1.
std::vector<double> TrainOne(const std::vector<feature_node*>& x, std::vector<double> y, double c) {
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
    all.insert(all.end(), std::make_move_iterator(examples->begin()),
               std::make_move_iterator(examples->end()));
  }
  return all;
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
  set_print_string_function(&LiblinearToLog);
  const auto started = std::chrono::steady_clock::now();
  const auto& cats = bank.catalogue().categories;
  const std::size_t n_categories = cats.size();

  std::vector<Prepared> prepared(examples.size());
  std::vector<Feature> features;
  for (std::size_t i = 0; i < examples.size(); ++i) {
    const Analysis rules = bank.Analyze(examples[i].text, examples[i].context);
    ExtractFeatures(examples[i].text, examples[i].context, rules, features);
    prepared[i].nodes = ToNodes(features);
    for (const CategoryDetection& d : rules.detections)
      prepared[i].rule_detected.push_back(d.detected);
  }

  TrainResult result;
  Model& model = result.model;
  model.trained_at = options.trained_at.empty() ? NowIso8601() : options.trained_at;
  model.trained_on = options.trained_on;
  std::vector<std::vector<double>> weights(n_categories);
  std::vector<std::size_t> validation;
  for (std::size_t i = 0; i < examples.size(); ++i) {
    if (!examples[i].from_user && IsValidation(examples[i].text)) validation.push_back(i);
  }

  for (std::size_t c = 0; c < n_categories; ++c) {
    std::vector<feature_node*> x;
    std::vector<double> y;
    for (std::size_t i = 0; i < examples.size(); ++i) {
      const Example& e = examples[i];
      const bool mine = e.category == cats[c].name;
      const double label = mine && e.label == "positive" ? 1.0 : -1.0;
      if (e.from_user) {
        if (!mine) continue;
        for (int k = 0; k < options.user_repeat; ++k) {
          x.push_back(prepared[i].nodes.data());
          y.push_back(label);
        }
      } else if (!IsValidation(e.text)) {
        const int repeat = mine && e.label == "hard_negative" ? options.hard_negative_repeat : 1;
        for (int k = 0; k < repeat; ++k) {
          x.push_back(prepared[i].nodes.data());
          y.push_back(label);
        }
      }
    }
    weights[c] = TrainOne(x, std::move(y), options.c);
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
    const auto [a, b] = FitSigmoid(s, positive);
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
          const bool flagged = probabilities[v] >= threshold ||
                               (or_rules && prepared[validation[v]].rule_detected[c]);
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

  // The users' verdicts on exact texts.
  for (const Example& e : examples) {
    if (!e.from_user) continue;
    model.verdicts[TextHash(e.text)][e.category] =
        e.label == "positive" ? Verdict::kFailure : Verdict::kFalsePositive;
  }

  std::vector<Example> split;
  for (std::size_t i : validation) split.push_back(examples[i]);
  result.validation = Evaluate(bank, &model, split);
  model.validation_json = result.validation.Json();
  spdlog::info("trained on {} examples in {:.1f} s", examples.size(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  return result;
}

}  // namespace togmal::analysis
