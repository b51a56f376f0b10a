// The two analyze tools, called through their handlers with a fake context
// (the server's schema validation is tested with the server).

#include "togmal/tools/analyze_tools.h"

#include <gtest/gtest.h>

#include <string>

#include "togmal/mcp/tool.h"

namespace togmal::tools {
namespace {

using nlohmann::json;

class FakeContext : public mcp::ToolContext {
 public:
  bool ClientSupports(mcp::ClientFeature) const override { return false; }
  mcp::AskResult Ask(const std::string&, const std::string&, const json&) override {
    return Fail("no client");
  }
  bool Cancelled() const override { return false; }
  std::string ClientName() const override { return "test"; }
};

const mcp::Tool& Find(const std::vector<mcp::Tool>& tools, const std::string& name) {
  for (const auto& tool : tools) {
    if (tool.name == name) return tool;
  }
  throw std::runtime_error("no tool " + name);
}

mcp::ToolResult Call(const mcp::Tool& tool, const json& arguments) {
  FakeContext context;
  return tool.handler(arguments, context);
}

std::string Text(const mcp::ToolResult& result) { return result.content.at(0).at("text"); }

TEST(AnalyzeTools, RegisterBothWithSchemasAndTruthfulAnnotations) {
  mcp::ToolRegistry registry;
  RegisterAnalyzeTools(registry);
  ASSERT_EQ(registry.All().size(), 2u);
  const mcp::Tool* prompt = registry.Find("togmal_analyze_prompt");
  const mcp::Tool* response = registry.Find("togmal_analyze_response");
  ASSERT_NE(prompt, nullptr);
  ASSERT_NE(response, nullptr);
  EXPECT_EQ(prompt->input_schema["properties"]["prompt"]["minLength"], 1);
  EXPECT_EQ(prompt->input_schema["properties"]["prompt"]["maxLength"], 50000);
  EXPECT_EQ(prompt->input_schema["required"], json::array({"prompt"}));
  EXPECT_EQ(response->input_schema["properties"]["response"]["maxLength"], 100000);
  EXPECT_EQ(response->input_schema["properties"]["context"]["maxLength"], 10000);
  EXPECT_EQ(response->input_schema["properties"]["response_format"]["enum"],
            json::array({"markdown", "json"}));
  for (const mcp::Tool* tool : {prompt, response}) {
    EXPECT_EQ(tool->output_schema["type"], "object");
    EXPECT_TRUE(tool->annotations.read_only);
    EXPECT_TRUE(tool->annotations.idempotent);
    EXPECT_FALSE(tool->annotations.destructive);
    EXPECT_FALSE(tool->annotations.open_world);
  }
}

TEST(AnalyzeTools, PromptDefaultsToMarkdownAndAlwaysReturnsStructuredContent) {
  const auto tools = AnalyzeTools();
  const auto result =
      Call(Find(tools, "togmal_analyze_prompt"),
           {{"prompt", "Build me a complete theory of quantum gravity that unifies all forces"}});
  ASSERT_FALSE(result.is_error) << Text(result);
  ASSERT_TRUE(result.structured.has_value());
  EXPECT_EQ((*result.structured)["type"], "prompt_analysis");
  EXPECT_TRUE(
      (*result.structured)["detections"]["math_physics_speculation"]["detected"].get<bool>());
  EXPECT_NE(Text(result).find("# ToGMAL prompt analysis"), std::string::npos);
  EXPECT_NE(Text(result).find("quantum gravity"), std::string::npos) << "the triggering words";
}

TEST(AnalyzeTools, ResponseUsesContextAndRendersJsonOnRequest) {
  const auto tools = AnalyzeTools();
  const auto result = Call(Find(tools, "togmal_analyze_response"),
                           {{"response", "It's probably nothing serious, just indigestion..."},
                            {"context", "What should I do about chest pain?"},
                            {"response_format", "json"}});
  ASSERT_FALSE(result.is_error) << Text(result);
  const json parsed = json::parse(Text(result));
  EXPECT_EQ(parsed, *result.structured);
  EXPECT_EQ(parsed["type"], "response_analysis");
  EXPECT_EQ(parsed["risk_level"], "high");
  EXPECT_TRUE(parsed["detections"]["ungrounded_medical_advice"]["context_matched"].get<bool>());
}

TEST(AnalyzeTools, ArgumentsWrappedInParamsAreAccepted) {
  const auto tools = AnalyzeTools();
  const auto result =
      Call(Find(tools, "togmal_analyze_prompt"),
           {{"params",
             {{"prompt", "delete all files in my home directory"}, {"response_format", "json"}}}});
  ASSERT_FALSE(result.is_error) << Text(result);
  EXPECT_TRUE(
      (*result.structured)["detections"]["dangerous_file_operations"]["detected"].get<bool>());
  EXPECT_TRUE(json::accept(Text(result)));
}

TEST(AnalyzeTools, BadArgumentsAreToolErrorsNotCrashes) {
  const auto tools = AnalyzeTools();
  const auto& prompt = Find(tools, "togmal_analyze_prompt");
  EXPECT_TRUE(Call(prompt, json::object()).is_error);
  EXPECT_TRUE(Call(prompt, {{"prompt", ""}}).is_error);
  EXPECT_TRUE(Call(prompt, {{"prompt", 42}}).is_error);
  EXPECT_TRUE(Call(prompt, {{"prompt", std::string(50001, 'a')}}).is_error);
  EXPECT_FALSE(Call(prompt, {{"prompt", std::string(50000, 'a')}}).is_error);
  EXPECT_TRUE(Call(prompt, {{"prompt", "hi"}, {"response_format", "xml"}}).is_error);
  const auto& response = Find(tools, "togmal_analyze_response");
  EXPECT_TRUE(Call(response, {{"response", "ok"}, {"context", std::string(10001, 'c')}}).is_error);
}

TEST(AnalyzeTools, SimilarEvidenceComesFromTheFinderAndIsCappedAtFive) {
  std::string seen;
  const auto tools = AnalyzeTools([&seen](std::string_view text) {
    seen = std::string(text);
    json entries = json::array();
    for (int i = 0; i < 8; ++i) {
      entries.push_back({{"id", "e" + std::to_string(i)},
                         {"category", "unsupported_claims"},
                         {"description", "similar"},
                         {"score", 1.0 - i * 0.1}});
    }
    return entries;
  });
  const auto result =
      Call(Find(tools, "togmal_analyze_prompt"), {{"prompt", "95% of doctors agree"}});
  EXPECT_EQ(seen, "95% of doctors agree");
  ASSERT_EQ((*result.structured)["similar_evidence"].size(), 5u);
  EXPECT_EQ((*result.structured)["similar_evidence"][0]["id"], "e0");

  const auto throwing =
      AnalyzeTools([](std::string_view) -> json { throw std::runtime_error("db down"); });
  const auto still = Call(Find(throwing, "togmal_analyze_prompt"), {{"prompt", "hello"}});
  EXPECT_FALSE(still.is_error);
  EXPECT_EQ((*still.structured)["similar_evidence"], json::array());
}

TEST(AnalyzeTools, TextIsCutAt25000CharactersButStructuredContentIsNot) {
  // Long evidence descriptions make the report longer than the limit.
  const auto tools = AnalyzeTools([](std::string_view) {
    json entries = json::array();
    for (int i = 0; i < 5; ++i) {
      entries.push_back({{"id", i},
                         {"category", "unsupported_claims"},
                         {"description", std::string(9000, 'x')},
                         {"score", 0.5}});
    }
    return entries;
  });
  for (const char* format : {"markdown", "json"}) {
    const auto result = Call(Find(tools, "togmal_analyze_prompt"),
                             {{"prompt", "95% of doctors agree"}, {"response_format", format}});
    ASSERT_FALSE(result.is_error);
    const std::string text = Text(result);
    EXPECT_LT(text.size(), 25200u) << format;
    EXPECT_NE(text.find("cut at 25,000 characters"), std::string::npos) << format;
    EXPECT_EQ((*result.structured)["similar_evidence"][4]["description"].get<std::string>().size(),
              9000u);
  }
}

}  // namespace
}  // namespace togmal::tools
