// `togmal serve` as a process: stdout discipline, line limits, EOF, signals.
#include <gtest/gtest.h>
#include <signal.h>

#include <set>
#include <sstream>

#include "serve_client.h"

namespace togmal::testing {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool IsJsonRpcMessage(const json& message) {
  if (!message.is_object() || message.value("jsonrpc", "") != "2.0") return false;
  bool request_or_notification = message.contains("method") && message["method"].is_string();
  bool response =
      message.contains("id") && (message.contains("result") != message.contains("error"));
  return request_or_notification != response;
}

TEST(ServeProtocolTest, EveryStdoutLineOfALongSessionIsAJsonRpcMessage) {
  // Debug logging on: stderr is busy, stdout must stay pure protocol.
  std::string input;
  int requests = 0;
  auto add = [&](const json& message, bool expects_reply) {
    input += message.dump() + "\n";
    if (expects_reply) ++requests;
  };
  add({{"jsonrpc", "2.0"},
       {"id", "init"},
       {"method", "initialize"},
       {"params", {{"protocolVersion", "2025-03-26"}, {"capabilities", json::object()}}}},
      true);
  add({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, false);
  add({{"jsonrpc", "2.0"},
       {"id", "lvl"},
       {"method", "logging/setLevel"},
       {"params", {{"level", "debug"}}}},
      true);
  for (int i = 0; i < 400; ++i) {
    add(ToolCall(i, "togmal_test_echo", {{"text", "message " + std::to_string(i)}}), true);
    add({{"jsonrpc", "2.0"}, {"id", "p" + std::to_string(i)}, {"method", "ping"}}, true);
    add({{"jsonrpc", "2.0"}, {"id", "l" + std::to_string(i)}, {"method", "tools/list"}}, true);
    add(ToolCall("m" + std::to_string(i), "togmal_test_echo", {{"text", "x"}}, ModernMeta()), true);
    add({{"jsonrpc", "2.0"},
         {"method", "notifications/cancelled"},
         {"params", {{"requestId", "gone"}}}},
        false);
    if (i % 50 == 0) {
      input += "{broken\n";
      ++requests;
      add(json::array({{{"jsonrpc", "2.0"}, {"id", "b" + std::to_string(i)}, {"method", "ping"}}}),
          true);
    }
  }
  ProcessOutput output =
      RunProcess({TogmalBinary(), "serve"}, input,
                 {{"TOGMAL_TEST_TOOLS", "1"}, {"TOGMAL_LOG", "debug"}}, std::chrono::seconds(120));
  EXPECT_EQ(output.exit_code, 0) << output.err.substr(0, 2000);
  std::vector<std::string> lines = Lines(output.out);
  int responses = 0;
  int log_notifications = 0;
  for (const std::string& line : lines) {
    json message = json::parse(line, nullptr, false);
    ASSERT_FALSE(message.is_discarded()) << "not JSON on stdout: " << line;
    if (message.is_array()) {
      for (const json& element : message) ASSERT_TRUE(IsJsonRpcMessage(element)) << line;
      ++responses;
      continue;
    }
    ASSERT_TRUE(IsJsonRpcMessage(message)) << line;
    if (!message.contains("method")) ++responses;
    if (message.value("method", "") == "notifications/message") ++log_notifications;
  }
  EXPECT_EQ(responses, requests);
  EXPECT_GT(log_notifications, 0) << "logging/setLevel debug forwards log records";
  EXPECT_FALSE(output.err.empty()) << "debug logging goes to stderr";
}

TEST(ServeProtocolTest, OversizeLinesAreAnsweredAndTheLoopGoesOn) {
  std::string huge = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" +
                     std::string(9u * 1024u * 1024u, 'a') + "\"}}";
  std::string input = huge + "\n" + R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n";
  ProcessOutput output = RunProcess({TogmalBinary(), "serve"}, input, ServeClient::DefaultEnv(),
                                    std::chrono::seconds(60));
  EXPECT_EQ(output.exit_code, 0);
  std::vector<std::string> lines = Lines(output.out);
  ASSERT_EQ(lines.size(), 2u) << output.out.substr(0, 500);
  json error = json::parse(lines[0]);
  EXPECT_EQ(error["id"], nullptr);
  EXPECT_EQ(error["error"]["code"], -32600);
  EXPECT_NE(error["error"]["message"].get<std::string>().find("8388608"), std::string::npos);
  EXPECT_EQ(json::parse(lines[1])["id"], 2);
}

TEST(ServeProtocolTest, LineLimitIsConfigurable) {
  std::string input = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" +
                      std::string(200, 'a') + "\"}}\n" +
                      R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n";
  ProcessOutput output = RunProcess({TogmalBinary(), "serve", "--max-line-bytes", "100"}, input,
                                    ServeClient::DefaultEnv());
  std::vector<std::string> lines = Lines(output.out);
  ASSERT_EQ(lines.size(), 2u) << output.out;
  EXPECT_EQ(json::parse(lines[0])["error"]["code"], -32600);
  EXPECT_EQ(json::parse(lines[1])["result"], json::object());
}

TEST(ServeProtocolTest, EofExitsZeroWithNothingOnStdout) {
  ProcessOutput output = RunProcess({TogmalBinary(), "serve"}, "", ServeClient::DefaultEnv());
  EXPECT_EQ(output.exit_code, 0);
  EXPECT_EQ(output.out, "");
}

TEST(ServeProtocolTest, AnswersPendingCallsBeforeExitingAtEof) {
  std::string input;
  for (int i = 0; i < 50; ++i) {
    input += ToolCall(i, "togmal_test_echo", {{"text", "t"}}, ModernMeta()).dump() + "\n";
  }
  ProcessOutput output = RunProcess({TogmalBinary(), "serve"}, input, ServeClient::DefaultEnv());
  EXPECT_EQ(output.exit_code, 0);
  std::set<int> ids;
  for (const std::string& line : Lines(output.out)) ids.insert(json::parse(line)["id"].get<int>());
  EXPECT_EQ(ids.size(), 50u);
}

class ServeSignalTest : public ::testing::TestWithParam<int> {};

TEST_P(ServeSignalTest, SignalEndsTheServerCleanly) {
  ServeClient client;
  client.Initialize("2025-11-25", {{"sampling", json::object()}});
  // Even with a handler waiting for the client.
  client.Send(ToolCall(1, "togmal_test_ask", {{"kind", "sampling"}}));
  client.UntilMethod("sampling/createMessage");
  client.child().Kill(GetParam());
  EXPECT_EQ(client.child().Wait(std::chrono::seconds(5)), 0);
}

INSTANTIATE_TEST_SUITE_P(Signals, ServeSignalTest, ::testing::Values(SIGTERM, SIGINT),
                         [](const auto& param_info) {
                           return std::string(param_info.param == SIGTERM ? "SIGTERM" : "SIGINT");
                         });

TEST(ServeProtocolTest, TestToolsOnlyWithTheEnvironmentVariable) {
  for (bool enabled : {false, true}) {
    EnvChanges env = {
        {"TOGMAL_TEST_TOOLS", enabled ? std::optional<std::string>("1") : std::nullopt}};
    ServeClient client({}, env);
    json tools = client.Call({{"jsonrpc", "2.0"},
                              {"id", 1},
                              {"method", "tools/list"},
                              {"params", {{"_meta", ModernMeta()}}}})["result"]["tools"];
    bool has_echo = false;
    for (const json& tool : tools) has_echo = has_echo || tool["name"] == "togmal_test_echo";
    EXPECT_EQ(has_echo, enabled);
  }
}

TEST(ServeProtocolTest, ServerInfoIsTogmalWithItsVersion) {
  ServeClient client;
  json result = client.Call({{"jsonrpc", "2.0"},
                             {"id", 1},
                             {"method", "server/discover"},
                             {"params", {{"_meta", ModernMeta()}}}})["result"];
  EXPECT_EQ(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "togmal");
  ProcessOutput version = RunProcess({TogmalBinary(), "--version"}, "");
  EXPECT_NE(
      version.out.find(
          result["_meta"]["io.modelcontextprotocol/serverInfo"]["version"].get<std::string>()),
      std::string::npos);
}

TEST(ServeProtocolTest, AnswersAOneShotProbeAndExits) {
  // Clients probe with short-lived sibling processes. How fast that is, is
  // measured by bench/serve and bench/hook, not by a timed test.
  std::string probe = json({{"jsonrpc", "2.0"},
                            {"id", 1},
                            {"method", "server/discover"},
                            {"params", {{"_meta", ModernMeta()}}}})
                          .dump() +
                      "\n";
  ProcessOutput output = RunProcess({TogmalBinary(), "serve"}, probe, ServeClient::DefaultEnv());
  EXPECT_EQ(output.exit_code, 0);
  EXPECT_EQ(Lines(output.out).size(), 1u);
}

TEST(ServeProtocolTest, HelpDescribesTheOptions) {
  ProcessOutput output = RunProcess({TogmalBinary(), "serve", "--help"}, "");
  EXPECT_EQ(output.exit_code, 0);
  EXPECT_NE(output.out.find("--ask-timeout-ms"), std::string::npos) << output.out;
  EXPECT_NE(output.out.find("--max-line-bytes"), std::string::npos) << output.out;
}

}  // namespace
}  // namespace togmal::testing
