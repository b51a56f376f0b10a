#include "togmal/analysis/analyzer.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string>

#include "togmal/util/text.h"

namespace togmal::analysis {
namespace {

// How many of the model's n-grams a detection names: enough to see why,
// few enough to read.
constexpr std::size_t kExplainingGrams = 3;

/// Whether an n-gram of the text says something: at least one of its words
/// has three characters or more and is not a function word. A hash bucket
/// can weigh on a category through the other n-grams that share it, so
/// "this" or "my" may carry weight without meaning anything; naming them
/// would explain nothing.
bool CarriesMeaning(std::string_view gram) {
  std::string word;
  auto content = [&word] {
    const bool yes = word.size() >= 3 && !util::IsStopword(word);
    word.clear();
    return yes;
  };
  for (char ch : gram) {
    const auto byte = static_cast<unsigned char>(ch);
    if (std::isalnum(byte) || ch == '_' || byte >= 0x80) {
      word += util::AsciiLower(ch);
    } else if (!word.empty() && content()) {
      return true;
    }
  }
  return !word.empty() && content();
}

/// The word n-grams that pushed category `c` up most, as signal hits.
void AddExplainingGrams(const Model& model, std::size_t c, std::string_view text,
                        const std::vector<WordGram>& grams, std::vector<SignalHit>& into) {
  std::vector<std::pair<double, const WordGram*>> ranked;
  for (const WordGram& gram : grams) {
    if (!CarriesMeaning(text.substr(gram.start, gram.end - gram.start))) continue;
    const double weight = model.Weight(gram.bucket, c);
    if (weight > 0) ranked.emplace_back(weight, &gram);
  }
  const std::size_t keep = std::min(kExplainingGrams, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep),
                    ranked.end(), [](const auto& a, const auto& b) {
                      return a.first > b.first ||
                             (a.first == b.first && a.second->start < b.second->start);
                    });
  for (std::size_t k = 0; k < keep; ++k) {
    const WordGram& gram = *ranked[k].second;
    into.push_back(SignalHit{std::string(kModelSignalName),
                             std::string(text.substr(gram.start, gram.end - gram.start)),
                             gram.start, gram.end});
  }
}

}  // namespace

Analysis AnalyzeWithModel(const DetectorBank& bank, const Model* model, std::string_view text,
                          std::string_view context) {
  Analysis analysis = bank.Analyze(text, context);
  if (model == nullptr || model->categories.empty()) return analysis;
  thread_local std::vector<Feature> features;
  ExtractFeatures(text, context, analysis, features);
  const std::vector<double> scores = model->Scores(features);
  std::vector<WordGram> grams;
  bool have_grams = false;
  for (CategoryDetection& detection : analysis.detections) {
    const int found = model->Find(detection.category);
    if (found < 0) continue;  // a category the model was not trained on: the rules decide
    const auto c = static_cast<std::size_t>(found);
    const ModelCategory& category = model->categories[c];
    const double probability = model->Probability(c, scores[c]);
    bool detected = probability >= category.threshold || (category.or_rules && detection.detected);
    if (const Verdict* verdict = model->FindVerdict(text, detection.category)) {
      detected = *verdict == Verdict::kFailure;
    }
    detection.confidence = detected ? std::max(probability, category.threshold) : probability;
    detection.detected = detected;
    if (detected) {
      if (!have_grams) {
        grams = WordGrams(text);
        have_grams = true;
      }
      AddExplainingGrams(*model, c, text, grams, detection.signals);
      std::stable_sort(detection.signals.begin(), detection.signals.end(),
                       [](const SignalHit& a, const SignalHit& b) { return a.start < b.start; });
    }
  }
  ScoreRisk(bank.catalogue(), analysis);
  return analysis;
}

}  // namespace togmal::analysis
