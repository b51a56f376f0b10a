// Each agent host's hook input mapped to the call togmal judges, and each
// host's answer, from the JSON those hosts send.
#include "togmal/hook/host.h"

#include <gtest/gtest.h>

namespace togmal::hook {
namespace {

using json = nlohmann::json;

TEST(HostNames, RoundTripAndRejectUnknown) {
  for (std::string_view name : HostNames()) {
    auto host = HostNamed(name);
    ASSERT_TRUE(host.has_value()) << name;
    EXPECT_EQ(HostName(*host), name);
  }
  EXPECT_FALSE(HostNamed("vscode").has_value());
  EXPECT_FALSE(HostNamed("").has_value());
  EXPECT_FALSE(HostNamed("Claude").has_value());
}

struct Mapping {
  const char* name;
  Host host;
  const char* input;
  const char* tool;           // togmal's tool name after mapping
  const char* field;          // a field of the mapped input
  const char* value;          // its value
  const char* cwd = nullptr;  // the call's cwd, when checked
};

class HostInputMapping : public ::testing::TestWithParam<Mapping> {};

TEST_P(HostInputMapping, MapsToTogmalsTools) {
  const Mapping& m = GetParam();
  auto call = ParseHostInput(m.host, m.input);
  ASSERT_TRUE(call.ok()) << m.name << ": " << call.error();
  EXPECT_EQ(call->tool_name, m.tool) << m.name;
  ASSERT_TRUE(call->tool_input.contains(m.field)) << m.name << ": " << call->tool_input.dump();
  EXPECT_EQ(call->tool_input[m.field], m.value) << m.name;
  if (m.cwd != nullptr) {
    EXPECT_EQ(call->cwd, m.cwd) << m.name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryHost, HostInputMapping,
    ::testing::Values(
        Mapping{
            "claude_bash", Host::kClaude,
            R"({"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_input":{"command":"ls"}})",
            "Bash", "command", "ls", "/p"},
        Mapping{
            "codex_bash", Host::kCodex,
            R"({"session_id":"s","cwd":"/p","hook_event_name":"PreToolUse","model":"gpt-5","tool_name":"Bash","tool_input":{"command":"git status"},"tool_use_id":"c1"})",
            "Bash", "command", "git status", "/p"},
        Mapping{
            "codex_shell_argv", Host::kCodex,
            R"({"cwd":"/p","tool_name":"shell","tool_input":{"command":["bash","-lc","rm -rf ~"]}})",
            "Bash", "command", "bash -lc 'rm -rf ~'"},
        Mapping{
            "codex_apply_patch_one_file", Host::kCodex,
            R"({"cwd":"/p","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n*** End Patch\n"}})",
            "Edit", "file_path", "/p/src/a.py"},
        Mapping{
            "codex_apply_patch_new_file", Host::kCodex,
            R"({"cwd":"/p","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: /etc/cron.d/x\n+* * * * * root sh\n*** End Patch"}})",
            "Write", "file_path", "/etc/cron.d/x"},
        Mapping{
            "gemini_shell", Host::kGemini,
            R"({"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"BeforeTool","timestamp":"2026-11-26T10:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"make","dir_path":"sub"}})",
            "Bash", "command", "make", "/p/sub"},
        Mapping{
            "gemini_write", Host::kGemini,
            R"({"cwd":"/p","hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"/p/a.txt","content":"x"}})",
            "Write", "file_path", "/p/a.txt"},
        Mapping{
            "gemini_replace", Host::kGemini,
            R"({"cwd":"/p","hook_event_name":"BeforeTool","tool_name":"replace","tool_input":{"file_path":"/p/a.txt","old_string":"a","new_string":"b"}})",
            "Edit", "new_string", "b"},
        Mapping{
            "gemini_read_old_field", Host::kGemini,
            R"({"cwd":"/p","hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"absolute_path":"/p/.env"}})",
            "Read", "file_path", "/p/.env"},
        Mapping{
            "gemini_glob_dir", Host::kGemini,
            R"({"cwd":"/p","hook_event_name":"BeforeTool","tool_name":"glob","tool_input":{"pattern":"*.c","dir_path":"/p/src"}})",
            "Glob", "path", "/p/src"},
        Mapping{
            "gemini_mcp_kept", Host::kGemini,
            R"({"cwd":"/p","hook_event_name":"BeforeTool","tool_name":"mcp__github__create_issue","tool_input":{"title":"t"}})",
            "mcp__github__create_issue", "title", "t"},
        Mapping{
            "copilot_bash_args_string", Host::kCopilot,
            R"({"timestamp":1704614600000,"cwd":"/p","toolName":"bash","toolArgs":"{\"command\":\"rm -rf dist\",\"description\":\"Clean\"}"})",
            "Bash", "command", "rm -rf dist", "/p"},
        Mapping{
            "copilot_edit", Host::kCopilot,
            R"({"cwd":"/p","toolName":"edit","toolArgs":"{\"path\":\"/p/a.c\",\"old_str\":\"x\",\"new_str\":\"y\"}"})",
            "Edit", "file_path", "/p/a.c"},
        Mapping{
            "copilot_create", Host::kCopilot,
            R"({"cwd":"/p","toolName":"create","toolArgs":"{\"path\":\"/p/n.c\",\"file_text\":\"int x;\"}"})",
            "Write", "content", "int x;"},
        Mapping{"copilot_view", Host::kCopilot,
                R"({"cwd":"/p","toolName":"view","toolArgs":"{\"path\":\"/home/u/.ssh/id_rsa\"}"})",
                "Read", "file_path", "/home/u/.ssh/id_rsa"},
        Mapping{"copilot_args_object", Host::kCopilot,
                R"({"cwd":"/p","toolName":"bash","toolArgs":{"command":"ls"}})", "Bash", "command",
                "ls"},
        Mapping{
            "cursor_shell", Host::kCursor,
            R"({"conversation_id":"c","generation_id":"g","hook_event_name":"beforeShellExecution","command":"git push --force","cwd":"/p","workspace_roots":["/p"]})",
            "Bash", "command", "git push --force", "/p"},
        Mapping{
            "cursor_shell_root_as_cwd", Host::kCursor,
            R"({"hook_event_name":"beforeShellExecution","command":"ls","workspace_roots":["/w"]})",
            "Bash", "command", "ls", "/w"},
        Mapping{
            "cursor_read", Host::kCursor,
            R"({"hook_event_name":"beforeReadFile","file_path":"/p/.env","content":"SECRET=1","workspace_roots":["/p"]})",
            "Read", "file_path", "/p/.env"},
        Mapping{
            "cursor_mcp", Host::kCursor,
            R"({"hook_event_name":"beforeMCPExecution","tool_name":"query","tool_input":"{\"sql\":\"drop table x\"}","command":"npx db-mcp","workspace_roots":["/p"]})",
            "mcp__cursor__query", "sql", "drop table x"}),
    [](const auto& test) { return std::string(test.param.name); });

TEST(HostInput, CursorReadDropsTheFileContent) {
  auto call = ParseHostInput(
      Host::kCursor,
      R"({"hook_event_name":"beforeReadFile","file_path":"/p/.env","content":"SECRET=1"})");
  ASSERT_TRUE(call.ok()) << call.error();
  EXPECT_FALSE(call->tool_input.contains("content"));
}

TEST(HostInput, ApplyPatchOverSeveralFilesStaysUnknown) {
  auto call = ParseHostInput(
      Host::kCodex,
      R"({"cwd":"/p","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: a\n*** Update File: b\n*** End Patch"}})");
  ASSERT_TRUE(call.ok()) << call.error();
  EXPECT_EQ(call->tool_name, "apply_patch");
}

struct Garbage {
  const char* name;
  Host host;
  const char* input;
  const char* error;
};

class HostInputErrors : public ::testing::TestWithParam<Garbage> {};

TEST_P(HostInputErrors, SayWhatIsWrong) {
  auto call = ParseHostInput(GetParam().host, GetParam().input);
  ASSERT_FALSE(call.ok()) << GetParam().name;
  EXPECT_NE(call.error().find(GetParam().error), std::string::npos) << call.error();
}

INSTANTIATE_TEST_SUITE_P(
    EveryHost, HostInputErrors,
    ::testing::Values(
        Garbage{"gemini_empty", Host::kGemini, "", "empty"},
        Garbage{"gemini_not_json", Host::kGemini, "{nope", "JSON"},
        Garbage{"gemini_other_event", Host::kGemini,
                R"({"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{}})",
                "BeforeTool"},
        Garbage{"gemini_no_input", Host::kGemini, R"({"tool_name":"write_file"})", "tool_input"},
        Garbage{"copilot_no_tool", Host::kCopilot, R"({"toolArgs":"{}"})", "toolName"},
        Garbage{"copilot_args_not_json", Host::kCopilot,
                R"({"toolName":"bash","toolArgs":"rm -rf /"})", "toolArgs"},
        Garbage{"copilot_no_args", Host::kCopilot, R"({"toolName":"bash"})", "toolArgs"},
        Garbage{"cursor_unknown_event", Host::kCursor,
                R"({"hook_event_name":"afterFileEdit","file_path":"/x"})", "afterFileEdit"},
        Garbage{"cursor_no_event", Host::kCursor, R"({"command":"ls"})", "no hook_event_name"},
        Garbage{"cursor_shell_without_command", Host::kCursor,
                R"({"hook_event_name":"beforeShellExecution"})", "command"},
        Garbage{"codex_array", Host::kCodex, "[1,2]", "not a JSON object"}),
    [](const auto& test) { return std::string(test.param.name); });

rules::Decision MakeDecision(rules::Permission permission, std::string reason,
                             std::string notice = {}) {
  rules::Decision decision;
  decision.permission = permission;
  decision.reason = std::move(reason);
  decision.notice = std::move(notice);
  return decision;
}

json Parse(const std::string& line) {
  EXPECT_FALSE(line.empty());
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line: " << line;
  return json::parse(line);
}

TEST(HostAnswer, EachHostsFormat) {
  const auto deny = MakeDecision(rules::Permission::kDeny, "togmal L3: no");
  json claude = Parse(HostAnswer(Host::kClaude, deny));
  EXPECT_EQ(claude["hookSpecificOutput"]["permissionDecision"], "deny");
  EXPECT_EQ(Parse(HostAnswer(Host::kCodex, deny)), claude);

  json gemini = Parse(HostAnswer(Host::kGemini, deny));
  EXPECT_EQ(gemini, (json{{"decision", "deny"}, {"reason", "togmal L3: no"}}));

  json copilot = Parse(HostAnswer(Host::kCopilot, deny));
  EXPECT_EQ(copilot,
            (json{{"permissionDecision", "deny"}, {"permissionDecisionReason", "togmal L3: no"}}));

  json cursor = Parse(HostAnswer(Host::kCursor, deny, "beforeShellExecution"));
  EXPECT_EQ(cursor, (json{{"permission", "deny"},
                          {"user_message", "togmal L3: no"},
                          {"agent_message", "togmal L3: no"}}));
}

// pass is no decision: each host's own permission system decides. Cursor
// has no documented "no answer", so its parser marks it gateless (the Judge
// asks) and its writer asks should a pass reach it.
TEST(HostAnswer, PassIsNoDecisionInEachHostsFormat) {
  const auto pass = MakeDecision(rules::Permission::kPass, "togmal L2: unknown");
  for (Host host : {Host::kClaude, Host::kCodex, Host::kGemini, Host::kCopilot}) {
    EXPECT_EQ(Parse(HostAnswer(host, pass)), json::object()) << HostName(host);
  }
  EXPECT_EQ(Parse(HostAnswer(Host::kCursor, pass, "beforeShellExecution"))["permission"], "ask");
  auto cursor = ParseHostInput(
      Host::kCursor,
      R"({"hook_event_name":"beforeShellExecution","command":"npm install x","cwd":"/p"})");
  ASSERT_TRUE(cursor.ok()) << cursor.error();
  EXPECT_FALSE(cursor->host_has_gate);
  auto claude = ParseHostInput(Host::kClaude,
                               R"({"tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/p"})");
  ASSERT_TRUE(claude.ok());
  EXPECT_TRUE(claude->host_has_gate);
}

TEST(HostAnswer, NoticeGoesToThePerson) {
  const auto allow = MakeDecision(rules::Permission::kAllow, "togmal L1: writes", "togmal L1: n");
  EXPECT_EQ(Parse(HostAnswer(Host::kGemini, allow))["systemMessage"], "togmal L1: n");
  json cursor = Parse(HostAnswer(Host::kCursor, allow, "beforeShellExecution"));
  EXPECT_EQ(cursor["permission"], "allow");
  EXPECT_EQ(cursor["user_message"], "togmal L1: n");
}

TEST(HostAnswer, CursorFileReadsCannotAskSoTheyAreRefused) {
  const auto ask = MakeDecision(rules::Permission::kAsk, "togmal L2: .env");
  EXPECT_EQ(Parse(HostAnswer(Host::kCursor, ask, "beforeReadFile"))["permission"], "deny");
  EXPECT_EQ(Parse(HostAnswer(Host::kCursor, ask, "beforeShellExecution"))["permission"], "ask");
}

TEST(HostAnswer, LastResortIsValidAndNeverAnAllow) {
  for (std::string_view name : HostNames()) {
    const std::string text(LastResortAnswer(*HostNamed(name)));
    json out = Parse(text);
    EXPECT_EQ(out.dump().find("allow"), std::string::npos) << name;
    EXPECT_NE(out.dump().find("ask"), std::string::npos) << name;
  }
}

TEST(HostAnswer, TheFixedSignalAnswerIsWhatHostAnswerWouldWrite) {
  // Fixed text so that nothing is formatted before the hook can be stopped;
  // it must not drift from the answer the same error gets any other way.
  const rules::Decision stopped = rules::ErrorDecision({}, kStoppedBySignal);
  for (std::string_view name : HostNames()) {
    const Host host = *HostNamed(name);
    EXPECT_EQ(StoppedBySignalAnswer(host), HostAnswer(host, stopped)) << name;
  }
}

}  // namespace
}  // namespace togmal::hook
