// The catalogue loader: the embedded default is valid and complete, and every
// kind of mistake in a user's file is reported with file:line.

#include "togmal/analysis/catalogue.h"

#include <gtest/gtest.h>

#include <string>

#include "togmal/analysis/detector_bank.h"
#include "togmal/util/embedded.h"

namespace togmal::analysis {
namespace {

Catalogue Embedded() {
  auto yaml = util::FindEmbeddedFile("detectors.yaml");
  EXPECT_TRUE(yaml.has_value());
  auto catalogue = ParseCatalogue(yaml.value_or(""), "detectors.yaml");
  EXPECT_TRUE(catalogue.ok()) << catalogue.error();
  return catalogue.ok() ? catalogue.value() : Catalogue{};
}

TEST(Catalogue, EmbeddedDefaultHasTheFiveCategoriesWithTheSeedWeights) {
  const Catalogue catalogue = Embedded();
  const std::pair<const char*, double> expected[] = {{"math_physics_speculation", 0.5},
                                                     {"ungrounded_medical_advice", 1.5},
                                                     {"dangerous_file_operations", 2.0},
                                                     {"vibe_coding_overreach", 0.4},
                                                     {"unsupported_claims", 0.3}};
  ASSERT_EQ(catalogue.categories.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(catalogue.categories[i].name, expected[i].first);
    EXPECT_DOUBLE_EQ(catalogue.categories[i].weight, expected[i].second);
    EXPECT_FALSE(catalogue.categories[i].interventions.empty());
  }
  EXPECT_DOUBLE_EQ(catalogue.thresholds.critical, 1.5);
  EXPECT_DOUBLE_EQ(catalogue.thresholds.high, 1.0);
  EXPECT_DOUBLE_EQ(catalogue.thresholds.moderate, 0.5);
  for (const char* type :
       {"step_breakdown", "human_in_the_loop", "web_search", "simplified_scope"}) {
    EXPECT_NE(catalogue.FindIntervention(type), nullptr) << type;
  }
}

TEST(Catalogue, EmbeddedDefaultCompilesIntoOneBank) {
  auto bank = DetectorBank::Build(Embedded());
  ASSERT_TRUE(bank.ok()) << bank.error();
}

constexpr const char* kMinimal = R"(version: 1
interventions:
  web_search: {reason: r, suggestion: s}
categories:
  demo:
    weight: 1
    interventions: [web_search]
    signals:
      - {name: hit, pattern: '\bfoo\b', score: 0.6}
)";

TEST(Catalogue, MinimalUserCatalogueParsesWithDefaults) {
  auto catalogue = ParseCatalogue(kMinimal, "user.yaml");
  ASSERT_TRUE(catalogue.ok()) << catalogue.error();
  ASSERT_EQ(catalogue->categories.size(), 1u);
  EXPECT_DOUBLE_EQ(catalogue->categories[0].threshold, 0.5);
  EXPECT_EQ(catalogue->categories[0].signals[0].min_count, 1);
}

struct BadCatalogue {
  const char* name;
  std::string yaml;
  const char* expected;  ///< substring of the error, which starts with file:line
};

class CatalogueErrors : public ::testing::TestWithParam<BadCatalogue> {};

TEST_P(CatalogueErrors, NameFileAndLine) {
  auto catalogue = ParseCatalogue(GetParam().yaml, "my.yaml");
  ASSERT_FALSE(catalogue.ok());
  EXPECT_NE(catalogue.error().find(GetParam().expected), std::string::npos) << catalogue.error();
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

INSTANTIATE_TEST_SUITE_P(
    Table, CatalogueErrors,
    ::testing::Values(
        BadCatalogue{"yaml_syntax", "categories: [unclosed\n", "my.yaml:"},
        BadCatalogue{"unknown_key", Replace(kMinimal, "    weight: 1", "    weigth: 1"),
                     "my.yaml:6: unknown key 'weigth'"},
        BadCatalogue{"missing_score", Replace(kMinimal, ", score: 0.6", ""),
                     "my.yaml:9: signal without a score"},
        BadCatalogue{"score_out_of_range", Replace(kMinimal, "score: 0.6", "score: 3"),
                     "my.yaml:9: score must be between -1 and 1"},
        BadCatalogue{"unknown_intervention", Replace(kMinimal, "[web_search]", "[pray]"),
                     "my.yaml:7: unknown intervention 'pray'"},
        BadCatalogue{"unknown_unless_check",
                     Replace(kMinimal, "score: 0.6}", "score: 0.6, unless: has_sources}"),
                     "my.yaml:9: signal 'hit' refers to unknown check 'has_sources'"},
        BadCatalogue{"no_positive_signal", Replace(kMinimal, "score: 0.6", "score: -0.6"),
                     "my.yaml:5: category 'demo' has no signal with a positive score"},
        BadCatalogue{"duplicate_signal",
                     std::string(kMinimal) + "      - {name: hit, pattern: bar, score: 0.1}\n",
                     "my.yaml:10: duplicate signal 'hit'"},
        BadCatalogue{"weight_not_number", Replace(kMinimal, "weight: 1", "weight: heavy"),
                     "my.yaml:6: weight must be a number"},
        BadCatalogue{
            "levels_out_of_order",
            std::string("risk_levels: {critical: 0.2, high: 1.0, moderate: 0.5}\n") + kMinimal,
            "my.yaml:1: risk_levels must satisfy"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// Reading a catalogue does not compile its patterns; building the bank does,
// once, and names the line the bad pattern is written on.
TEST(Catalogue, ABadPatternIsReportedByTheBankAtItsLine) {
  auto signal = ParseCatalogue(Replace(kMinimal, R"('\bfoo\b')", R"('(unclosed')"), "my.yaml");
  ASSERT_TRUE(signal.ok()) << signal.error();
  auto bank = DetectorBank::Build(std::move(signal.value()));
  ASSERT_FALSE(bank.ok());
  EXPECT_NE(bank.error().find("my.yaml:9: bad pattern '(unclosed'"), std::string::npos)
      << bank.error();

  const std::string with_check =
      std::string(kMinimal).insert(std::string(kMinimal).find("    signals:"),
                                   "    checks:\n"
                                   "      has_sources:\n"
                                   "        factor: 0.5\n"
                                   "        patterns:\n"
                                   "          - 'fine'\n"
                                   "          - '[unclosed'\n");
  auto check = ParseCatalogue(with_check, "my.yaml");
  ASSERT_TRUE(check.ok()) << check.error();
  bank = DetectorBank::Build(std::move(check.value()));
  ASSERT_FALSE(bank.ok());
  EXPECT_NE(bank.error().find("my.yaml:13: bad pattern '[unclosed'"), std::string::npos)
      << bank.error();
}

}  // namespace
}  // namespace togmal::analysis
