// togmal_check_tool_call through `togmal serve`, and `togmal rules`, through
// the built binary: the hook's decision over MCP, SAMPLE rules put to scripted
// clients of both eras (answering, refusing, never answering).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "process.h"
#include "serve_client.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSampleRule =
    "rules:\n  - id: review-writes\n    conditions: {tool_name: Write}\n    action: SAMPLE\n"
    "    sampling_guidance: Look for credentials in the content.\n";

class CheckToolCall : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    fs::create_directories(root_ / "config/togmal");
    std::ofstream(root_ / "config/togmal/rules.yaml") << kSampleRule;
    env_ = {{"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"XDG_CONFIG_HOME", (root_ / "config").string()},
            {"TOGMAL_LOG", std::nullopt}};
  }

  json WriteCall(json id, json meta = nullptr) const {
    return ToolCall(std::move(id), "togmal_check_tool_call",
                    {{"tool_name", "Write"},
                     {"tool_input", {{"file_path", (root_ / "a.txt").string()}, {"content", "x"}}},
                     {"cwd", root_.string()},
                     {"response_format", "json"}},
                    std::move(meta));
  }

  TempDir dir_;
  fs::path root_;
  EnvChanges env_;
};

TEST_F(CheckToolCall, HookFormatIsExactlyTheHookAnswer) {
  ServeClient client({}, env_);
  client.Initialize("2025-06-18");
  json response = client.Call(ToolCall(1, "togmal_check_tool_call",
                                       {{"tool_name", "Bash"},
                                        {"command", "rm -rf /"},
                                        {"file_path", ""},
                                        {"cwd", root_.string()},
                                        {"session_id", "s1"},
                                        {"response_format", "hook"}}));
  const json& result = response["result"];
  json text = json::parse(result["content"][0]["text"].get<std::string>());
  EXPECT_EQ(text["hookSpecificOutput"]["hookEventName"], "PreToolUse");
  EXPECT_EQ(text["hookSpecificOutput"]["permissionDecision"], "deny");
  EXPECT_EQ(text["hookSpecificOutput"]["permissionDecisionReason"].get<std::string>().rfind(
                "togmal L3: ", 0),
            0u);
  EXPECT_EQ(result["structuredContent"]["decision"], "deny");
  EXPECT_EQ(result["structuredContent"]["level"], "L3");
  EXPECT_EQ(result["structuredContent"]["source"], "classifier");
  EXPECT_TRUE(result["structuredContent"]["audit_id"].is_number_integer());
}

TEST_F(CheckToolCall, TwoServersAndHooksShareOneAuditChain) {
  // Two `serve` processes (say Claude Desktop and Claude Code) and a burst of
  // hook processes append to one database at once; every acknowledged
  // decision must land in one valid chain.
  constexpr std::size_t kCallsPerServer = 60;
  constexpr int kHooks = 8;
  // Each hook must win the write lock, which two busy servers hold in turn.
  // A hook waits two fifths of its budget for it and then answers `ask` by
  // design; on a loaded 2-core machine the default 400 ms was sometimes too
  // short, so this machine's person gives the hook 20 s.
  std::ofstream(root_ / "config/togmal/settings.yaml") << "hook:\n  budget_ms: 20000\n";
  ServeClient first({}, env_);
  ServeClient second({}, env_);
  first.Initialize("2025-11-25");
  second.Initialize("2025-06-18");
  auto call = [this](int id) {
    return ToolCall(id, "togmal_check_tool_call",
                    {{"tool_name", "Bash"},
                     {"tool_input", {{"command", "git status && ls -la"}}},
                     {"cwd", root_.string()},
                     {"response_format", "json"}});
  };
  // Pipelined: all requests are written before any answer is read, so the
  // two servers' worker threads and the hooks contend for the write lock.
  for (int i = 0; i < static_cast<int>(kCallsPerServer); ++i) {
    first.Send(call(i));
    second.Send(call(i));
  }
  std::string hook_input = json{{"session_id", "s-hook"},
                                {"cwd", root_.string()},
                                {"hook_event_name", "PreToolUse"},
                                {"tool_name", "Bash"},
                                {"tool_input", {{"command", "git diff"}}},
                                {"tool_use_id", "toolu_1"},
                                {"permission_mode", "default"},
                                {"transcript_path", (root_ / "t.jsonl").string()}}
                               .dump();
  std::vector<std::thread> hooks;
  std::vector<ProcessOutput> hook_results(kHooks);
  for (int i = 0; i < kHooks; ++i) {
    hooks.emplace_back([&, i] {
      hook_results[static_cast<std::size_t>(i)] =
          RunProcess({TogmalBinary(), "hook"}, hook_input, env_, std::chrono::seconds(60));
    });
  }
  std::set<int64_t> audit_ids;
  for (ServeClient* client : {&first, &second}) {
    for (int i = 0; i < static_cast<int>(kCallsPerServer); ++i) {
      const json response = client->ResponseTo(i);
      if (!response.is_object()) {
        ADD_FAILURE() << "no answer to request " << i;
        continue;
      }
      const json result = response.value("result", json::object());
      EXPECT_FALSE(result.value("isError", false)) << response.dump();
      const json structured = result.value("structuredContent", json::object());
      EXPECT_EQ(structured.value("decision", ""), "allow") << response.dump();
      if (structured.contains("audit_id") && structured["audit_id"].is_number_integer()) {
        audit_ids.insert(structured["audit_id"].get<int64_t>());
      }
    }
  }
  for (auto& hook : hooks) hook.join();
  for (const ProcessOutput& result : hook_results) {
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.out.find("\"allow\""), std::string::npos) << result.out;
  }
  first.child().CloseStdin();
  second.child().CloseStdin();
  EXPECT_EQ(first.child().Wait(), 0);
  EXPECT_EQ(second.child().Wait(), 0);

  EXPECT_EQ(audit_ids.size(), 2 * kCallsPerServer) << "ids are unique";
  auto db = store::Database::Open(root_ / "togmal.db", {.read_only = true});
  ASSERT_TRUE(db.ok()) << db.error();
  store::AuditLog log(*db);
  auto verify = log.Verify();
  ASSERT_TRUE(verify.ok()) << verify.error();
  EXPECT_TRUE(verify->ok) << verify->problem;
  auto entries = log.Tail(1000);
  ASSERT_TRUE(entries.ok());
  int decisions = 0;
  for (const store::AuditEntry& entry : *entries) {
    if (entry.kind != store::AuditKind::kDecision) continue;
    ++decisions;
    audit_ids.erase(entry.id);
  }
  EXPECT_EQ(decisions, static_cast<int>(2 * kCallsPerServer) + kHooks);
  EXPECT_TRUE(audit_ids.empty()) << "every acknowledged id is in the trail";
}

TEST_F(CheckToolCall, PipelinedBurstIsCommittedBeforeItIsAnswered) {
  // A client pipelining its calls (as serve_throughput does): every call is
  // answered once, every answer's audit_id is that call's committed entry
  // (the appends of a burst share transactions: store::AuditAppender), the
  // chain verifies, and a call sent alone afterwards is answered at once.
  constexpr int kCalls = 200;
  ServeClient client({}, env_);
  client.Initialize("2025-11-25");
  for (int i = 0; i < kCalls; ++i) {
    client.Send(ToolCall(i, "togmal_check_tool_call",
                         {{"tool_name", "Bash"},
                          {"tool_input", {{"command", i % 2 ? "ls -la src" : "git status"}}},
                          {"cwd", root_.string()},
                          {"tool_use_id", "burst-" + std::to_string(i)},
                          {"response_format", "json"}}));
  }
  std::map<int64_t, int> call_of_audit_id;
  for (int i = 0; i < kCalls; ++i) {
    const json structured = client.ResponseTo(i)["result"]["structuredContent"];
    EXPECT_EQ(structured.value("decision", ""), "allow") << structured.dump();
    ASSERT_TRUE(structured["audit_id"].is_number_integer()) << structured.dump();
    call_of_audit_id[structured["audit_id"].get<int64_t>()] = i;
  }
  EXPECT_EQ(call_of_audit_id.size(), static_cast<std::size_t>(kCalls)) << "ids are unique";
  const auto started = std::chrono::steady_clock::now();
  const json lone = client.Call(ToolCall("lone", "togmal_check_tool_call",
                                         {{"tool_name", "Bash"},
                                          {"command", "pwd"},
                                          {"cwd", root_.string()},
                                          {"response_format", "json"}}));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  EXPECT_TRUE(lone["result"]["structuredContent"]["audit_id"].is_number_integer()) << lone.dump();
  client.child().CloseStdin();
  EXPECT_EQ(client.child().Wait(), 0);

  ProcessOutput verify = RunProcess({TogmalBinary(), "audit", "verify"}, "", env_);
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  auto db = store::Database::Open(root_ / "togmal.db", {.read_only = true});
  ASSERT_TRUE(db.ok()) << db.error();
  auto entries = store::AuditLog(*db).Tail(1000);
  ASSERT_TRUE(entries.ok()) << entries.error();
  int decisions = 0;
  for (const store::AuditEntry& entry : *entries) {
    if (entry.kind != store::AuditKind::kDecision) continue;
    const std::string tool_use_id = entry.detail.value("tool_use_id", "");
    if (tool_use_id.rfind("burst-", 0) != 0) continue;
    ++decisions;
    auto it = call_of_audit_id.find(entry.id);
    ASSERT_NE(it, call_of_audit_id.end()) << "entry " << entry.id << " was never acknowledged";
    EXPECT_EQ(tool_use_id, "burst-" + std::to_string(it->second));
  }
  EXPECT_EQ(decisions, kCalls);
}

TEST_F(CheckToolCall, ToolInputObjectAndMarkdown) {
  ServeClient client({}, env_);
  client.Initialize("2025-06-18");
  json response =
      client.Call(ToolCall(1, "togmal_check_tool_call",
                           {{"tool_name", "Read"}, {"tool_input", {{"file_path", "/p/.env"}}}}));
  const json& result = response["result"];
  EXPECT_EQ(result["structuredContent"]["decision"], "pass");
  EXPECT_NE(result["content"][0]["text"].get<std::string>().find("**togmal: pass**"),
            std::string::npos);
  EXPECT_NE(result["content"][0]["text"].get<std::string>().find("takes no decision"),
            std::string::npos);
  json bypass = client.Call(ToolCall(9, "togmal_check_tool_call",
                                     {{"tool_name", "Read"},
                                      {"tool_input", {{"file_path", "/p/.env"}}},
                                      {"permission_mode", "bypassPermissions"}}));
  EXPECT_EQ(bypass["result"]["structuredContent"]["decision"], "ask") << bypass.dump();
  json hook = client.Call(ToolCall(10, "togmal_check_tool_call",
                                   {{"tool_name", "Read"},
                                    {"tool_input", {{"file_path", "/p/.env"}}},
                                    {"response_format", "hook"}}));
  EXPECT_EQ(hook["result"]["content"][0]["text"], "{}") << "pass in a hook answer: no decision";
  json rules = client.Call({{"jsonrpc", "2.0"},
                            {"id", 2},
                            {"method", "resources/read"},
                            {"params", {{"uri", "config://rules"}}}});
  std::string text = rules["result"]["contents"][0]["text"];
  EXPECT_NE(text.find("review-writes"), std::string::npos);
  EXPECT_NE(text.find("deny-git-internals-write"), std::string::npos);
}

TEST_F(CheckToolCall, LegacySamplingVerdictDecides) {
  ServeClient client({}, env_);
  client.Initialize("2025-11-25", {{"sampling", json::object()}});
  client.Send(WriteCall(1));
  json ask = client.UntilMethod("sampling/createMessage");
  std::string prompt = ask["params"]["messages"][0]["content"]["text"];
  EXPECT_NE(prompt.find("Look for credentials in the content."), std::string::npos);
  client.Send({{"jsonrpc", "2.0"},
               {"id", ask["id"]},
               {"result",
                {{"role", "assistant"},
                 {"model", "m"},
                 {"content", {{"type", "text"}, {"text", "DENY: it writes outside the task"}}}}}});
  json result = client.ResponseTo(1)["result"];
  json structured = result["structuredContent"];
  EXPECT_EQ(structured["decision"], "deny");
  EXPECT_EQ(structured["source"], "sampling");
  EXPECT_EQ(structured["rule_id"], "review-writes");
}

TEST_F(CheckToolCall, LegacySamplingRefusedAsks) {
  ServeClient client({}, env_);
  client.Initialize("2025-11-25", {{"sampling", json::object()}});
  client.Send(WriteCall(1));
  json ask = client.UntilMethod("sampling/createMessage");
  client.Send({{"jsonrpc", "2.0"},
               {"id", ask["id"]},
               {"error", {{"code", -1}, {"message", "User rejected sampling request"}}}});
  json structured = client.ResponseTo(1)["result"]["structuredContent"];
  EXPECT_EQ(structured["decision"], "ask");
  EXPECT_EQ(structured["source"], "rule");
}

TEST_F(CheckToolCall, LegacySamplingUnparsableAnswerAsks) {
  ServeClient client({}, env_);
  client.Initialize("2025-11-25", {{"sampling", json::object()}});
  client.Send(WriteCall(1));
  json ask = client.UntilMethod("sampling/createMessage");
  client.Send({{"jsonrpc", "2.0"},
               {"id", ask["id"]},
               {"result",
                {{"role", "assistant"},
                 {"model", "m"},
                 {"content", {{"type", "text"}, {"text", "Looks fine to me!"}}}}}});
  EXPECT_EQ(client.ResponseTo(1)["result"]["structuredContent"]["decision"], "ask");
}

TEST_F(CheckToolCall, LegacySamplingNeverAnsweredTimesOutToAsk) {
  ServeClient client({"--ask-timeout-ms", "300"}, env_);
  client.Initialize("2025-11-25", {{"sampling", json::object()}});
  client.Send(WriteCall(1));
  client.UntilMethod("sampling/createMessage");  // and never answer
  json structured = client.ResponseTo(1)["result"]["structuredContent"];
  EXPECT_EQ(structured["decision"], "ask");
}

TEST_F(CheckToolCall, LegacyClientWithoutSamplingGetsAsk) {
  ServeClient client({}, env_);
  client.Initialize("2025-11-25");
  json structured = client.Call(WriteCall(1))["result"]["structuredContent"];
  EXPECT_EQ(structured["decision"], "ask");
  for (const json& message : client.seen()) {
    EXPECT_NE(message.value("method", ""), "sampling/createMessage");
  }
}

TEST_F(CheckToolCall, ModernSamplingThroughInputRequired) {
  ServeClient client({}, env_);
  json capabilities = {{"sampling", json::object()}};
  json first = client.Call(WriteCall("a", ModernMeta(capabilities)));
  ASSERT_EQ(first["result"]["resultType"], "input_required") << first.dump();
  json request = first["result"]["inputRequests"]["sample_verdict"];
  EXPECT_EQ(request["method"], "sampling/createMessage");
  json retry = WriteCall("b", ModernMeta(capabilities));
  retry["params"]["requestState"] = first["result"]["requestState"];
  retry["params"]["inputResponses"] = {
      {"sample_verdict",
       {{"role", "assistant"},
        {"model", "m"},
        {"content", {{"type", "text"}, {"text", "ALLOW: a harmless text file"}}}}}};
  json second = client.Call(retry);
  json structured = second["result"]["structuredContent"];
  EXPECT_EQ(structured["decision"], "allow") << second.dump();
  EXPECT_EQ(structured["source"], "sampling");
}

TEST_F(CheckToolCall, ModernClientWithoutSamplingGetsAsk) {
  ServeClient client({}, env_);
  json response = client.Call(WriteCall("a", ModernMeta()));
  EXPECT_EQ(response["result"]["structuredContent"]["decision"], "ask") << response.dump();
}

TEST_F(CheckToolCall, HotReloadSwapsGoodRulesAndKeepsOldOnBrokenFile) {
  ServeClient client({}, env_);
  client.Initialize("2025-11-25");
  json subscribed = client.Call({{"jsonrpc", "2.0"},
                                 {"id", "sub"},
                                 {"method", "resources/subscribe"},
                                 {"params", {{"uri", "config://rules"}}}});
  ASSERT_TRUE(subscribed.contains("result")) << subscribed.dump();
  json ls = ToolCall(1, "togmal_check_tool_call",
                     {{"tool_name", "Bash"}, {"command", "ls"}, {"cwd", root_.string()}});
  EXPECT_EQ(client.Call(ls)["result"]["structuredContent"]["decision"], "allow");

  // A good file: written, noticed, announced, in force.
  {
    std::ofstream out(root_ / "config/togmal/rules.yaml.tmp");
    out << "rules:\n  - {id: no-ls, conditions: {command: '^ls'}, action: DENY, reason: no}\n";
  }
  fs::rename(root_ / "config/togmal/rules.yaml.tmp", root_ / "config/togmal/rules.yaml");
  json updated = client.UntilMethod("notifications/resources/updated");
  EXPECT_EQ(updated["params"]["uri"], "config://rules");
  ls["id"] = 2;
  json denied = client.Call(ls)["result"]["structuredContent"];
  EXPECT_EQ(denied["decision"], "deny");
  EXPECT_EQ(denied["rule_id"], "no-ls");

  // A broken file: the old rules stay, nobody is told they changed, and
  // until it loads nothing is auto-approved.
  std::ofstream(root_ / "config/togmal/rules.yaml") << "rules:\n  - {id: x, action: WHAT}\n";
  std::this_thread::sleep_for(std::chrono::milliseconds(800));
  ls["id"] = 3;
  EXPECT_EQ(client.Call(ls)["result"]["structuredContent"]["rule_id"], "no-ls");
  json pwd = ToolCall(4, "togmal_check_tool_call",
                      {{"tool_name", "Bash"}, {"command", "pwd"}, {"cwd", root_.string()}});
  json asked = client.Call(pwd)["result"]["structuredContent"];
  EXPECT_EQ(asked["decision"], "ask") << asked.dump();
  EXPECT_NE(asked["broken_config"].dump().find("rules.yaml:2:"), std::string::npos) << asked.dump();
  int notices = 0;
  for (const json& message : client.seen()) {
    notices += message.value("method", "") == "notifications/resources/updated" ? 1 : 0;
  }
  EXPECT_EQ(notices, 1);
  client.child().CloseStdin();
  EXPECT_EQ(client.child().Wait(), 0);

  ProcessOutput audit =
      RunProcess({TogmalBinary(), "audit", "export", "--format", "jsonl"}, "", env_);
  EXPECT_NE(audit.out.find("\"applied\""), std::string::npos) << audit.out.substr(0, 2000);
  EXPECT_NE(audit.out.find("\"rejected\""), std::string::npos);
}

// Over MCP as in the hook: a broken project file stops auto-approval in its
// project, naming file:line; a deny stays a deny.
TEST_F(CheckToolCall, ABrokenProjectFileAsksInItsProject) {
  fs::create_directories(root_ / "proj/.togmal");
  std::ofstream(root_ / "proj/.togmal/rules.yaml")
      << "rules:\n  - id: no-ls\n    conditions: {command: '^ls'}\n    action: DENY\n"
         "    action: ASK\n";
  ServeClient client({}, env_);
  client.Initialize("2025-06-18");
  auto check = [&](int id, const std::string& command, const fs::path& cwd) {
    return client.Call(ToolCall(id, "togmal_check_tool_call",
                                {{"tool_name", "Bash"},
                                 {"command", command},
                                 {"cwd", cwd.string()},
                                 {"response_format", "hook"}}))["result"];
  };
  json listing = check(1, "ls -la", root_ / "proj");
  EXPECT_EQ(listing["structuredContent"]["decision"], "ask") << listing.dump();
  json answer = json::parse(listing["content"][0]["text"].get<std::string>());
  EXPECT_NE(answer["hookSpecificOutput"]["permissionDecisionReason"].get<std::string>().find(
                (root_ / "proj/.togmal/rules.yaml").string() + ":5: duplicate key \"action\""),
            std::string::npos)
      << answer.dump();
  EXPECT_EQ(check(2, "rm -rf /", root_ / "proj")["structuredContent"]["decision"], "deny");
  EXPECT_EQ(check(3, "ls -la", root_)["structuredContent"]["decision"], "allow")
      << "another project is judged as before";
}

class RulesCli : public ::testing::Test {
 protected:
  ProcessOutput Run(std::vector<std::string> args) {
    args.insert(args.begin(), TogmalBinary());
    return RunProcess(args, "", {{"XDG_CONFIG_HOME", dir_.path() + "/config"}});
  }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  TempDir dir_;
};

TEST_F(RulesCli, ValidateNamesFileAndLine) {
  std::string good = Write("good.yaml", kSampleRule);
  EXPECT_EQ(Run({"rules", "validate", good}).exit_code, 0);
  std::string bad =
      Write("bad.yaml", "rules:\n  - id: x\n    conditions: {command: '(a'}\n    action: DENY\n");
  ProcessOutput out = Run({"rules", "validate", bad});
  EXPECT_EQ(out.exit_code, 65);
  EXPECT_NE(out.err.find(bad + ":3:"), std::string::npos) << out.err;
  EXPECT_EQ(Run({"rules", "validate"}).exit_code, 0);
}

TEST_F(RulesCli, ExplainSaysWhatDecided) {
  ProcessOutput out =
      Run({"rules", "explain", "--tool", "Edit", "--input",
           R"({"file_path": "/r/.git/config", "old_string": "a", "new_string": "b"})", "--json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  json result = json::parse(out.out);
  EXPECT_EQ(result["decision"], "deny");
  EXPECT_EQ(result["rule_id"], "deny-git-internals-write");
  EXPECT_NE(result["rule_where"].get<std::string>().find("rules.yaml:"), std::string::npos);
}

TEST_F(RulesCli, TestFailsOnAnyMiss) {
  std::string passing = Write("pass.yaml",
                              "- {tool: Bash, input: {command: ls}, expect: allow}\n"
                              "- {tool: Bash, input: {command: 'rm -rf /'}, expect: deny}\n");
  ProcessOutput ok = Run({"rules", "test", passing});
  EXPECT_EQ(ok.exit_code, 0) << ok.out;
  EXPECT_NE(ok.out.find("2 passed, 0 failed"), std::string::npos);
  std::string failing = Write("fail.yaml",
                              "cases:\n  - {name: env, tool: Read, input: {file_path: .env}, "
                              "expect: allow}\n");
  ProcessOutput miss = Run({"rules", "test", failing});
  EXPECT_EQ(miss.exit_code, 1);
  EXPECT_NE(miss.out.find("FAIL  env"), std::string::npos) << miss.out;
}

// An allow code works the same through MCP as through the hook: the deny
// names it, `togmal allow CODE` grants once, the next identical call passes.
TEST_F(CheckToolCall, AllowCodesApplyToToolCallsOverMcp) {
  ServeClient client({}, env_);
  client.Initialize("2025-06-18");
  const json call = {{"tool_name", "Bash"},
                     {"tool_input", {{"command", "rm -rf ~/project"}}},
                     {"cwd", root_.string()},
                     {"response_format", "json"}};
  auto decide = [&](int id) {
    return client.Call(ToolCall(id, "togmal_check_tool_call", call))["result"]["structuredContent"];
  };
  json denied = decide(1);
  ASSERT_EQ(denied["decision"], "deny");
  ASSERT_TRUE(denied["allow_code"].is_string()) << denied;
  const std::string code = denied["allow_code"];
  auto granted = RunProcess({TogmalBinary(), "allow", code}, "", env_, std::chrono::seconds(60));
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  json let_through = decide(2);
  EXPECT_EQ(let_through["decision"], "allow");
  EXPECT_TRUE(let_through["allowed_by_grant"].is_number_integer()) << let_through;
  EXPECT_EQ(decide(3)["decision"], "deny");
}

}  // namespace
}  // namespace togmal::testing
