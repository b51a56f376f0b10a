// Dispatch, errors and both protocol eras, through an in-memory transport.
#include "togmal/mcp/server.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

#include "server_harness.h"
#include "test_registry.h"

namespace togmal::mcp::testing {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  ToolRegistry tools_ = MakeTestTools();
  ResourceRegistry resources_ = MakeTestResources();
  ServerHarness harness_{tools_, resources_};

  int ErrorCode(const json& response) { return response["error"]["code"].get<int>(); }
  std::string ErrorMessage(const json& response) {
    return response["error"]["message"].get<std::string>();
  }
};

// ---- framing and JSON-RPC -------------------------------------------------

TEST_F(ServerTest, MalformedJsonIsParseErrorWithNullIdAndTheLoopGoesOn) {
  harness_.SendRaw("{\"jsonrpc\":\"2.0\",\"id\":1,");
  auto error = harness_.At(0);
  ASSERT_TRUE(error);
  EXPECT_EQ((*error)["id"], nullptr);
  EXPECT_EQ((*error)["error"]["code"], -32700);
  EXPECT_EQ(harness_.Call(Request(2, "ping"))["result"], json::object());
}

TEST_F(ServerTest, OversizeLineIsInvalidRequestAndTheLoopGoesOn) {
  harness_.SendOversize();
  auto error = harness_.At(0);
  ASSERT_TRUE(error);
  EXPECT_EQ((*error)["id"], nullptr);
  EXPECT_EQ((*error)["error"]["code"], -32600);
  EXPECT_EQ(harness_.Call(Request(2, "ping"))["result"], json::object());
}

struct InvalidCase {
  const char* name;
  const char* line;
  json expected_id;
};

class InvalidRequestTest : public ServerTest, public ::testing::WithParamInterface<InvalidCase> {};

TEST_P(InvalidRequestTest, IsAnsweredWithInvalidRequest) {
  harness_.SendRaw(GetParam().line);
  auto response = harness_.At(0);
  ASSERT_TRUE(response);
  EXPECT_EQ((*response)["error"]["code"], -32600) << response->dump();
  EXPECT_EQ((*response)["id"], GetParam().expected_id);
  EXPECT_EQ((*response)["jsonrpc"], "2.0");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, InvalidRequestTest,
    ::testing::Values(
        InvalidCase{"not_an_object", "42", nullptr}, InvalidCase{"string", "\"ping\"", nullptr},
        InvalidCase{"missing_jsonrpc", R"({"id":1,"method":"ping"})", 1},
        InvalidCase{"wrong_jsonrpc", R"({"jsonrpc":"1.0","id":"x","method":"ping"})", "x"},
        InvalidCase{"null_id", R"({"jsonrpc":"2.0","id":null,"method":"ping"})", nullptr},
        InvalidCase{"boolean_id", R"({"jsonrpc":"2.0","id":true,"method":"ping"})", nullptr},
        InvalidCase{"fractional_id", R"({"jsonrpc":"2.0","id":1.5,"method":"ping"})", nullptr},
        InvalidCase{"method_not_string", R"({"jsonrpc":"2.0","id":3,"method":7})", 3},
        InvalidCase{"no_method_no_result", R"({"jsonrpc":"2.0","id":4})", 4},
        InvalidCase{"params_array", R"({"jsonrpc":"2.0","id":5,"method":"ping","params":[1]})", 5},
        InvalidCase{"batch_outside_2025_03_26", R"([{"jsonrpc":"2.0","id":6,"method":"ping"}])",
                    nullptr}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST_F(ServerTest, NotificationsAreNeverAnswered) {
  harness_.Send(Notification("tools/list"));             // a request method, as notification
  harness_.Send(Notification("notifications/unknown"));  // unknown notification
  harness_.Send(Notification("notifications/cancelled", {{"requestId", "none"}}));
  harness_.SendRaw(R"({"jsonrpc":"2.0","method":"ping","params":[1]})");  // bad, still no id
  harness_.Send(Notification("notifications/initialized"));
  EXPECT_TRUE(harness_.Call(Request("sentinel", "ping")).contains("result"));
  EXPECT_EQ(harness_.Sent().size(), 1u) << harness_.Dump();
}

TEST_F(ServerTest, UnknownMethodIsMethodNotFoundInEveryEra) {
  EXPECT_EQ(ErrorCode(harness_.Call(Request(1, "no/such"))), -32601);
  EXPECT_EQ(ErrorCode(harness_.Call(ModernRequest(2, "no/such"))), -32601);
  InitializeLegacy(harness_, "2025-06-18");
  EXPECT_EQ(ErrorCode(harness_.Call(Request(3, "prompts/list"))), -32601);
}

TEST_F(ServerTest, ResponsesToUnknownIdsAreIgnored) {
  harness_.SendRaw(R"({"jsonrpc":"2.0","id":"togmal-99","result":{}})");
  EXPECT_TRUE(harness_.Call(Request("sentinel", "ping")).contains("result"));
  EXPECT_EQ(harness_.Sent().size(), 1u) << harness_.Dump();
}

TEST_F(ServerTest, EofEndsRunWithZeroAfterRunningCallsAnswer) {
  harness_.Send(
      ModernRequest("c", "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}));
  EXPECT_EQ(harness_.Finish(), 0);
  auto responses = harness_.MessagesWithId("c");
  ASSERT_EQ(responses.size(), 1u);
  EXPECT_EQ(responses[0]["result"]["structuredContent"]["text"], "x");
}

// ---- era selection and lifecycle ------------------------------------------

TEST_F(ServerTest, ClaimlessRequestBeforeInitializeIsRejectedAndInitializeStillWorks) {
  json early = harness_.Call(Request(1, "tools/list"));
  EXPECT_EQ(ErrorCode(early), -32602);
  EXPECT_NE(ErrorMessage(early).find("initialize"), std::string::npos);
  EXPECT_EQ(harness_.Call(Request(2, "ping"))["result"], json::object());  // ping is allowed
  json init = InitializeLegacy(harness_, "2025-06-18");
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-06-18");
  EXPECT_TRUE(harness_.Call(Request(3, "tools/list"))["result"]["tools"].is_array());
}

struct Negotiation {
  const char* requested;
  const char* answered;
};

class NegotiationTest : public ServerTest, public ::testing::WithParamInterface<Negotiation> {};

TEST_P(NegotiationTest, AnswersRequestedLegacyVersionElseNewestLegacy) {
  json response = harness_.Call(InitializeRequest(1, GetParam().requested));
  const json& result = response["result"];
  EXPECT_EQ(result["protocolVersion"], GetParam().answered);
  EXPECT_EQ(result["serverInfo"], json({{"name", "togmal-test"}, {"version", "9.9.9"}}));
  EXPECT_TRUE(result["capabilities"].contains("tools"));
  EXPECT_TRUE(result["capabilities"]["resources"]["subscribe"].get<bool>());
  EXPECT_TRUE(result["capabilities"].contains("logging"));
  EXPECT_FALSE(result.contains("resultType"));
}

INSTANTIATE_TEST_SUITE_P(Versions, NegotiationTest,
                         ::testing::Values(Negotiation{"2025-11-25", "2025-11-25"},
                                           Negotiation{"2025-06-18", "2025-06-18"},
                                           Negotiation{"2025-03-26", "2025-03-26"},
                                           Negotiation{"2024-11-05", "2024-11-05"},
                                           Negotiation{"2026-07-28", "2025-11-25"},
                                           Negotiation{"2099-01-01", "2025-11-25"}));

TEST_F(ServerTest, InitializeTwiceIsRejected) {
  InitializeLegacy(harness_, "2025-11-25");
  EXPECT_EQ(ErrorCode(harness_.Call(InitializeRequest(2, "2025-11-25"))), -32600);
}

TEST_F(ServerTest, InitializeWithoutVersionIsInvalidParams) {
  EXPECT_EQ(ErrorCode(harness_.Call(Request(1, "initialize", {{"capabilities", json::object()}}))),
            -32602);
  EXPECT_EQ(InitializeLegacy(harness_, "2025-11-25")["result"]["protocolVersion"], "2025-11-25");
}

TEST_F(ServerTest, DiscoverThenInitializeOnOneProcess) {
  json discover = harness_.Call(ModernRequest("d", "server/discover"));
  const json& result = discover["result"];
  EXPECT_EQ(result["resultType"], "complete");
  EXPECT_EQ(result["supportedVersions"], json::array({"2026-07-28"}));
  EXPECT_EQ(result["ttlMs"], 3600000);
  EXPECT_EQ(result["cacheScope"], "public");
  EXPECT_EQ(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "togmal-test");
  EXPECT_FALSE(result["capabilities"].contains("logging"));
  json init = InitializeLegacy(harness_, "2025-11-25");
  EXPECT_EQ(init["result"]["protocolVersion"], "2025-11-25");
  // and modern requests keep working next to the legacy session
  EXPECT_EQ(harness_.Call(ModernRequest("t", "tools/list"))["result"]["resultType"], "complete");
}

TEST_F(ServerTest, ModernMetaIsCheckedOnEveryRequest) {
  EXPECT_EQ(harness_.Call(ModernRequest(1, "tools/list"))["result"]["resultType"], "complete");
  // Statelessness: a good first request does not excuse a later one.
  json missing_caps =
      Request(2, "tools/list", {{"_meta", {{"io.modelcontextprotocol/protocolVersion", kModern}}}});
  json response = harness_.Call(missing_caps);
  EXPECT_EQ(ErrorCode(response), -32602);
  EXPECT_NE(ErrorMessage(response).find("clientCapabilities"), std::string::npos);

  json old_version = ModernRequest(3, "tools/list");
  old_version["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2025-06-18";
  response = harness_.Call(old_version);
  EXPECT_EQ(ErrorCode(response), -32022);
  EXPECT_EQ(response["error"]["data"],
            json({{"supported", {"2026-07-28"}}, {"requested", "2025-06-18"}}));

  json discover_future = ModernRequest(4, "server/discover");
  discover_future["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2027-01-01";
  EXPECT_EQ(ErrorCode(harness_.Call(discover_future)), -32022);

  json bad_type = ModernRequest(5, "tools/list");
  bad_type["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = 2026;
  EXPECT_EQ(ErrorCode(harness_.Call(bad_type)), -32602);

  json bad_level = ModernRequest(6, "tools/list");
  bad_level["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "verbose";
  EXPECT_EQ(ErrorCode(harness_.Call(bad_level)), -32602);
}

TEST_F(ServerTest, RemovedMethodsAreUnknownInModernEra) {
  for (const char* method :
       {"ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}) {
    EXPECT_EQ(ErrorCode(harness_.Call(ModernRequest(method, method))), -32601) << method;
  }
}

TEST_F(ServerTest, ModernOnlyMethodsAreUnknownInLegacySessions) {
  InitializeLegacy(harness_, "2025-11-25");
  EXPECT_EQ(ErrorCode(harness_.Call(
                Request(1, "subscriptions/listen", {{"notifications", json::object()}}))),
            -32601);
  EXPECT_EQ(ErrorCode(harness_.Call(Request(2, "server/discover"))), -32601);
}

TEST_F(ServerTest, ModernResultsCarryResultTypeServerInfoAndCacheHints) {
  struct Expectation {
    json request;
    bool cacheable;
  };
  std::vector<Expectation> cases = {
      {ModernRequest(1, "server/discover"), true},
      {ModernRequest(2, "tools/list"), true},
      {ModernRequest(3, "resources/list"), true},
      {ModernRequest(4, "resources/templates/list"), true},
      {ModernRequest(5, "resources/read", {{"uri", "test://a"}}), true},
      {ModernRequest(6, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}}), false},
  };
  for (const Expectation& expectation : cases) {
    json result = harness_.Call(expectation.request)["result"];
    SCOPED_TRACE(expectation.request["method"].get<std::string>());
    EXPECT_EQ(result["resultType"], "complete");
    EXPECT_EQ(result["_meta"]["io.modelcontextprotocol/serverInfo"],
              json({{"name", "togmal-test"}, {"version", "9.9.9"}}));
    EXPECT_EQ(result.contains("ttlMs"), expectation.cacheable);
    EXPECT_EQ(result.contains("cacheScope"), expectation.cacheable);
  }
}

TEST_F(ServerTest, LegacyResultsArePlain) {
  InitializeLegacy(harness_, "2025-11-25");
  for (const json& request :
       {Request(1, "tools/list"), Request(2, "resources/list"),
        Request(3, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hi"}}}})}) {
    json result = harness_.Call(request)["result"];
    EXPECT_FALSE(result.contains("resultType")) << result.dump();
    EXPECT_FALSE(result.contains("ttlMs")) << result.dump();
    EXPECT_FALSE(result.contains("_meta")) << result.dump();
  }
}

TEST_F(ServerTest, CursorsAreRejected) {
  EXPECT_EQ(ErrorCode(harness_.Call(ModernRequest(1, "tools/list", {{"cursor", "abc"}}))), -32602);
}

// ---- tools -----------------------------------------------------------------

TEST_F(ServerTest, ToolsListInRegistrationOrderWithSchemasAndAnnotations) {
  json tools = harness_.Call(ModernRequest(1, "tools/list"))["result"]["tools"];
  std::vector<std::string> names;
  for (const json& tool : tools) names.push_back(tool["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"echo", "scalar", "fails", "throws", "has_params",
                                             "wait_for_cancel", "ask"}));
  const json& echo = tools[0];
  EXPECT_EQ(echo["description"], "Echoes text.");
  EXPECT_EQ(echo["inputSchema"]["required"], json::array({"text"}));
  EXPECT_EQ(echo["outputSchema"]["type"], "object");
  EXPECT_EQ(echo["annotations"], json({{"title", "Echo"},
                                       {"readOnlyHint", true},
                                       {"destructiveHint", false},
                                       {"idempotentHint", true},
                                       {"openWorldHint", false}}));
  EXPECT_FALSE(tools[2].contains("outputSchema"));                   // none declared
  EXPECT_EQ(tools[1]["outputSchema"], json({{"type", "integer"}}));  // modern: any schema
}

TEST_F(ServerTest, LegacyOutputSchemaIsAnObjectAndAbsentBefore20250618) {
  InitializeLegacy(harness_, "2025-06-18");
  json tools = harness_.Call(Request(1, "tools/list"))["result"]["tools"];
  EXPECT_EQ(tools[1]["outputSchema"]["type"], "object");
  EXPECT_EQ(tools[1]["outputSchema"]["properties"]["result"], json({{"type", "integer"}}));

  ServerHarness old(tools_, resources_);
  InitializeLegacy(old, "2025-03-26");
  json old_tools = old.Call(Request(1, "tools/list"))["result"]["tools"];
  EXPECT_FALSE(old_tools[0].contains("outputSchema"));
  json call =
      old.Call(Request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "a"}}}}));
  EXPECT_FALSE(call["result"].contains("structuredContent"));
  EXPECT_EQ(call["result"]["content"][0]["text"], "a");
}

TEST_F(ServerTest, ToolCallReturnsContentAndStructuredContent) {
  json result = harness_.Call(ModernRequest(
      1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "hello"}}}}))["result"];
  EXPECT_EQ(result["content"], json::array({{{"type", "text"}, {"text", "hello"}}}));
  EXPECT_EQ(result["structuredContent"], json({{"text", "hello"}}));
  EXPECT_EQ(result["isError"], false);
}

TEST_F(ServerTest, StructuredContentIsAnObjectInLegacyOnly) {
  json modern = harness_.Call(ModernRequest(1, "tools/call", {{"name", "scalar"}}))["result"];
  EXPECT_EQ(modern["structuredContent"], 42);
  InitializeLegacy(harness_, "2025-11-25");
  json legacy = harness_.Call(Request(2, "tools/call", {{"name", "scalar"}}))["result"];
  EXPECT_EQ(legacy["structuredContent"], json({{"result", 42}}));
}

TEST_F(ServerTest, ArgumentsMayArriveWrappedInParams) {
  json result = harness_.Call(ModernRequest(
      1, "tools/call",
      {{"name", "echo"}, {"arguments", {{"params", {{"text", "wrapped"}}}}}}))["result"];
  EXPECT_EQ(result["structuredContent"]["text"], "wrapped");
  // ...unless the tool has a real argument called params.
  json real = harness_.Call(
      ModernRequest(2, "tools/call",
                    {{"name", "has_params"}, {"arguments", {{"params", {{"x", 1}}}}}}))["result"];
  EXPECT_EQ(real["content"][0]["text"], R"({"params":{"x":1}})");
}

TEST_F(ServerTest, ToolCallErrors) {
  struct Case {
    json params;
    std::string message;
  };
  std::vector<Case> cases = {
      {{{"name", "nope"}}, "Invalid params: unknown tool: nope"},
      {{{"arguments", json::object()}}, "Invalid params: tools/call needs name (a string)"},
      {{{"name", "echo"}, {"arguments", json::array()}},
       "Invalid params: arguments of echo must be an object"},
      {{{"name", "echo"}, {"arguments", json::object()}},
       "Invalid params: arguments of echo: arguments: missing required property \"text\""},
      {{{"name", "echo"}, {"arguments", {{"text", ""}}}},
       "Invalid params: arguments of echo: arguments.text: must be at least 1 characters long, "
       "got 0"},
      {{{"name", "echo"}, {"arguments", {{"text", "a"}, {"loud", true}}}},
       "Invalid params: arguments of echo: arguments: unexpected property \"loud\" (allowed: "
       "text)"},
  };
  int id = 0;
  for (const Case& c : cases) {
    json response = harness_.Call(ModernRequest(++id, "tools/call", c.params));
    EXPECT_EQ(ErrorCode(response), -32602) << response.dump();
    EXPECT_EQ(ErrorMessage(response), c.message);
  }
}

TEST_F(ServerTest, ToolFailuresAndExceptionsAreIsErrorResults) {
  json failed = harness_.Call(ModernRequest(1, "tools/call", {{"name", "fails"}}))["result"];
  EXPECT_EQ(failed["isError"], true);
  EXPECT_EQ(failed["content"][0]["text"], "no luck");
  json threw = harness_.Call(ModernRequest(2, "tools/call", {{"name", "throws"}}))["result"];
  EXPECT_EQ(threw["isError"], true);
  EXPECT_EQ(threw["content"][0]["text"], "tool throws failed: boom");
}

TEST_F(ServerTest, ManyConcurrentCallsAreEachAnsweredExactlyOnce) {
  constexpr int kCalls = 300;
  for (int i = 0; i < kCalls; ++i) {
    harness_.Send(ModernRequest(i, "tools/call",
                                {{"name", "echo"}, {"arguments", {{"text", std::to_string(i)}}}}));
  }
  EXPECT_EQ(harness_.Finish(), 0);
  std::map<int, int> answers;
  for (const std::string& line : harness_.Sent()) {
    json message = json::parse(line);
    ASSERT_TRUE(message.contains("result")) << line;
    int id = message["id"];
    ++answers[id];
    // Replies may come out of order, but each belongs to its request.
    EXPECT_EQ(message["result"]["structuredContent"]["text"], std::to_string(id));
  }
  ASSERT_EQ(answers.size(), static_cast<std::size_t>(kCalls));
  for (const auto& [id, count] : answers) EXPECT_EQ(count, 1) << id;
}

// ---- cancellation ------------------------------------------------------------

TEST_F(ServerTest, CancelledCallGetsNoReplyAndSeesCancelled) {
  int before = g_cancel_observed.load();
  int started = g_wait_started.load();
  harness_.Send(ModernRequest("slow", "tools/call", {{"name", "wait_for_cancel"}}));
  // Cancel a running handler (one cancelled while still queued never runs).
  for (int i = 0; i < 2500 && g_wait_started.load() == started; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(g_wait_started.load(), started + 1);
  // A second request with the same id while the first is running is invalid.
  json duplicate = harness_.Call(ModernRequest("slow", "tools/list"));
  EXPECT_EQ(ErrorCode(duplicate), -32600);
  harness_.Send(
      Notification("notifications/cancelled", {{"requestId", "slow"}, {"reason", "test"}}));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (g_cancel_observed.load() == before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(g_cancel_observed.load(), before + 1);
  EXPECT_EQ(harness_.Finish(), 0);
  EXPECT_EQ(harness_.MessagesWithId("slow").size(), 1u)
      << harness_.Dump();  // the duplicate's error
}

// ---- resources -------------------------------------------------------------

TEST_F(ServerTest, ResourcesListAndRead) {
  json list = harness_.Call(ModernRequest(1, "resources/list"))["result"]["resources"];
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0], json({{"uri", "test://a"},
                           {"name", "a"},
                           {"description", "Resource A"},
                           {"mimeType", "text/plain"}}));
  json read = harness_.Call(ModernRequest(2, "resources/read", {{"uri", "test://a"}}))["result"];
  EXPECT_EQ(read["contents"],
            json::array({{{"uri", "test://a"}, {"mimeType", "text/plain"}, {"text", "A"}}}));
  EXPECT_EQ(read["ttlMs"], 0);
  EXPECT_EQ(read["cacheScope"], "private");
  json broken = harness_.Call(ModernRequest(3, "resources/read", {{"uri", "test://broken"}}));
  EXPECT_EQ(ErrorCode(broken), -32603);
  EXPECT_NE(ErrorMessage(broken).find("disk on fire"), std::string::npos);
  EXPECT_EQ(ErrorCode(harness_.Call(ModernRequest(4, "resources/read"))), -32602);
}

TEST_F(ServerTest, ResourceNotFoundCodeDependsOnEra) {
  json modern = harness_.Call(ModernRequest(1, "resources/read", {{"uri", "test://none"}}));
  EXPECT_EQ(ErrorCode(modern), -32602);
  EXPECT_EQ(modern["error"]["data"]["uri"], "test://none");
  InitializeLegacy(harness_, "2025-11-25");
  EXPECT_EQ(ErrorCode(harness_.Call(Request(2, "resources/read", {{"uri", "test://none"}}))),
            -32002);
  EXPECT_EQ(ErrorCode(harness_.Call(Request(3, "resources/subscribe", {{"uri", "test://none"}}))),
            -32002);
}

TEST_F(ServerTest, LegacySubscribersAreNotifiedUntilTheyUnsubscribe) {
  InitializeLegacy(harness_, "2025-11-25");
  EXPECT_EQ(harness_.Call(Request(1, "resources/subscribe", {{"uri", "test://a"}}))["result"],
            json::object());
  harness_.server().NotifyResourceUpdated("test://a");
  harness_.server().NotifyResourceUpdated("test://broken");  // not subscribed
  json updated = harness_.MessageWithMethod("notifications/resources/updated");
  EXPECT_EQ(updated["params"], json({{"uri", "test://a"}}));
  EXPECT_EQ(harness_.Call(Request(2, "resources/unsubscribe", {{"uri", "test://a"}}))["result"],
            json::object());
  harness_.server().NotifyResourceUpdated("test://a");
  harness_.Call(Request("sentinel", "ping"));
  int updates = 0;
  for (const std::string& line : harness_.Sent()) {
    if (line.find("notifications/resources/updated") != std::string::npos) ++updates;
  }
  EXPECT_EQ(updates, 1) << harness_.Dump();
}

// ---- subscriptions/listen (modern) -----------------------------------------

TEST_F(ServerTest, ListenAcknowledgesNotifiesAndClosesOnCancel) {
  harness_.Send(ModernRequest("L1", "subscriptions/listen",
                              {{"notifications",
                                {{"toolsListChanged", true},
                                 {"promptsListChanged", true},
                                 {"resourceSubscriptions", {"test://a", "test://unknown"}}}}}));
  json ack = harness_.MessageWithMethod("notifications/subscriptions/acknowledged");
  EXPECT_EQ(ack["params"]["notifications"],
            json({{"toolsListChanged", true}, {"resourceSubscriptions", {"test://a"}}}));
  EXPECT_EQ(ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "L1");
  // Other requests are served while the stream is open.
  EXPECT_EQ(harness_.Call(ModernRequest(2, "tools/list"))["result"]["resultType"], "complete");
  EXPECT_TRUE(harness_.MessagesWithId("L1").empty());

  harness_.server().NotifyResourceUpdated("test://a");
  json updated = harness_.MessageWithMethod("notifications/resources/updated");
  EXPECT_EQ(updated["params"]["uri"], "test://a");
  EXPECT_EQ(updated["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "L1");

  harness_.Send(Notification("notifications/cancelled", {{"requestId", "L1"}}));
  json closing = harness_.ResponseTo("L1");
  EXPECT_EQ(closing["result"]["resultType"], "complete");
  EXPECT_EQ(closing["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "L1");
  EXPECT_EQ(closing["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "togmal-test");

  harness_.server().NotifyResourceUpdated("test://a");  // nobody listens any more
  harness_.Call(ModernRequest("sentinel", "tools/list"));
  int updates = 0;
  for (const std::string& line : harness_.Sent()) {
    if (line.find("notifications/resources/updated") != std::string::npos) ++updates;
  }
  EXPECT_EQ(updates, 1);
}

TEST_F(ServerTest, ListenStreamsAreClosedAtEof) {
  harness_.Send(ModernRequest("L", "subscriptions/listen",
                              {{"notifications", {{"toolsListChanged", true}}}}));
  harness_.MessageWithMethod("notifications/subscriptions/acknowledged");
  EXPECT_EQ(harness_.Finish(), 0);
  auto messages = harness_.MessagesWithId("L");
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0]["result"]["resultType"], "complete");
}

TEST_F(ServerTest, ListenNeedsNotifications) {
  EXPECT_EQ(ErrorCode(harness_.Call(ModernRequest(1, "subscriptions/listen"))), -32602);
}

// ---- batches (2025-03-26 only) ----------------------------------------------

TEST_F(ServerTest, BatchesIn20250326) {
  InitializeLegacy(harness_, "2025-03-26");
  harness_.SendRaw(
      json::array({Request("b1", "ping"), Notification("notifications/initialized"),
                   Request("b2", "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}),
                   json(17), Request("b3", "no/such")})
          .dump());
  auto batch_reply = harness_.At(1);  // [0] is the initialize response
  ASSERT_TRUE(batch_reply);
  ASSERT_TRUE(batch_reply->is_array()) << batch_reply->dump();
  std::map<std::string, json> by_id;
  for (const json& response : *batch_reply) by_id[response["id"].dump()] = response;
  ASSERT_EQ(batch_reply->size(), 4u) << batch_reply->dump();  // not the notification
  EXPECT_EQ(by_id["\"b1\""]["result"], json::object());
  EXPECT_EQ(by_id["\"b2\""]["result"]["content"][0]["text"], "x");
  EXPECT_EQ(by_id["null"]["error"]["code"], -32600);
  EXPECT_EQ(by_id["\"b3\""]["error"]["code"], -32601);

  harness_.SendRaw("[]");
  EXPECT_EQ((*harness_.At(2))["error"]["code"], -32600);
  // A batch of notifications only gets no reply at all.
  harness_.SendRaw(json::array({Notification("notifications/initialized")}).dump());
  harness_.Call(Request("sentinel", "ping"));
  EXPECT_EQ(harness_.Sent().size(), 4u) << harness_.Dump();
}

TEST_F(ServerTest, BatchesRejectedInOtherLegacyVersions) {
  for (const char* version : {"2025-11-25", "2025-06-18", "2024-11-05"}) {
    ServerHarness harness(tools_, resources_);
    InitializeLegacy(harness, version);
    harness.SendRaw(json::array({Request("b1", "ping")}).dump());
    auto reply = harness.At(1);
    ASSERT_TRUE(reply) << version << ": no reply to the batch; sent so far:\n" << harness.Dump();
    EXPECT_EQ((*reply)["error"]["code"], -32600) << version << "; sent so far:\n" << harness.Dump();
    EXPECT_TRUE(harness.MessagesWithId("b1").empty()) << version << "; sent so far:\n"
                                                      << harness.Dump();
  }
}

// ---- logging ---------------------------------------------------------------

TEST_F(ServerTest, LegacySetLevelForwardsServerLogs) {
  InitializeLegacy(harness_, "2025-11-25");
  harness_.Call(Request(1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}));
  EXPECT_EQ(harness_.Dump().find("notifications/message"), std::string::npos);

  EXPECT_EQ(ErrorCode(harness_.Call(Request(2, "logging/setLevel", {{"level", "loud"}}))), -32602);
  EXPECT_EQ(harness_.Call(Request(3, "logging/setLevel", {{"level", "info"}}))["result"],
            json::object());
  harness_.Call(Request(4, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}));
  json message = harness_.MessageWithMethod("notifications/message");
  EXPECT_EQ(message["params"]["level"], "info");
  EXPECT_EQ(message["params"]["logger"], "togmal-test");
  EXPECT_EQ(message["params"]["data"], "echo tool says hello");

  EXPECT_EQ(harness_.Call(Request(5, "logging/setLevel", {{"level", "error"}}))["result"],
            json::object());
  std::size_t before = harness_.Sent().size();
  harness_.Call(Request(6, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}));
  EXPECT_EQ(harness_.Sent().size(), before + 1) << harness_.Dump();  // only the response
}

// Log forwarding is one process-wide sink; a server that stops must not cut
// off the one attached after it (tests and embedders run several).
TEST_F(ServerTest, AServerStoppingLeavesAnotherServersLogForwarding) {
  auto first = std::make_unique<ServerHarness>(tools_, resources_);
  first->Call(Request("up", "ping"));  // its Run() has attached
  ServerHarness second(tools_, resources_);
  second.Call(Request("up", "ping"));  // attached after the first
  first->Finish();
  first.reset();
  InitializeLegacy(second, "2025-11-25");
  EXPECT_EQ(second.Call(Request(1, "logging/setLevel", {{"level", "info"}}))["result"],
            json::object());
  second.Call(Request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}));
  EXPECT_EQ(second.MessageWithMethod("notifications/message")["params"]["data"],
            "echo tool says hello")
      << second.Dump();
}

// A record logged while one server handles a call belongs to that call's
// client, even when another server in the process also asked for logs.
TEST_F(ServerTest, ACallsLogRecordsGoOnlyToItsOwnServer) {
  ServerHarness other(tools_, resources_);
  InitializeLegacy(harness_, "2025-11-25");
  InitializeLegacy(other, "2025-11-25");
  for (ServerHarness* harness : {&harness_, &other}) {
    EXPECT_EQ(harness->Call(Request("lvl", "logging/setLevel", {{"level", "info"}}))["result"],
              json::object());
  }
  harness_.Call(Request(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}}));
  EXPECT_EQ(harness_.MessageWithMethod("notifications/message")["params"]["data"],
            "echo tool says hello");
  other.Call(Request("sentinel", "ping"));
  EXPECT_EQ(other.Dump().find("notifications/message"), std::string::npos) << other.Dump();
}

TEST_F(ServerTest, ModernLogLevelForwardsOnlyForThatRequestBeforeItsResponse) {
  json quiet = ModernRequest(1, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}});
  harness_.Call(quiet);
  EXPECT_EQ(harness_.Dump().find("notifications/message"), std::string::npos);

  json chatty = ModernRequest(2, "tools/call", {{"name", "echo"}, {"arguments", {{"text", "x"}}}});
  chatty["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "debug";
  harness_.Call(chatty);
  std::vector<std::string> sent = harness_.Sent();
  ASSERT_EQ(sent.size(), 3u) << harness_.Dump();
  json message = json::parse(sent[1]);
  EXPECT_EQ(message["method"], "notifications/message");
  EXPECT_EQ(message["params"]["data"], "echo tool says hello");
  EXPECT_EQ(json::parse(sent[2])["id"], 2);
}

}  // namespace
}  // namespace togmal::mcp::testing
