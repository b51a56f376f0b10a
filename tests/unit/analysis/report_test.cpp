// The JSON shape of the analysis tools and the markdown report.

#include "togmal/analysis/report.h"

#include <gtest/gtest.h>

#include "table_support.h"

namespace togmal::analysis {
namespace {

using nlohmann::json;

json Analyse(const std::string& text, const std::string& type = "prompt_analysis",
             json similar = json::array()) {
  return ToJson(testing::EmbeddedBank().Analyze(text), type, std::move(similar));
}

TEST(Report, JsonHasTheContractFieldsAndEveryCategory) {
  const json result = Analyse("Run `rm -rf ~` to reset everything.");
  EXPECT_EQ(result["type"], "prompt_analysis");
  EXPECT_EQ(result["risk_level"], "critical");
  EXPECT_TRUE(result["risk_score"].is_number());
  for (const char* category :
       {"math_physics_speculation", "ungrounded_medical_advice", "dangerous_file_operations",
        "vibe_coding_overreach", "unsupported_claims"}) {
    ASSERT_TRUE(result["detections"].contains(category)) << category;
    const json& d = result["detections"][category];
    EXPECT_TRUE(d["detected"].is_boolean());
    EXPECT_TRUE(d["confidence"].is_number());
    EXPECT_TRUE(d["signals"].is_array());
    EXPECT_TRUE(d["checks"].is_object());
  }
  const json& file_ops = result["detections"]["dangerous_file_operations"];
  EXPECT_TRUE(file_ops["detected"].get<bool>());
  EXPECT_TRUE(file_ops["checks"].contains("has_safeguards"));
  const json& signal = file_ops["signals"][0];
  for (const char* key : {"name", "text", "start", "end"}) EXPECT_TRUE(signal.contains(key)) << key;
  const json& intervention = result["interventions"][0];
  for (const char* key : {"type", "reason", "suggestion", "categories"}) {
    EXPECT_TRUE(intervention.contains(key)) << key;
  }
  EXPECT_EQ(result["similar_evidence"], json::array());
}

TEST(Report, SimilarEvidenceIsPassedThroughAndMustBeAnArray) {
  const json evidence = json::array({{{"id", "abc"},
                                      {"category", "unsupported_claims"},
                                      {"description", "a stat"},
                                      {"score", 0.9}}});
  EXPECT_EQ(Analyse("hello", "prompt_analysis", evidence)["similar_evidence"], evidence);
  EXPECT_EQ(Analyse("hello", "prompt_analysis", json::object())["similar_evidence"], json::array());
}

TEST(Report, MarkdownNamesLevelCategoryTriggeringWordsAndInterventions) {
  const std::string markdown = RenderMarkdown(
      Analyse("You should definitely take 500mg of ibuprofen every 4 hours", "response_analysis"));
  EXPECT_NE(markdown.find("# ToGMAL response analysis"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("Risk level: CRITICAL"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("### ungrounded_medical_advice"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("500mg"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("**human_in_the_loop**"), std::string::npos) << markdown;
}

TEST(Report, MarkdownForACleanTextSaysNothingWasFound) {
  const std::string markdown = RenderMarkdown(Analyse("What's the capital of France?"));
  EXPECT_NE(markdown.find("Risk level: LOW"), std::string::npos);
  EXPECT_NE(markdown.find("No known failure modes detected."), std::string::npos);
}

}  // namespace
}  // namespace togmal::analysis
