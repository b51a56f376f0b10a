#include "togmal/tools/sampling.h"

#include <gtest/gtest.h>

namespace togmal::tools {
namespace {

using json = nlohmann::json;

json TextResult(const std::string& text) {
  return {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", text}}}, {"model", "m"}};
}

struct VerdictCase {
  const char* text;
  bool ok;
  rules::Permission permission;
  const char* reason;
};

class Verdicts : public ::testing::TestWithParam<VerdictCase> {};

TEST_P(Verdicts, AreReadStrictly) {
  auto verdict = ParseSamplingVerdict(TextResult(GetParam().text));
  ASSERT_EQ(verdict.ok(), GetParam().ok) << GetParam().text;
  if (!verdict.ok()) return;
  EXPECT_EQ(verdict->first, GetParam().permission);
  EXPECT_EQ(verdict->second, GetParam().reason);
}

using P = rules::Permission;
INSTANTIATE_TEST_SUITE_P(
    Cases, Verdicts,
    ::testing::Values(
        VerdictCase{"ALLOW: only reads a file", true, P::kAllow, "only reads a file"},
        VerdictCase{"DENY: deletes the home directory", true, P::kDeny,
                    "deletes the home directory"},
        VerdictCase{"  **DENY**: leaks a key\nmore text", true, P::kDeny, "leaks a key"},
        VerdictCase{"DENY - pushes to main", true, P::kDeny, "pushes to main"},
        VerdictCase{"ALLOW", false, P::kAsk, ""}, VerdictCase{"ALLOW:   ", false, P::kAsk, ""},
        VerdictCase{"ALLOWED: fine", false, P::kAsk, ""},
        VerdictCase{"allow: lower case is not a verdict", false, P::kAsk, ""},
        VerdictCase{"I think this should be allowed", false, P::kAsk, ""},
        VerdictCase{"Sure! ALLOW: x", false, P::kAsk, ""}, VerdictCase{"", false, P::kAsk, ""}));

TEST(Verdicts, NonTextOrMissingContentIsNoVerdict) {
  EXPECT_FALSE(ParseSamplingVerdict(json::object()).ok());
  EXPECT_FALSE(ParseSamplingVerdict({{"content", {{"type", "image"}, {"data", "x"}}}}).ok());
  EXPECT_FALSE(ParseSamplingVerdict(json("ALLOW: x")).ok());
  auto list = ParseSamplingVerdict(
      {{"content", json::array({{{"type", "text"}, {"text", "DENY: nope"}}})}});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->first, P::kDeny);
}

TEST(SamplingRequest, CarriesCallGuidanceAndTheDemandForAVerdict) {
  policy::ToolCall call;
  call.tool_name = "Write";
  call.tool_input = {{"file_path", "src/app.py"}, {"content", std::string(20000, 'x')}};
  call.cwd = "/p";
  rules::Decision decision;
  decision.rule_id = "review-python";
  decision.sampling_guidance = "Look for injected secrets";
  decision.level = policy::Level::kL1;
  json request = SamplingRequest(call, decision);
  std::string text = request["messages"][0]["content"]["text"];
  EXPECT_NE(text.find("Write"), std::string::npos);
  EXPECT_NE(text.find("src/app.py"), std::string::npos);
  EXPECT_NE(text.find("Look for injected secrets"), std::string::npos);
  EXPECT_NE(text.find("ALLOW: <one-sentence reason>"), std::string::npos);
  EXPECT_LT(text.size(), 12000u);  // a huge input is cut
  EXPECT_GT(request["maxTokens"].get<int>(), 0);
}

}  // namespace
}  // namespace togmal::tools
