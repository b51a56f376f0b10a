// `togmal hook --host NAME` through the real binary, fed the JSON each agent
// host writes to its pre-tool hook: a call to deny, one to allow, and garbage
// (which must get the host's ask, never an allow). Every answer is recorded.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "process.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::RunProcess;
using testing::TogmalBinary;

class HookHosts : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    project_ = (root_ / "proj").string();
    fs::create_directories(root_ / "proj/src");
    env_ = {{"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"XDG_CONFIG_HOME", (root_ / "config").string()},
            {"XDG_DATA_HOME", (root_ / "data").string()},
            {"TOGMAL_LOG", std::nullopt}};
  }

  // Runs `togmal hook --host HOST`: exit 0 and one JSON line, always.
  json Hook(const std::string& host, const std::string& stdin_text) {
    auto result = RunProcess({TogmalBinary(), "hook", "--host", host}, stdin_text, env_,
                             std::chrono::seconds(60));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out.find('\n'), result.out.size() - 1) << "one line: " << result.out;
    json out = json::parse(result.out, nullptr, false);
    EXPECT_TRUE(out.is_object()) << result.out;
    return out.is_object() ? out : json::object();
  }

  size_t AuditEntries() {
    auto db = store::Database::Open(root_ / "togmal.db");
    if (!db.ok()) return 0;
    auto tail = store::AuditLog(*db).Tail(1000);
    return tail.ok() ? tail->size() : 0;
  }

  testing::TempDir dir_;
  fs::path root_;
  std::string project_;
  testing::EnvChanges env_;
};

TEST_F(HookHosts, Gemini) {
  auto event = [&](const std::string& tool, const json& input) {
    return json{{"session_id", "g-1"},
                {"transcript_path", "/tmp/t.json"},
                {"cwd", project_},
                {"hook_event_name", "BeforeTool"},
                {"timestamp", "2026-11-26T10:00:00.000Z"},
                {"tool_name", tool},
                {"tool_input", input}}
        .dump();
  };
  json deny = Hook("gemini", event("run_shell_command", {{"command", "rm -rf ~"}}));
  EXPECT_EQ(deny["decision"], "deny") << deny.dump();
  EXPECT_EQ(deny["reason"].get<std::string>().rfind("togmal L3: ", 0), 0u) << deny.dump();
  EXPECT_FALSE(deny.contains("hookSpecificOutput"));

  json allow = Hook("gemini", event("read_file", {{"file_path", project_ + "/src/main.c"}}));
  EXPECT_EQ(allow["decision"], "allow") << allow.dump();

  json garbage = Hook("gemini", "{\"tool_name\": ");
  EXPECT_EQ(garbage["decision"], "ask") << garbage.dump();
  EXPECT_NE(garbage["reason"].get<std::string>().find("JSON"), std::string::npos);

  // pass: no decision, Gemini's own confirmation decides.
  json pass = Hook("gemini", event("run_shell_command", {{"command", "npm install left-pad"}}));
  EXPECT_EQ(pass, json::object()) << pass.dump();
  EXPECT_EQ(AuditEntries(), 4u);
}

TEST_F(HookHosts, Codex) {
  auto event = [&](const std::string& tool, const json& input) {
    return json{{"session_id", "c-1"},      {"transcript_path", nullptr},
                {"cwd", project_},          {"hook_event_name", "PreToolUse"},
                {"model", "gpt-5-codex"},   {"permission_mode", "default"},
                {"tool_name", tool},        {"tool_input", input},
                {"tool_use_id", "call_abc"}}
        .dump();
  };
  json deny = Hook("codex", event("Bash", {{"command", "git push --force origin main"}}));
  EXPECT_EQ(deny["hookSpecificOutput"]["permissionDecision"], "deny") << deny.dump();

  json allow = Hook("codex", event("Bash", {{"command", "ls -la"}}));
  EXPECT_EQ(allow["hookSpecificOutput"]["permissionDecision"], "allow") << allow.dump();

  json garbage = Hook("codex", "not json at all");
  EXPECT_EQ(garbage["hookSpecificOutput"]["permissionDecision"], "ask") << garbage.dump();

  json pass = Hook("codex", event("Bash", {{"command", "npm install left-pad"}}));
  EXPECT_EQ(pass, json::object()) << pass.dump();
  EXPECT_EQ(AuditEntries(), 4u);
}

TEST_F(HookHosts, Copilot) {
  auto event = [&](const std::string& tool, const json& args) {
    return json{{"timestamp", 1764151200000},
                {"cwd", project_},
                {"toolName", tool},
                {"toolArgs", args.dump()}}
        .dump();
  };
  json deny = Hook("copilot", event("bash", {{"command", "rm -rf ~"}, {"description", "clean"}}));
  EXPECT_EQ(deny["permissionDecision"], "deny") << deny.dump();
  EXPECT_EQ(deny["permissionDecisionReason"].get<std::string>().rfind("togmal L3: ", 0), 0u);

  json allow = Hook("copilot", event("view", {{"path", project_ + "/src/main.c"}}));
  EXPECT_EQ(allow["permissionDecision"], "allow") << allow.dump();

  json garbage = Hook("copilot", R"({"toolName":"bash","toolArgs":"{not json"})");
  EXPECT_EQ(garbage["permissionDecision"], "ask") << garbage.dump();

  json pass = Hook("copilot", event("bash", {{"command", "npm install left-pad"}}));
  EXPECT_EQ(pass, json::object()) << pass.dump();
  EXPECT_EQ(AuditEntries(), 4u);
}

TEST_F(HookHosts, Cursor) {
  auto event = [&](const std::string& name, json fields) {
    fields["conversation_id"] = "conv-1";
    fields["generation_id"] = "gen-1";
    fields["hook_event_name"] = name;
    fields["workspace_roots"] = json::array({project_});
    return fields.dump();
  };
  json deny =
      Hook("cursor", event("beforeShellExecution", {{"command", "rm -rf ~"}, {"cwd", project_}}));
  EXPECT_EQ(deny["permission"], "deny") << deny.dump();
  EXPECT_EQ(deny["agent_message"].get<std::string>().rfind("togmal L3: ", 0), 0u);

  json allow =
      Hook("cursor", event("beforeShellExecution", {{"command", "ls"}, {"cwd", project_}}));
  EXPECT_EQ(allow["permission"], "allow") << allow.dump();

  // Reading .env would be asked; a file read cannot ask in Cursor.
  json env = Hook(
      "cursor", event("beforeReadFile", {{"file_path", project_ + "/.env"}, {"content", "KEY=1"}}));
  EXPECT_EQ(env["permission"], "deny") << env.dump();

  json garbage = Hook("cursor", event("somethingNew", json::object()));
  EXPECT_EQ(garbage["permission"], "ask") << garbage.dump();

  // Cursor has no documented "no decision": an L2 call is asked, and the
  // audit trail says ask, the answer Cursor got.
  json asked = Hook("cursor", event("beforeShellExecution",
                                    {{"command", "npm install left-pad"}, {"cwd", project_}}));
  EXPECT_EQ(asked["permission"], "ask") << asked.dump();
  EXPECT_EQ(AuditEntries(), 5u);
  auto db = store::Database::Open(root_ / "togmal.db");
  ASSERT_TRUE(db.ok());
  auto tail = store::AuditLog(*db).Tail(1);
  ASSERT_TRUE(tail.ok() && tail->size() == 1u);
  EXPECT_EQ(tail->front().decision, "ask");
}

TEST_F(HookHosts, OnErrorDenyHoldsForEveryHost) {
  fs::create_directories(root_ / "config/togmal");
  std::ofstream(root_ / "config/togmal/settings.yaml") << "hook:\n  on_error: deny\n";
  EXPECT_EQ(Hook("gemini", "")["decision"], "deny");
  EXPECT_EQ(Hook("copilot", "[]")["permissionDecision"], "deny");
  EXPECT_EQ(Hook("cursor", "{}")["permission"], "deny");
  EXPECT_EQ(Hook("codex", "")["hookSpecificOutput"]["permissionDecision"], "deny");
}

TEST_F(HookHosts, UnknownHostIsAUsageError) {
  auto result = RunProcess({TogmalBinary(), "hook", "--host", "vscode"}, "{}", env_);
  EXPECT_EQ(result.exit_code, 64);
  EXPECT_TRUE(result.out.empty());
  EXPECT_NE(result.err.find("unknown host 'vscode'"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("gemini"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace togmal
