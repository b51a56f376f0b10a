// ToolContext::Ask in both eras: legacy server→client requests, modern
// input_required results with a signed requestState.
#include <gtest/gtest.h>

#include "server_harness.h"
#include "test_registry.h"

namespace togmal::mcp::testing {
namespace {

json AskCall(json id, const std::string& method, int count = 1) {
  return Request(std::move(id), "tools/call",
                 {{"name", "ask"}, {"arguments", {{"method", method}, {"count", count}}}});
}

json ModernAskCall(json id, const std::string& method, json capabilities, int count = 1) {
  return ModernRequest(std::move(id), "tools/call",
                       {{"name", "ask"}, {"arguments", {{"method", method}, {"count", count}}}},
                       std::move(capabilities));
}

class AskTest : public ::testing::Test {
 protected:
  ToolRegistry tools_ = MakeTestTools();
  ResourceRegistry resources_ = MakeTestResources();
};

// ---- legacy ----------------------------------------------------------------

TEST_F(AskTest, LegacyAskSendsARequestKeepsServingAndMatchesTheReply) {
  ServerHarness harness(tools_, resources_);
  InitializeLegacy(harness, "2025-11-25", {{"sampling", json::object()}});
  harness.Send(AskCall("call", "sampling/createMessage"));
  json ask = harness.MessageWithMethod("sampling/createMessage");
  ASSERT_TRUE(ask["id"].is_string());
  EXPECT_EQ(ask["params"]["message"], "question 1");
  // The reader is free while the tool waits.
  EXPECT_EQ(harness.Call(Request("p", "ping"))["result"], json::object());
  EXPECT_EQ(harness.Call(Request("l", "tools/list"))["result"]["tools"].size(), 7u);
  harness.Send(
      {{"jsonrpc", "2.0"},
       {"id", ask["id"]},
       {"result", {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "42"}}}}}});
  json result = harness.ResponseTo("call")["result"];
  EXPECT_EQ(result["isError"], false) << result.dump();
  EXPECT_EQ(result["structuredContent"]["answers"][0]["content"]["text"], "42");
  EXPECT_EQ(result["structuredContent"]["client"], "legacy-test");
}

TEST_F(AskTest, LegacyClientErrorBecomesAnAskError) {
  ServerHarness harness(tools_, resources_);
  InitializeLegacy(harness, "2025-06-18", {{"elicitation", json::object()}});
  harness.Send(AskCall("call", "elicitation/create"));
  json ask = harness.MessageWithMethod("elicitation/create");
  harness.Send({{"jsonrpc", "2.0"},
                {"id", ask["id"]},
                {"error", {{"code", -1}, {"message", "User rejected"}}}});
  json result = harness.ResponseTo("call")["result"];
  EXPECT_EQ(result["isError"], true);
  EXPECT_EQ(result["content"][0]["text"],
            "ask failed: the client answered elicitation/create with error -1: User rejected");
}

TEST_F(AskTest, LegacyUnansweredAskTimesOutAndIsCancelled) {
  ServerOptions options = ServerHarness::DefaultOptions();
  options.ask_timeout = std::chrono::milliseconds(150);
  ServerHarness harness(tools_, resources_, options);
  InitializeLegacy(harness, "2025-11-25", {{"sampling", json::object()}});
  harness.Send(AskCall("call", "sampling/createMessage"));
  json ask = harness.MessageWithMethod("sampling/createMessage");
  json result = harness.ResponseTo("call")["result"];
  EXPECT_EQ(result["isError"], true);
  EXPECT_EQ(result["content"][0]["text"],
            "ask failed: sampling/createMessage request to the client timed out after 150 ms");
  json cancelled = harness.MessageWithMethod("notifications/cancelled");
  EXPECT_EQ(cancelled["params"]["requestId"], ask["id"]);
  // A late answer is ignored, not misrouted.
  harness.Send({{"jsonrpc", "2.0"}, {"id", ask["id"]}, {"result", json::object()}});
  EXPECT_EQ(harness.Call(Request("p", "ping"))["result"], json::object());
}

TEST_F(AskTest, LegacyAskWithoutTheCapabilityFails) {
  ServerHarness harness(tools_, resources_);
  InitializeLegacy(harness, "2025-11-25", {{"roots", json::object()}});
  json result = harness.Call(AskCall("call", "sampling/createMessage"))["result"];
  EXPECT_EQ(result["isError"], true);
  EXPECT_EQ(result["content"][0]["text"],
            "ask failed: the client did not declare the 'sampling' capability");
  EXPECT_EQ(harness.Dump().find("\"method\":\"sampling/createMessage\""), std::string::npos);
}

TEST_F(AskTest, LegacyAskEndsWhenInputEnds) {
  ServerHarness harness(tools_, resources_);
  InitializeLegacy(harness, "2025-11-25", {{"sampling", json::object()}});
  harness.Send(AskCall("call", "sampling/createMessage"));
  harness.MessageWithMethod("sampling/createMessage");
  EXPECT_EQ(harness.Finish(), 0);  // does not wait for the 5 s timeout
  auto responses = harness.MessagesWithId("call");
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0]["result"]["isError"], true);
}

TEST_F(AskTest, LegacyCancelledCallStopsWaiting) {
  ServerHarness harness(tools_, resources_);
  InitializeLegacy(harness, "2025-11-25", {{"sampling", json::object()}});
  harness.Send(AskCall("call", "sampling/createMessage"));
  json ask = harness.MessageWithMethod("sampling/createMessage");
  harness.Send(Notification("notifications/cancelled", {{"requestId", "call"}}));
  json cancelled = harness.MessageWithMethod("notifications/cancelled", 2000);
  EXPECT_EQ(cancelled["params"]["requestId"], ask["id"]);
  EXPECT_EQ(harness.Finish(), 0);
  EXPECT_TRUE(harness.MessagesWithId("call").empty()) << harness.Dump();
}

TEST_F(AskTest, ConcurrentLegacyAsksAreMatchedById) {
  ServerHarness harness(tools_, resources_);
  InitializeLegacy(harness, "2025-11-25", {{"sampling", json::object()}});
  harness.Send(AskCall("one", "sampling/createMessage"));
  harness.Send(AskCall("two", "sampling/createMessage"));
  // Collect both questions, answer them in reverse order.
  std::vector<json> asks;
  for (std::size_t index = 0; asks.size() < 2; ++index) {
    auto message = harness.At(index);
    ASSERT_TRUE(message);
    if (message->value("method", "") == "sampling/createMessage") asks.push_back(*message);
  }
  for (int i = 1; i >= 0; --i) {
    harness.Send({{"jsonrpc", "2.0"},
                  {"id", asks[static_cast<std::size_t>(i)]["id"]},
                  {"result", {{"answer", asks[static_cast<std::size_t>(i)]["id"]}}}});
  }
  json one = harness.ResponseTo("one")["result"]["structuredContent"]["answers"][0]["answer"];
  json two = harness.ResponseTo("two")["result"]["structuredContent"]["answers"][0]["answer"];
  EXPECT_NE(one, two);
  std::set<json> ids = {asks[0]["id"], asks[1]["id"]};
  EXPECT_EQ(ids, (std::set<json>{one, two}));
}

// ---- modern ----------------------------------------------------------------

TEST_F(AskTest, ModernAskReturnsInputRequiredAndCompletesOnRetry) {
  ServerHarness harness(tools_, resources_);
  json capabilities = {{"elicitation", {{"form", json::object()}}}};
  json first = harness.Call(ModernAskCall(1, "elicitation/create", capabilities))["result"];
  EXPECT_EQ(first["resultType"], "input_required");
  EXPECT_EQ(
      first["inputRequests"],
      json({{"q1", {{"method", "elicitation/create"}, {"params", {{"message", "question 1"}}}}}}));
  ASSERT_TRUE(first["requestState"].is_string());
  EXPECT_FALSE(first.contains("ttlMs"));
  EXPECT_EQ(first["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "togmal-test");
  for (const std::string& line : harness.Sent()) {
    EXPECT_FALSE(json::parse(line).contains("method"))
        << "modern servers send no requests: " << line;
  }

  json retry = ModernAskCall(2, "elicitation/create", capabilities);
  retry["params"]["requestState"] = first["requestState"];
  retry["params"]["inputResponses"] = {{"q1", {{"action", "accept"}, {"content", {{"ok", true}}}}}};
  json done = harness.Call(retry)["result"];
  EXPECT_EQ(done["resultType"], "complete");
  EXPECT_EQ(done["isError"], false);
  EXPECT_EQ(done["structuredContent"]["answers"],
            json::array({{{"action", "accept"}, {"content", {{"ok", true}}}}}));
  EXPECT_EQ(done["structuredContent"]["client"], "unit-test");
}

TEST_F(AskTest, ModernMultiStepAskCarriesEarlierAnswers) {
  ServerHarness harness(tools_, resources_);
  json capabilities = {{"sampling", json::object()}};
  json first = harness.Call(ModernAskCall(1, "sampling/createMessage", capabilities, 2))["result"];
  ASSERT_TRUE(first["inputRequests"].contains("q1"));

  json second_call = ModernAskCall(2, "sampling/createMessage", capabilities, 2);
  second_call["params"]["requestState"] = first["requestState"];
  second_call["params"]["inputResponses"] = {{"q1", {{"text", "a1"}}}};
  json second = harness.Call(second_call)["result"];
  EXPECT_EQ(second["resultType"], "input_required");
  ASSERT_TRUE(second["inputRequests"].contains("q2")) << second.dump();
  EXPECT_FALSE(second["inputRequests"].contains("q1"));

  // Retrying with only the new answer: the first comes from the state.
  json third_call = ModernAskCall(3, "sampling/createMessage", capabilities, 2);
  third_call["params"]["requestState"] = second["requestState"];
  third_call["params"]["inputResponses"] = {{"q2", {{"text", "a2"}}},
                                            {"q1", {{"text", "forged"}}}};  // not asked: ignored
  json third = harness.Call(third_call)["result"];
  EXPECT_EQ(third["resultType"], "complete");
  EXPECT_EQ(third["structuredContent"]["answers"],
            json::array({{{"text", "a1"}}, {{"text", "a2"}}}));
}

TEST_F(AskTest, ModernRetryWithoutTheAnswerAsksAgain) {
  ServerHarness harness(tools_, resources_);
  json capabilities = {{"sampling", json::object()}};
  json first = harness.Call(ModernAskCall(1, "sampling/createMessage", capabilities))["result"];
  json retry = ModernAskCall(2, "sampling/createMessage", capabilities);
  retry["params"]["requestState"] = first["requestState"];
  retry["params"]["inputResponses"] = json::object();
  json again = harness.Call(retry)["result"];
  EXPECT_EQ(again["resultType"], "input_required");
  EXPECT_TRUE(again["inputRequests"].contains("q1"));
}

TEST_F(AskTest, ModernAskWithoutTheCapabilityIsMissingRequiredClientCapability) {
  ServerHarness harness(tools_, resources_);
  json response = harness.Call(ModernAskCall(1, "sampling/createMessage", json::object()));
  EXPECT_EQ(response["error"]["code"], -32021);
  EXPECT_EQ(response["error"]["data"],
            json({{"requiredCapabilities", {{"sampling", json::object()}}}}));
}

TEST_F(AskTest, ModernRequestStateProblemsArePreciseErrors) {
  ServerHarness harness(tools_, resources_);
  json capabilities = {{"sampling", json::object()}};
  json first = harness.Call(ModernAskCall(1, "sampling/createMessage", capabilities))["result"];
  std::string state = first["requestState"];
  std::string tampered = state;
  tampered[tampered.size() / 3] = tampered[tampered.size() / 3] == 'a' ? 'b' : 'a';

  struct Case {
    json request;
    std::string expected;
  };
  auto retry = [&](json id, json arguments_change, json state_value, bool with_responses = true) {
    json request = ModernAskCall(std::move(id), "sampling/createMessage", capabilities);
    for (const auto& [key, value] : arguments_change.items()) {
      request["params"]["arguments"][key] = value;
    }
    if (!state_value.is_null()) request["params"]["requestState"] = state_value;
    if (with_responses) request["params"]["inputResponses"] = {{"q1", {{"text", "x"}}}};
    return request;
  };
  json other_tool = ModernRequest(
      6, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}, {"requestState", state}},
      capabilities);
  std::vector<Case> cases = {
      {retry(2, json::object(), tampered), "integrity check"},
      {retry(3, {{"count", 2}}, state), "does not match these arguments"},
      {retry(4, json::object(), nullptr), "inputResponses need the requestState"},
      {retry(5, json::object(), 17), "requestState must be a string"},
      {other_tool, "requestState was issued for tool ask, not echo"},
  };
  for (const Case& c : cases) {
    json response = harness.Call(c.request);
    EXPECT_EQ(response["error"]["code"], -32602) << response.dump();
    EXPECT_NE(response["error"]["message"].get<std::string>().find(c.expected), std::string::npos)
        << response.dump();
  }
}

TEST_F(AskTest, ModernRequestStateExpires) {
  ServerOptions options = ServerHarness::DefaultOptions();
  options.request_state_lifetime = std::chrono::milliseconds(-1);
  ServerHarness harness(tools_, resources_, options);
  json capabilities = {{"sampling", json::object()}};
  json first = harness.Call(ModernAskCall(1, "sampling/createMessage", capabilities))["result"];
  json retry = ModernAskCall(2, "sampling/createMessage", capabilities);
  retry["params"]["requestState"] = first["requestState"];
  retry["params"]["inputResponses"] = {{"q1", {{"text", "x"}}}};
  json response = harness.Call(retry);
  EXPECT_EQ(response["error"]["code"], -32602);
  EXPECT_NE(response["error"]["message"].get<std::string>().find("expired"), std::string::npos);
}

TEST_F(AskTest, ModernRequestStateFromAnotherProcessIsRejected) {
  json capabilities = {{"sampling", json::object()}};
  std::string state;
  {
    ServerHarness first(tools_, resources_);
    state = first.Call(
        ModernAskCall(1, "sampling/createMessage", capabilities))["result"]["requestState"];
  }
  ServerHarness second(tools_, resources_);
  json retry = ModernAskCall(2, "sampling/createMessage", capabilities);
  retry["params"]["requestState"] = state;
  retry["params"]["inputResponses"] = {{"q1", {{"text", "x"}}}};
  json response = second.Call(retry);
  EXPECT_EQ(response["error"]["code"], -32602);
  EXPECT_NE(response["error"]["message"].get<std::string>().find("integrity"), std::string::npos);
}

}  // namespace
}  // namespace togmal::mcp::testing
