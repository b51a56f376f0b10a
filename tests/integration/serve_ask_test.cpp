// Scripted clients of both eras driving togmal_test_ask through the binary.
#include <gtest/gtest.h>

#include "serve_client.h"

namespace togmal::testing {
namespace {

TEST(ServeAskTest, LegacySamplingRequestAnsweredWhileOtherRequestsAreServed) {
  ServeClient client;
  client.Initialize("2025-11-25", {{"sampling", json::object()}});
  client.Send(ToolCall(1, "togmal_test_ask", {{"kind", "sampling"}, {"question", "Safe?"}}));
  json ask = client.UntilMethod("sampling/createMessage");
  EXPECT_EQ(ask["params"]["messages"][0]["content"]["text"], "Safe?");
  EXPECT_EQ(client.Call({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "ping"}})["result"],
            json::object());
  client.Send({{"jsonrpc", "2.0"},
               {"id", ask["id"]},
               {"result",
                {{"role", "assistant"},
                 {"model", "m"},
                 {"content", {{"type", "text"}, {"text", "yes"}}}}}});
  json result = client.ResponseTo(1)["result"];
  EXPECT_EQ(result["isError"], false) << result.dump();
  EXPECT_EQ(result["structuredContent"]["answers"][0]["content"]["text"], "yes");
  client.child().CloseStdin();
  EXPECT_EQ(client.child().Wait(), 0);
}

TEST(ServeAskTest, LegacyElicitationErrorReplyIsAToolError) {
  ServeClient client;
  client.Initialize("2025-06-18", {{"elicitation", json::object()}});
  client.Send(ToolCall(1, "togmal_test_ask", {{"kind", "elicitation"}}));
  json ask = client.UntilMethod("elicitation/create");
  EXPECT_EQ(ask["params"]["requestedSchema"]["type"], "object");
  client.Send(
      {{"jsonrpc", "2.0"}, {"id", ask["id"]}, {"error", {{"code", -32600}, {"message", "no UI"}}}});
  json result = client.ResponseTo(1)["result"];
  EXPECT_EQ(result["isError"], true);
  EXPECT_NE(result["content"][0]["text"].get<std::string>().find("error -32600: no UI"),
            std::string::npos)
      << result.dump();
}

TEST(ServeAskTest, LegacyUnansweredRequestTimesOutPerServeOption) {
  ServeClient client({"--ask-timeout-ms", "300"});
  client.Initialize("2025-11-25", {{"sampling", json::object()}});
  auto start = std::chrono::steady_clock::now();
  client.Send(ToolCall(1, "togmal_test_ask", {{"kind", "sampling"}}));
  json ask = client.UntilMethod("sampling/createMessage");
  json result = client.ResponseTo(1)["result"];
  auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, std::chrono::milliseconds(250));
  EXPECT_LT(waited, std::chrono::seconds(20));  // the default is 30 s
  EXPECT_EQ(result["isError"], true);
  EXPECT_NE(result["content"][0]["text"].get<std::string>().find("timed out after 300 ms"),
            std::string::npos)
      << result.dump();
  bool cancelled = false;
  for (const json& message : client.seen()) {
    if (message.value("method", "") == "notifications/cancelled" &&
        message["params"]["requestId"] == ask["id"]) {
      cancelled = true;
    }
  }
  EXPECT_TRUE(cancelled) << "the server withdraws its timed-out request";
}

TEST(ServeAskTest, LegacyClientWithoutCapabilityGetsAToolError) {
  ServeClient client;
  client.Initialize("2025-11-25");
  json result = client.Call(ToolCall(1, "togmal_test_ask", {{"kind", "elicitation"}}))["result"];
  EXPECT_EQ(result["isError"], true);
  EXPECT_NE(
      result["content"][0]["text"].get<std::string>().find("did not declare the 'elicitation'"),
      std::string::npos);
}

TEST(ServeAskTest, ModernInputRequiredThenRetryCompletes) {
  ServeClient client;
  json capabilities = {{"elicitation", {{"form", json::object()}}}};
  json arguments = {{"kind", "elicitation"}, {"question", "Deploy?"}, {"count", 2}};
  json first = client.Call(ToolCall("a", "togmal_test_ask", arguments, ModernMeta(capabilities)));
  ASSERT_EQ(first["result"]["resultType"], "input_required") << first.dump();
  EXPECT_EQ(first["result"]["inputRequests"]["answer1"]["method"], "elicitation/create");
  EXPECT_EQ(first["result"]["inputRequests"]["answer1"]["params"]["message"], "Deploy? (1)");

  json second_request = ToolCall("b", "togmal_test_ask", arguments, ModernMeta(capabilities));
  second_request["params"]["requestState"] = first["result"]["requestState"];
  second_request["params"]["inputResponses"] = {
      {"answer1", {{"action", "accept"}, {"content", {{"answer", "one"}}}}}};
  json second = client.Call(second_request);
  ASSERT_EQ(second["result"]["resultType"], "input_required") << second.dump();
  ASSERT_TRUE(second["result"]["inputRequests"].contains("answer2"));

  json third_request = ToolCall("c", "togmal_test_ask", arguments, ModernMeta(capabilities));
  third_request["params"]["requestState"] = second["result"]["requestState"];
  third_request["params"]["inputResponses"] = {{"answer2", {{"action", "decline"}}}};
  json third = client.Call(third_request)["result"];
  EXPECT_EQ(third["resultType"], "complete");
  EXPECT_EQ(third["structuredContent"]["answers"],
            json::array({{{"action", "accept"}, {"content", {{"answer", "one"}}}},
                         {{"action", "decline"}}}));

  // The same state against different arguments is refused.
  json wrong =
      ToolCall("d", "togmal_test_ask", {{"kind", "elicitation"}}, ModernMeta(capabilities));
  wrong["params"]["requestState"] = first["result"]["requestState"];
  wrong["params"]["inputResponses"] = {{"answer1", {{"action", "accept"}}}};
  json refused = client.Call(wrong);
  EXPECT_EQ(refused["error"]["code"], -32602);
  // A modern server never sends requests.
  for (const json& message : client.seen()) {
    EXPECT_FALSE(message.contains("method") && message.contains("id")) << message.dump();
  }
}

TEST(ServeAskTest, ModernStateFromAnotherProcessFailsIntegrity) {
  json capabilities = {{"sampling", json::object()}};
  json arguments = {{"kind", "sampling"}};
  std::string state;
  {
    ServeClient first;
    state = first.Call(ToolCall(1, "togmal_test_ask", arguments,
                                ModernMeta(capabilities)))["result"]["requestState"];
  }
  ServeClient second;
  json retry = ToolCall(2, "togmal_test_ask", arguments, ModernMeta(capabilities));
  retry["params"]["requestState"] = state;
  retry["params"]["inputResponses"] = {{"answer1", {{"role", "assistant"}}}};
  json refused = second.Call(retry);
  EXPECT_EQ(refused["error"]["code"], -32602);
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("integrity"), std::string::npos);
}

TEST(ServeAskTest, ModernAskWithoutCapabilityIsMinus32021) {
  ServeClient client;
  json response = client.Call(ToolCall(1, "togmal_test_ask", {{"kind", "sampling"}}, ModernMeta()));
  EXPECT_EQ(response["error"]["code"], -32021);
  EXPECT_EQ(response["error"]["data"]["requiredCapabilities"],
            json({{"sampling", json::object()}}));
}

}  // namespace
}  // namespace togmal::testing
