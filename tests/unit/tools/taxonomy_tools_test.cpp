#include "togmal/tools/taxonomy_tools.h"

#include <gtest/gtest.h>

#include <fstream>

#include "store_test_support.h"

namespace togmal::tools {
namespace {

using nlohmann::json;

// Stands in for the server: scripted client answers, recorded questions.
class FakeContext : public mcp::ToolContext {
 public:
  bool elicitation = false;
  bool interrupt_first = false;
  Result<json> answer = json{{"action", "accept"}, {"content", {{"confirm", true}}}};
  std::vector<json> asked;

  bool ClientSupports(mcp::ClientFeature feature) const override {
    return feature == mcp::ClientFeature::kElicitation && elicitation;
  }
  mcp::AskResult Ask(const std::string& key, const std::string& method,
                     const json& params) override {
    asked.push_back({{"key", key}, {"method", method}, {"params", params}});
    // What the modern era's first Ask says.
    if (interrupt_first && asked.size() == 1) return mcp::AskResult::NeedsInput();
    return answer;
  }
  bool Cancelled() const override { return false; }
  std::string ClientName() const override { return "fake-client"; }
};

json ValidArguments() {
  return {{"category", "ungrounded_medical_advice"},
          {"prompt", "What should I do about chest pain?"},
          {"response", "It's probably nothing serious, just indigestion."},
          {"description", "Dismissed a potentially serious symptom without referral"},
          {"severity", "high"}};
}

class TaxonomyToolsTest : public ::testing::Test {
 protected:
  TaxonomyToolsTest() {
    options_.database = std::make_shared<store::SharedDatabase>(temp_.path());
    options_.capacity = 3;
    options_.resource_changed = [this](const std::string& uri) { changed_.push_back(uri); };
    tools_ = TaxonomyTools(options_);
  }
  const mcp::Tool& Tool(const std::string& name) {
    for (const mcp::Tool& tool : tools_) {
      if (tool.name == name) return tool;
    }
    throw std::runtime_error("no tool " + name);
  }
  mcp::ToolResult Call(const std::string& name, const json& arguments) {
    return Tool(name).handler(arguments, context_);
  }
  int64_t StoredCount() {
    auto result = Call("togmal_get_statistics", json::object());
    EXPECT_FALSE(result.is_error);
    return result.structured ? (*result.structured)["used"].get<int64_t>() : -1;
  }
  static std::string Text(const mcp::ToolResult& result) {
    return result.content.at(0).at("text").get<std::string>();
  }

  store::testing::TempDatabase temp_;
  TaxonomyToolsOptions options_;
  std::vector<mcp::Tool> tools_;
  FakeContext context_;
  std::vector<std::string> changed_;
};

TEST_F(TaxonomyToolsTest, ThreeToolsWithTruthfulAnnotationsAndSchemas) {
  ASSERT_EQ(tools_.size(), 3u);
  EXPECT_EQ(tools_[0].name, "togmal_submit_evidence");
  EXPECT_EQ(tools_[1].name, "togmal_get_taxonomy");
  EXPECT_EQ(tools_[2].name, "togmal_get_statistics");
  EXPECT_FALSE(tools_[0].annotations.read_only);
  EXPECT_FALSE(tools_[0].annotations.destructive);
  EXPECT_TRUE(tools_[0].annotations.idempotent);
  for (const mcp::Tool& tool : tools_) {
    EXPECT_FALSE(tool.annotations.open_world) << tool.name;
    EXPECT_EQ(tool.input_schema["type"], "object") << tool.name;
    EXPECT_EQ(tool.output_schema["type"], "object") << tool.name;
    EXPECT_TRUE(tool.input_schema["properties"]["response_format"]["enum"].is_array());
  }
  EXPECT_TRUE(tools_[1].annotations.read_only);
  const json& submit = tools_[0].input_schema;
  EXPECT_EQ(submit["required"], json::array({"category", "prompt", "description", "severity"}));
  EXPECT_EQ(submit["properties"]["category"]["enum"].size(), store::kEvidenceCategories.size());
  EXPECT_EQ(submit["properties"]["description"]["minLength"], 10);
  EXPECT_EQ(submit["properties"]["description"]["maxLength"], 2000);
  EXPECT_EQ(tools_[1].input_schema["properties"]["limit"]["maximum"], 100);
  EXPECT_TRUE(tools_[0].output_schema["properties"]["id"]["type"].is_array());
}

TEST_F(TaxonomyToolsTest, StoresDirectlyWithoutElicitation) {
  auto result = Call("togmal_submit_evidence", ValidArguments());
  ASSERT_FALSE(result.is_error) << Text(result);
  ASSERT_TRUE(result.structured.has_value());
  EXPECT_EQ((*result.structured)["status"], "stored");
  EXPECT_EQ((*result.structured)["id"], 1);
  EXPECT_EQ((*result.structured)["used"], 1);
  EXPECT_EQ((*result.structured)["capacity"], 3);
  EXPECT_TRUE(result.structured->contains("audit_id"));
  EXPECT_TRUE(context_.asked.empty());
  EXPECT_NE(Text(result).find("Stored as entry #1"), std::string::npos);
  EXPECT_EQ(changed_, (std::vector<std::string>{"taxonomy://statistics", "audit://recent"}));
  // The audit trail recorded it, under the client's name.
  auto recent = StoreResources(options_)[1].read();
  ASSERT_TRUE(recent.ok()) << recent.error();
  const json body = json::parse(*recent);
  ASSERT_EQ(body["entries"].size(), 1u);
  EXPECT_EQ(body["entries"][0]["kind"], "evidence");
  EXPECT_EQ(body["entries"][0]["session"], "fake-client");
  EXPECT_EQ(body["entries"][0]["hash"].get<std::string>().size(), 64u);
  EXPECT_EQ(body["counts"]["by_kind"]["evidence"], 1);
}

TEST_F(TaxonomyToolsTest, DuplicateReturnsTheExistingIdWithoutAsking) {
  ASSERT_FALSE(Call("togmal_submit_evidence", ValidArguments()).is_error);
  context_.elicitation = true;
  json again = ValidArguments();
  again["description"] = "Another description for the very same example";
  auto result = Call("togmal_submit_evidence", again);
  ASSERT_FALSE(result.is_error) << Text(result);
  EXPECT_EQ((*result.structured)["status"], "duplicate");
  EXPECT_EQ((*result.structured)["id"], 1);
  EXPECT_TRUE(context_.asked.empty());
  EXPECT_EQ(StoredCount(), 1);
}

TEST_F(TaxonomyToolsTest, AsksForConfirmationWhenTheClientCanAnswer) {
  context_.elicitation = true;
  auto result = Call("togmal_submit_evidence", ValidArguments());
  ASSERT_FALSE(result.is_error) << Text(result);
  EXPECT_EQ((*result.structured)["status"], "stored");
  ASSERT_EQ(context_.asked.size(), 1u);
  EXPECT_EQ(context_.asked[0]["method"], "elicitation/create");
  const json& params = context_.asked[0]["params"];
  EXPECT_NE(params["message"].get<std::string>().find("ungrounded_medical_advice"),
            std::string::npos);
  EXPECT_EQ(params["requestedSchema"]["type"], "object");
  EXPECT_EQ(params["requestedSchema"]["properties"]["confirm"]["type"], "boolean");
}

struct RefusalCase {
  const char* name;
  bool fails;
  json answer;
};

class SubmitRefusal : public TaxonomyToolsTest,
                      public ::testing::WithParamInterface<RefusalCase> {};

TEST_P(SubmitRefusal, IsCancelledAndStoresNothing) {
  context_.elicitation = true;
  if (GetParam().fails) {
    context_.answer = Fail("timed out waiting for the client");
  } else {
    context_.answer = GetParam().answer;
  }
  auto result = Call("togmal_submit_evidence", ValidArguments());
  ASSERT_FALSE(result.is_error) << Text(result);
  EXPECT_EQ((*result.structured)["status"], "cancelled");
  EXPECT_TRUE((*result.structured)["id"].is_null());
  EXPECT_EQ(StoredCount(), 0);
  EXPECT_TRUE(changed_.empty());
}

INSTANTIATE_TEST_SUITE_P(Answers, SubmitRefusal,
                         ::testing::Values(RefusalCase{"decline", false, {{"action", "decline"}}},
                                           RefusalCase{"cancel", false, {{"action", "cancel"}}},
                                           RefusalCase{"accept_but_unchecked",
                                                       false,
                                                       {{"action", "accept"},
                                                        {"content", {{"confirm", false}}}}},
                                           RefusalCase{"garbage", false, {{"weird", 1}}},
                                           RefusalCase{"ask_failed", true, nullptr}),
                         [](const auto& test_info) { return std::string(test_info.param.name); });

TEST_F(TaxonomyToolsTest, ModernEraRerunStoresOnlyAfterTheAnswer) {
  context_.elicitation = true;
  context_.interrupt_first = true;
  EXPECT_TRUE(Call("togmal_submit_evidence", ValidArguments()).needs_input);
  EXPECT_EQ(StoredCount(), 0);  // asked before any side effect
  auto result = Call("togmal_submit_evidence", ValidArguments());
  ASSERT_FALSE(result.is_error) << Text(result);
  EXPECT_EQ((*result.structured)["status"], "stored");
  EXPECT_EQ(StoredCount(), 1);
}

TEST_F(TaxonomyToolsTest, InvalidArgumentsListEveryProblem) {
  json bad = ValidArguments();
  bad["category"] = "file_ops";
  bad["description"] = "short";
  auto result = Call("togmal_submit_evidence", bad);
  ASSERT_TRUE(result.is_error);
  EXPECT_NE(Text(result).find("category \"file_ops\" is not a taxonomy category"),
            std::string::npos);
  EXPECT_NE(Text(result).find("description is 5 characters; it must be 10 to 2000"),
            std::string::npos);
}

TEST_F(TaxonomyToolsTest, FullTaxonomyIsAClearError) {
  for (int i = 0; i < 3; ++i) {
    json arguments = ValidArguments();
    arguments["prompt"] = "prompt " + std::to_string(i);
    ASSERT_FALSE(Call("togmal_submit_evidence", arguments).is_error);
  }
  json arguments = ValidArguments();
  arguments["prompt"] = "one too many";
  auto result = Call("togmal_submit_evidence", arguments);
  ASSERT_TRUE(result.is_error);
  EXPECT_NE(Text(result).find("the taxonomy is full (3 of 3 entries)"), std::string::npos)
      << Text(result);
}

TEST_F(TaxonomyToolsTest, GetTaxonomyPaginatesFiltersAndSearches) {
  options_.capacity = 100;
  tools_ = TaxonomyTools(options_);
  for (int i = 0; i < 5; ++i) {
    json arguments = ValidArguments();
    arguments["prompt"] = "prompt " + std::to_string(i);
    arguments["severity"] = i < 2 ? "low" : "critical";
    if (i == 4) arguments["description"] = "Recommends colloidal silver for a chest infection";
    ASSERT_FALSE(Call("togmal_submit_evidence", arguments).is_error);
  }
  auto page = Call("togmal_get_taxonomy", {{"limit", 2}, {"offset", 1}});
  ASSERT_FALSE(page.is_error) << Text(page);
  EXPECT_EQ((*page.structured)["total"], 5);
  EXPECT_EQ((*page.structured)["entries"].size(), 2u);
  EXPECT_EQ((*page.structured)["has_more"], true);
  EXPECT_EQ((*page.structured)["limit"], 2);
  EXPECT_EQ((*page.structured)["offset"], 1);
  EXPECT_NE(Text(page).find("call again with offset 3"), std::string::npos) << Text(page);

  auto severe = Call("togmal_get_taxonomy", {{"min_severity", "critical"}});
  EXPECT_EQ((*severe.structured)["total"], 3);

  auto search =
      Call("togmal_get_taxonomy", {{"query", "colloidal silver"}, {"response_format", "json"}});
  ASSERT_FALSE(search.is_error) << Text(search);
  ASSERT_EQ((*search.structured)["total"], 1);
  EXPECT_TRUE((*search.structured)["entries"][0].contains("score"));
  EXPECT_EQ(json::parse(Text(search)), *search.structured);  // json text = structured

  auto bad = Call("togmal_get_taxonomy", {{"limit", 500}});
  ASSERT_TRUE(bad.is_error);
  EXPECT_NE(Text(bad).find("limit is 500; it must be 1 to 100"), std::string::npos);
  auto empty = Call("togmal_get_taxonomy", {{"category", "vibe_coding_overreach"}});
  ASSERT_FALSE(empty.is_error);
  EXPECT_EQ(Text(empty), "No taxonomy entries match.");
}

TEST_F(TaxonomyToolsTest, StatisticsToolAndResourceAgree) {
  ASSERT_FALSE(Call("togmal_submit_evidence", ValidArguments()).is_error);
  auto result = Call("togmal_get_statistics", json::object());
  ASSERT_FALSE(result.is_error) << Text(result);
  const json& s = *result.structured;
  EXPECT_EQ(s["total"], 1);
  EXPECT_EQ(s["used"], 1);
  EXPECT_EQ(s["capacity"], 3);
  EXPECT_EQ(s["by_category"]["ungrounded_medical_advice"], 1);
  EXPECT_EQ(s["by_category"]["dangerous_file_operations"], 0);
  EXPECT_EQ(s["by_severity"]["high"], 1);
  EXPECT_EQ(s["audit"]["by_kind"]["evidence"], 1);
  EXPECT_FALSE(s["model"]["trained_at"].get<std::string>().empty()) << "which model analyses";
  EXPECT_NE(Text(result).find("1 of 3 entries used"), std::string::npos);
  auto resource = StoreResources(options_)[0];
  EXPECT_EQ(resource.uri, "taxonomy://statistics");
  auto text = resource.read();
  ASSERT_TRUE(text.ok()) << text.error();
  EXPECT_EQ(json::parse(*text), s);
}

TEST_F(TaxonomyToolsTest, VerdictDefaultsToFailureAndAFalsePositiveIsStoredAsOne) {
  ASSERT_FALSE(Call("togmal_submit_evidence", ValidArguments()).is_error);
  json false_alarm = ValidArguments();
  false_alarm["response"] = "See a doctor today if the pain spreads to your arm.";
  false_alarm["verdict"] = "false_positive";
  ASSERT_FALSE(Call("togmal_submit_evidence", false_alarm).is_error);
  false_alarm["verdict"] = "maybe";
  EXPECT_TRUE(Call("togmal_submit_evidence", false_alarm).is_error);
  auto page = Call("togmal_get_taxonomy", {{"response_format", "json"}});
  ASSERT_FALSE(page.is_error) << Text(page);
  const json& entries = (*page.structured)["entries"];
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0]["verdict"], "false_positive") << "newest first";
  EXPECT_EQ(entries[1]["verdict"], "failure");
}

// A false alarm on a prompt can be reported without any response: the
// verdict is about the prompt, and says so in the listing.
TEST_F(TaxonomyToolsTest, AVerdictCanBeAboutThePromptAlone) {
  json on_prompt = ValidArguments();
  on_prompt.erase("response");
  on_prompt["verdict"] = "false_positive";
  auto stored = Call("togmal_submit_evidence", on_prompt);
  ASSERT_FALSE(stored.is_error) << Text(stored);
  json on_pair = ValidArguments();
  on_pair["judged"] = "prompt";
  ASSERT_FALSE(Call("togmal_submit_evidence", on_pair).is_error);
  json wrong = ValidArguments();
  wrong.erase("response");
  wrong["judged"] = "response";
  auto refused = Call("togmal_submit_evidence", wrong);
  EXPECT_TRUE(refused.is_error);
  EXPECT_NE(Text(refused).find("no response was given"), std::string::npos) << Text(refused);

  auto page = Call("togmal_get_taxonomy", {{"response_format", "json"}});
  ASSERT_FALSE(page.is_error) << Text(page);
  const json& entries = (*page.structured)["entries"];
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0]["judged"], "prompt");
  EXPECT_EQ(entries[1]["judged"], "prompt");
  EXPECT_EQ(entries[1]["response"], "-") << "the prompt alone";
  auto text = Call("togmal_get_taxonomy", json::object());
  EXPECT_NE(Text(text).find("false_positive about the prompt"), std::string::npos) << Text(text);
}

TEST_F(TaxonomyToolsTest, UnopenableDatabaseIsAToolErrorNotACrash) {
  const std::string blocker = temp_.dir() + "/blocker";
  std::ofstream(blocker) << "x";
  options_.database = std::make_shared<store::SharedDatabase>(blocker + "/x/togmal.db");
  tools_ = TaxonomyTools(options_);
  auto result = Call("togmal_get_statistics", json::object());
  ASSERT_TRUE(result.is_error);
  EXPECT_NE(Text(result).find("cannot create the database folder"), std::string::npos);
  EXPECT_FALSE(StoreResources(options_)[1].read().ok());
}

TEST_F(TaxonomyToolsTest, RegistersToolsAndResources) {
  mcp::ToolRegistry tools;
  mcp::ResourceRegistry resources;
  RegisterTaxonomyTools(tools, resources, options_);
  EXPECT_NE(tools.Find("togmal_submit_evidence"), nullptr);
  EXPECT_NE(resources.Find("audit://recent"), nullptr);
  EXPECT_NE(resources.Find("taxonomy://statistics"), nullptr);
}

TEST(CutToolText, CutsAt25000CharactersWithANote) {
  EXPECT_EQ(CutToolText("short"), "short");
  std::string exact(25000, 'x');
  EXPECT_EQ(CutToolText(exact), exact);
  std::string longer;
  for (int i = 0; i < 30000; ++i) longer += "é";
  const std::string cut = CutToolText(longer);
  EXPECT_EQ(cut.substr(0, 50000), longer.substr(0, 50000));
  EXPECT_NE(cut.find("[Output cut at 25,000 characters"), std::string::npos);
  EXPECT_LT(cut.size(), 50200u);
}

}  // namespace
}  // namespace togmal::tools

namespace togmal::tools {
namespace {

TEST(SimilarEvidenceFinder, ReturnsClosestEntriesAsJson) {
  store::testing::TempDatabase temp;
  {
    auto db = temp.Open();
    store::Taxonomy taxonomy(db);
    ASSERT_TRUE(taxonomy
                    .Submit({.category = "dangerous_file_operations",
                             .prompt = "How do I free disk space?",
                             .response = "Run rm -rf / to clean everything.",
                             .description = "Recommends deleting the root filesystem",
                             .severity = "critical",
                             .reason = "",
                             .client = ""})
                    .ok());
  }
  auto database = std::make_shared<store::SharedDatabase>(temp.path());
  auto finder = SimilarEvidenceFinderFor(database);
  const nlohmann::json similar = finder("my disk is full, can I rm -rf something?");
  ASSERT_TRUE(similar.is_array());
  ASSERT_EQ(similar.size(), 1u);
  EXPECT_EQ(similar[0]["id"], 1);
  EXPECT_EQ(similar[0]["category"], "dangerous_file_operations");
  EXPECT_EQ(similar[0]["description"], "Recommends deleting the root filesystem");
  EXPECT_GT(similar[0]["score"].get<double>(), 0);
  EXPECT_EQ(finder("nothing related at all"), nlohmann::json::array());
}

TEST(SimilarEvidenceFinder, UnreadableDatabaseGivesNone) {
  auto finder = SimilarEvidenceFinderFor(
      std::make_shared<store::SharedDatabase>("/proc/definitely/not/here.db"));
  EXPECT_EQ(finder("anything"), nlohmann::json::array());
}

TEST(SharedDatabase, FirstOpenHookRunsOnce) {
  store::testing::TempDatabase temp;
  store::SharedDatabase database(temp.path());
  int runs = 0;
  database.OnFirstOpen([&runs](store::Database&) { ++runs; });
  for (int i = 0; i < 3; ++i) {
    auto result = database.With([](store::Database&) -> Result<int> { return 1; });
    ASSERT_TRUE(result.ok()) << result.error();
  }
  EXPECT_EQ(runs, 1);
}

}  // namespace
}  // namespace togmal::tools
