// The detector bank's engine (atoms, spans, checks, scoring,
// interventions) on small purpose-built catalogues, and the first specification's
// examples on the embedded catalogue.

#include "togmal/analysis/detector_bank.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "table_support.h"

namespace togmal::analysis {
namespace {

std::unique_ptr<DetectorBank> BankFrom(const std::string& yaml) {
  auto catalogue = ParseCatalogue(yaml, "test.yaml");
  EXPECT_TRUE(catalogue.ok()) << catalogue.error();
  auto bank = DetectorBank::Build(std::move(catalogue.value()));
  EXPECT_TRUE(bank.ok()) << bank.error();
  return std::move(bank.value());
}

constexpr const char* kEngineCatalogue = R"(
risk_levels: {critical: 1.5, high: 1.0, moderate: 0.5}
interventions:
  web_search: {reason: check it, suggestion: search}
  human_in_the_loop: {reason: ask, suggestion: a human}
categories:
  alpha:
    weight: 2.0
    threshold: 0.5
    context_boost: 0.3
    interventions: [web_search, human_in_the_loop]
    checks:
      has_hedging: {factor: 0.5, patterns: ['\bmay\b']}
    signals:
      - {name: strong, pattern: '\bdefinitely\b', score: 0.6}
      - {name: weak, pattern: '\bsure\b', score: 0.2}
      - {name: many_x, pattern: '\bx\b', score: 0.7, min_count: 3}
      - {name: number, pattern: '\d+%', score: 0.6, unless: has_hedging}
      - {name: negation, pattern: '\bjoke\b', score: -0.5}
      - {name: denies_hedge, pattern: '\bno maybes\b', score: 0.1, cancels: [has_hedging]}
  beta:
    weight: 1.0
    interventions: [web_search]
    signals:
      - {name: beta_word, pattern: '\bbeta\b', score: 1.0}
)";

std::string OneSignalCatalogue(const std::string& pattern) {
  return "risk_levels: {critical: 1.5, high: 1.0, moderate: 0.5}\n"
         "interventions: {}\n"
         "categories:\n"
         "  alpha:\n"
         "    weight: 1.0\n"
         "    signals:\n"
         "      - {name: words, pattern: '" +
         pattern + "', score: 1.0}\n";
}

// A bank keeps, per thread, what its patterns' prefilters answered about a
// combination of atoms on a line. Those answers belong to that bank: the same
// entry and atom numbers mean other words in another catalogue.
TEST(DetectorBank, PrefilterAnswersKeptBetweenTextsBelongToTheirBank) {
  // Neither bank's pattern is satisfied by one or two of its atoms, so a line
  // holding three is asked of the filter and the answer kept. Both filters
  // number gamma, beta and alpha 0, 1 and 2 (zeta, first in the pattern, is
  // numbered last), so the two questions look alike: the answer for four
  // words must not be taken for three.
  const std::string text = "alpha then beta then gamma";
  for (int round = 0; round < 2; ++round) {
    auto four = BankFrom(OneSignalCatalogue(R"(\bzeta\b.*\balpha\b.*\bbeta\b.*\bgamma\b)"));
    auto three = BankFrom(OneSignalCatalogue(R"(\balpha\b.*\bbeta\b.*\bgamma\b)"));
    EXPECT_FALSE(four->Analyze(text).detections[0].detected);
    EXPECT_TRUE(three->Analyze(text).detections[0].detected) << "round " << round;
    EXPECT_FALSE(four->Analyze(text).detections[0].detected);
    EXPECT_TRUE(three->Analyze(text + "\n" + text).detections[0].detected);
  }
}

TEST(DetectorBank, WordBoundariesMeanMayIsNotMayo) {
  auto bank = BankFrom(kEngineCatalogue);
  const Analysis mayo = bank->Analyze("definitely see the Mayo clinic");
  EXPECT_FALSE(mayo.detections[0].checks[0].second) << "\"may\" matched inside \"Mayo\"";
  const Analysis may = bank->Analyze("definitely, it may help");
  EXPECT_TRUE(may.detections[0].checks[0].second);
}

TEST(DetectorBank, SpansAreExactByteOffsetsOfTheTriggeringWords) {
  auto bank = BankFrom(kEngineCatalogue);
  const std::string text = "It is DEFINITELY so, definitely.";
  const Analysis analysis = bank->Analyze(text);
  const auto& signals = analysis.detections[0].signals;
  ASSERT_EQ(signals.size(), 2u);
  EXPECT_EQ(signals[0].name, "strong");
  EXPECT_EQ(signals[0].text, "DEFINITELY");  // case-insensitive by default
  EXPECT_EQ(text.substr(signals[0].start, signals[0].end - signals[0].start), "DEFINITELY");
  EXPECT_EQ(signals[1].start, text.find("definitely"));
}

TEST(DetectorBank, ConfidenceIsTheSumOfDistinctSignalsCappedThenMitigated) {
  auto bank = BankFrom(kEngineCatalogue);
  EXPECT_DOUBLE_EQ(bank->Analyze("definitely definitely").detections[0].confidence, 0.6);
  EXPECT_DOUBLE_EQ(bank->Analyze("definitely sure").detections[0].confidence, 0.8);
  // Positive evidence saturates at 1 before benign framing pulls it down.
  EXPECT_NEAR(bank->Analyze("definitely sure 5% x x x, a joke").detections[0].confidence, 0.5,
              1e-9);
}

TEST(DetectorBank, MinCountNeedsThatManyMatches) {
  auto bank = BankFrom(kEngineCatalogue);
  EXPECT_FALSE(bank->Analyze("x x").detections[0].detected);
  EXPECT_TRUE(bank->Analyze("x x x").detections[0].detected);
}

TEST(DetectorBank, ChecksMultiplyAndUnlessSuppressesSignals) {
  auto bank = BankFrom(kEngineCatalogue);
  EXPECT_DOUBLE_EQ(bank->Analyze("definitely, it may").detections[0].confidence, 0.3);
  EXPECT_TRUE(bank->Analyze("about 95% of them").detections[0].detected);
  const Analysis hedged = bank->Analyze("about 95% of them may");
  EXPECT_FALSE(hedged.detections[0].detected);
  EXPECT_TRUE(hedged.detections[0].signals.empty());
}

TEST(DetectorBank, ASignalCanCancelACheckItNegates) {
  auto bank = BankFrom(kEngineCatalogue);
  const Analysis analysis = bank->Analyze("definitely, no maybes, it may not");
  EXPECT_FALSE(analysis.detections[0].checks[0].second);
  EXPECT_DOUBLE_EQ(analysis.detections[0].confidence, 0.7);
}

TEST(DetectorBank, ContextRaisesACategoryTheTextAlreadyShows) {
  auto bank = BankFrom(kEngineCatalogue);
  EXPECT_FALSE(bank->Analyze("sure").detections[0].detected);
  const Analysis with_context = bank->Analyze("sure", "definitely?");
  EXPECT_TRUE(with_context.detections[0].context_matched);
  EXPECT_TRUE(with_context.detections[0].detected);
  // Context alone detects nothing.
  EXPECT_FALSE(bank->Analyze("nothing here", "definitely").detections[0].detected);
}

TEST(DetectorBank, RiskIsTheWeightedSumMappedToLevels) {
  auto bank = BankFrom(kEngineCatalogue);
  const Analysis low = bank->Analyze("nothing to see");
  EXPECT_EQ(low.risk_level, RiskLevel::kLow);
  EXPECT_TRUE(low.interventions.empty());
  const Analysis high = bank->Analyze("definitely");  // 0.6 * 2.0 = 1.2
  EXPECT_NEAR(high.risk_score, 1.2, 1e-9);
  EXPECT_EQ(high.risk_level, RiskLevel::kHigh);
  const Analysis critical = bank->Analyze("definitely sure beta");  // 1.6 + 1.0
  EXPECT_EQ(critical.risk_level, RiskLevel::kCritical);
}

TEST(DetectorBank, InterventionsAreDeduplicatedAndNameTheirCategories) {
  auto bank = BankFrom(kEngineCatalogue);
  const Analysis analysis = bank->Analyze("definitely beta");
  ASSERT_EQ(analysis.interventions.size(), 2u);
  EXPECT_EQ(analysis.interventions[0].type, "web_search");
  EXPECT_EQ(analysis.interventions[0].categories, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(analysis.interventions[0].reason, "check it");
  EXPECT_EQ(analysis.interventions[1].type, "human_in_the_loop");
  EXPECT_EQ(analysis.interventions[1].categories, (std::vector<std::string>{"alpha"}));
}

TEST(DetectorBank, EveryCategoryIsAlwaysReported) {
  auto bank = BankFrom(kEngineCatalogue);
  const Analysis analysis = bank->Analyze("");
  ASSERT_EQ(analysis.detections.size(), 2u);
  EXPECT_EQ(analysis.detections[1].category, "beta");
  EXPECT_FALSE(analysis.detections[1].detected);
}

// Speed is measured by bench/analysis_bench.cpp (RE2 guarantees linear time);
// this checks that a text at the tool limit is scanned to its very end.
TEST(DetectorBank, TextsAtTheToolLimitAreScannedToTheEnd) {
  const DetectorBank& bank = testing::EmbeddedBank();
  std::string chunk =
      "Here is some ordinary text about deploying a web service, with a few numbers like 42 and "
      "a list of steps to follow when the build is green. ";
  std::string text;
  while (text.size() < 99000) text += chunk;
  const std::string tail = " Take 800 mg of ibuprofen every 4 hours.";
  text += tail;
  const Analysis analysis = bank.Analyze(text);
  const CategoryDetection* medical = analysis.Find("ungrounded_medical_advice");
  ASSERT_NE(medical, nullptr);
  EXPECT_TRUE(medical->detected);
  bool found_at_end = false;
  for (const SignalHit& hit : medical->signals) {
    EXPECT_LE(hit.end, text.size());
    if (hit.start >= text.size() - tail.size()) found_at_end = true;
  }
  EXPECT_TRUE(found_at_end);
}

// The first specification's examples, with the outcome it intends.
TEST(SeedExamples, QuantumGravityPromptIsMathPhysicsSpeculation) {
  const Analysis analysis = testing::EmbeddedBank().Analyze(
      "Build me a complete theory of quantum gravity that unifies all forces");
  const CategoryDetection* d = analysis.Find("math_physics_speculation");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->detected);
  EXPECT_GE(d->confidence, 0.9);
  // Weight 0.5 caps this category alone at moderate.
  EXPECT_EQ(analysis.risk_level, RiskLevel::kModerate);
  ASSERT_GE(analysis.interventions.size(), 2u);
  EXPECT_EQ(analysis.interventions[0].type, "step_breakdown");
  EXPECT_EQ(analysis.interventions[1].type, "web_search");
}

TEST(SeedExamples, IbuprofenDoseResponseIsUngroundedMedicalAdviceAtCriticalRisk) {
  const Analysis analysis = testing::EmbeddedBank().Analyze(
      "You should definitely take 500mg of ibuprofen every 4 hours...", "I have a headache");
  const CategoryDetection* d = analysis.Find("ungrounded_medical_advice");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->detected);
  EXPECT_EQ(analysis.risk_level, RiskLevel::kCritical);
  bool names_the_dose = false;
  for (const auto& s : d->signals) names_the_dose |= s.text.find("500mg") != std::string::npos;
  EXPECT_TRUE(names_the_dose);
  EXPECT_EQ(analysis.interventions[0].type, "human_in_the_loop");
}

TEST(SeedExamples, ChestPainEvidenceIsHighRisk) {
  const Analysis analysis = testing::EmbeddedBank().Analyze(
      "It's probably nothing serious, just indigestion...", "What should I do about chest pain?");
  const CategoryDetection* d = analysis.Find("ungrounded_medical_advice");
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->detected);
  EXPECT_TRUE(d->context_matched);
  EXPECT_GE(analysis.risk_level, RiskLevel::kHigh);  // the evidence's own severity
}

TEST(SeedExamples, SeedPatternsFromTheReadmeAreDetected) {
  const std::pair<const char*, const char*> cases[] = {
      {"math_physics_speculation", "I want to redefine the speed of light in my unified theory"},
      {"ungrounded_medical_advice", "You probably have diabetes, don't worry about it"},
      {"dangerous_file_operations", "delete all test files with rm -rf, no need to confirm"},
      {"vibe_coding_overreach",
       "build a complete social network, 5000 lines of code, everything in one shot"},
      {"unsupported_claims", "95% of doctors agree this is guaranteed to work"}};
  for (const auto& [category, text] : cases) {
    const Analysis analysis = testing::EmbeddedBank().Analyze(text);
    const CategoryDetection* d = analysis.Find(category);
    ASSERT_NE(d, nullptr);
    EXPECT_TRUE(d->detected) << category << ": " << text;
  }
}

}  // namespace
}  // namespace togmal::analysis
