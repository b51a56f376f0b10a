// The admission bound with workers that wait for the client (legacy Ask):
// the reader keeps reading so their answers can arrive, and past the hard
// bound new requests are refused instead of queued.
#include <gtest/gtest.h>

#include "server_harness.h"
#include "test_registry.h"

namespace togmal::mcp::testing {
namespace {

json AskCall(json id) {
  return Request(std::move(id), "tools/call",
                 {{"name", "ask"}, {"arguments", {{"method", "elicitation/create"}}}});
}

json Answer(const json& id) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"action", "accept"}}}};
}

/// Ids of the elicitation requests the server sent so far.
std::vector<json> AskIds(ServerHarness& harness) {
  std::vector<json> ids;
  for (const std::string& line : harness.Sent()) {
    json message = json::parse(line);
    if (message.value("method", "") == "elicitation/create") ids.push_back(message["id"]);
  }
  return ids;
}

bool WaitForAsks(ServerHarness& harness, std::size_t count) {
  for (int tries = 0; tries < 10'000; ++tries) {
    if (AskIds(harness).size() >= count) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

TEST(BackpressureTest, WorkersWaitingForTheClientDoNotStopTheReaderButTheHardBoundRefuses) {
  ToolRegistry tools = MakeTestTools();
  ResourceRegistry resources = MakeTestResources();
  ServerOptions options = ServerHarness::DefaultOptions();
  options.max_waiting_requests = 1;  // hard bound: 4
  options.workers = 4;
  ServerHarness harness(tools, resources, options);
  InitializeLegacy(harness, "2025-11-25", {{"elicitation", json::object()}});
  for (int i = 0; i < 4; ++i) {
    harness.Send(AskCall(i));
    // Each call holds a worker waiting for the client; the next line is read.
    ASSERT_TRUE(WaitForAsks(harness, static_cast<std::size_t>(i) + 1)) << harness.Dump();
  }
  std::vector<json> asks = AskIds(harness);
  // Four requests held: the fifth is refused, and cheap methods still work.
  json refused = harness.Call(AskCall("fifth"));
  EXPECT_EQ(refused["error"]["code"], -32603) << refused.dump();
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("overloaded"), std::string::npos);
  EXPECT_EQ(harness.Call(Request("p", "ping"))["result"], json::object());
  for (const json& id : asks) harness.Send(Answer(id));
  for (int i = 0; i < 4; ++i) {
    json result = harness.ResponseTo(i)["result"];
    EXPECT_EQ(result["isError"], false) << result.dump();
  }
  // Room again once they finished.
  harness.Send(AskCall("sixth"));
  EXPECT_TRUE(WaitForAsks(harness, 5)) << harness.Dump();
}

TEST(BackpressureTest, OpenListenStreamsAreBoundedToo) {
  ToolRegistry tools = MakeTestTools();
  ResourceRegistry resources = MakeTestResources();
  ServerOptions options = ServerHarness::DefaultOptions();
  options.max_waiting_requests = 2;
  ServerHarness harness(tools, resources, options);
  auto listen = [](const std::string& id) {
    return ModernRequest(id, "subscriptions/listen",
                         {{"notifications", {{"toolsListChanged", true}}}});
  };
  harness.Send(listen("L1"));
  harness.Send(listen("L2"));
  json refused = harness.Call(listen("L3"));
  EXPECT_EQ(refused["error"]["code"], -32603) << refused.dump();
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("overloaded"), std::string::npos);
  harness.Send(Notification("notifications/cancelled", {{"requestId", "L1"}}));
  EXPECT_EQ(harness.ResponseTo("L1")["result"]["resultType"], "complete");
  harness.Send(listen("L4"));
  harness.Send(Notification("notifications/cancelled", {{"requestId", "L4"}}));
  EXPECT_EQ(harness.ResponseTo("L4")["result"]["resultType"], "complete");
}

}  // namespace
}  // namespace togmal::mcp::testing
