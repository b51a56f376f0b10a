// `togmal serve` against hostile input over a real pipe: every class of bad
// line gets its JSON-RPC error and the next ordinary request is still
// answered; a client that floods requests and stops reading cannot make the
// process's memory grow without bound.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>

#include "build_tree.h"
#include "serve_client.h"

namespace togmal::testing {
namespace {

using namespace std::string_literals;

std::string Nested(std::size_t depth, const std::string& inner = "1") {
  return std::string(depth, '[') + inner + std::string(depth, ']');
}

std::string EchoCallWithRawText(const std::string& raw_value) {
  // `raw_value` is spliced in unescaped: it is the hostile part.
  return R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"togmal_test_echo",)"
         R"("arguments":{"text":"x","extra":)" +
         raw_value + "}}}";
}

struct HostileCase {
  const char* name;
  std::string line;
  int code;
  const char* message_part;  ///< what the error message must say about why
};

std::vector<HostileCase> HostileCases() {
  return {
      {"nested 20,000 deep in arguments", EchoCallWithRawText(Nested(20'000)), -32700, "deep"},
      {"nested 200,000 deep at the top", Nested(200'000), -32700, "deep"},
      {"objects nested 100,000 deep", std::string(100'000, '{') + std::string(100'000, '}'), -32700,
       "deep"},
      {"an id that overflows a double", R"({"jsonrpc":"2.0","id":1e400,"method":"ping"})", -32700,
       "overflow"},
      {"a number that overflows a double in arguments", EchoCallWithRawText("-1e400"), -32700,
       "overflow"},
      {"invalid UTF-8 in a string", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xc3\x28\"}",
       -32700, "UTF-8"},
      {"a lone surrogate escape", R"({"jsonrpc":"2.0","id":1,"method":"\ud800"})", -32700,
       "surrogate"},
      {"a truncated message", R"({"jsonrpc":"2.0","id":1,"method":)", -32700, "Parse error"},
      {"a NUL byte", "{\"jsonrpc\":\"2.0\",\0\"id\":1}"s, -32700, "Parse error"},
      {"valid JSON that is not an object", "12345", -32600, "JSON object"},
      {"an id that is too large for an integer",
       R"({"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"})", -32600,
       "id must be"},
      {"params that are not an object", R"({"jsonrpc":"2.0","id":3,"method":"ping","params":[]})",
       -32600, "params"},
  };
}

TEST(ServeHostileTest, EveryHostileLineGetsItsErrorAndServingGoesOn) {
  ServeClient client;
  client.Initialize("2025-11-25");
  int next_ping = 0;
  for (const HostileCase& hostile : HostileCases()) {
    SCOPED_TRACE(hostile.name);
    ASSERT_TRUE(client.child().Send(hostile.line));
    json error = client.Next(std::chrono::seconds(10));
    ASSERT_TRUE(error.is_object()) << client.child().Stderr();
    ASSERT_TRUE(error.contains("error")) << error.dump();
    EXPECT_EQ(error["error"]["code"], hostile.code) << error.dump();
    EXPECT_NE(error["error"]["message"].get<std::string>().find(hostile.message_part),
              std::string::npos)
        << error.dump();
    std::string id = "ping-" + std::to_string(++next_ping);
    json pong = client.Call({{"jsonrpc", "2.0"}, {"id", id}, {"method", "ping"}});
    EXPECT_EQ(pong["result"], json::object()) << pong.dump();
  }
  // Still a working tool server after all of it.
  json echo = client.Call(ToolCall("after", "togmal_test_echo", {{"text", "still here"}}));
  EXPECT_EQ(echo["result"]["structuredContent"]["text"], "still here") << echo.dump();
  client.child().CloseStdin();
  EXPECT_EQ(client.child().Wait(), 0) << client.child().Stderr();
}

TEST(ServeHostileTest, DeepValuesInsideABatchAreOneParseError) {
  ServeClient client;
  client.Initialize("2025-03-26");
  std::string batch =
      R"([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping",)"
      R"("params":{"deep":)" +
      Nested(50'000) + "}}]";
  ASSERT_TRUE(client.child().Send(batch));
  json error = client.Next(std::chrono::seconds(10));
  EXPECT_EQ(error["error"]["code"], -32700) << error.dump();
  EXPECT_EQ(client.Call({{"jsonrpc", "2.0"}, {"id", "p"}, {"method", "ping"}})["result"],
            json::object());
}

long ResidentKiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(ServeHostileTest, AFloodOfRequestsThatIsNotReadKeepsMemoryBounded) {
  // Enough to fill every buffer on the way many times over (the server
  // stops reading after ~700 of them); few enough to be answered in ~1 s.
  constexpr int kRequests = 3'000;
  ServeClient client;
  const pid_t pid = client.child().pid();
  json first = client.Call(ToolCall("warm", "togmal_test_echo", {{"text", "warm"}}, ModernMeta()));
  ASSERT_EQ(first["result"]["isError"], false) << first.dump();
  const long baseline_kib = ResidentKiB(pid);

  std::atomic<int> written{0};
  std::thread writer([&] {
    std::string text(64, 'w');
    for (int i = 0; i < kRequests; ++i) {
      json call = ToolCall(i, "togmal_test_echo", {{"text", text}}, ModernMeta());
      if (!client.child().Send(call.dump())) return;
      written.fetch_add(1, std::memory_order_relaxed);
    }
  });
  // Nothing reads stdout: the server must stop reading stdin (the writer
  // stalls) instead of queueing every request.
  int last = -1;
  for (int quiet = 0; quiet < 4;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    int now = written.load();
    quiet = now == last ? quiet + 1 : 0;
    last = now;
    if (now == kRequests) break;
  }
  const long stalled_kib = ResidentKiB(pid);
  EXPECT_LT(last, kRequests) << "the server read every request without anyone reading answers";
  EXPECT_LT(stalled_kib - baseline_kib, 16 * 1024)
      << "RSS grew from " << baseline_kib << " KiB to " << stalled_kib << " KiB";

  // Reading resumes the flow: every request is answered.
  int answered = 0;
  while (answered < kRequests) {
    auto line = client.child().ReadLine(std::chrono::seconds(20));
    if (!line) break;
    ++answered;
  }
  writer.join();
  EXPECT_EQ(answered, kRequests);
  // Under ASan freed memory stays in quarantine (256 MB by default), so once
  // the flood has been answered RSS no longer shows what the server holds.
  if (!SanitizedBuild()) {
    EXPECT_LT(ResidentKiB(pid) - baseline_kib, 16 * 1024);
  }
  client.child().CloseStdin();
  EXPECT_EQ(client.child().Wait(), 0) << client.child().Stderr();
}

}  // namespace
}  // namespace togmal::testing
