#include "togmal/hook/pre_tool_use.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "process.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::hook {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// Each test gets its own config dir, project and database.
class PreToolUse : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    setenv("XDG_CONFIG_HOME", (root_ / "config").c_str(), 1);
    fs::create_directories(root_ / "proj");
    options_.database = root_ / "data/togmal.db";
  }
  void TearDown() override { unsetenv("XDG_CONFIG_HOME"); }

  json Run(const std::string& tool, const json& input) {
    json event = {{"session_id", "s-1"},
                  {"transcript_path", "/tmp/t.jsonl"},
                  {"cwd", (root_ / "proj").string()},
                  {"permission_mode", "default"},
                  {"hook_event_name", "PreToolUse"},
                  {"tool_name", tool},
                  {"tool_input", input},
                  {"tool_use_id", "toolu_1"}};
    return RunRaw(event.dump());
  }

  json RunRaw(const std::string& text) {
    std::string out = RunPreToolUse(text, options_);
    EXPECT_EQ(out.back(), '\n');
    EXPECT_EQ(out.find('\n'), out.size() - 1) << "one line only";
    return json::parse(out);
  }

  static std::string Decision(const json& out) {
    return out["hookSpecificOutput"]["permissionDecision"];
  }
  static std::string Reason(const json& out) {
    return out["hookSpecificOutput"]["permissionDecisionReason"];
  }

  std::vector<store::AuditEntry> Audit() {
    auto db = store::Database::Open(options_.database);
    EXPECT_TRUE(db.ok());
    if (!db.ok()) return {};
    store::AuditLog log(*db);
    auto tail = log.Tail(100);
    return tail.ok() ? *tail : std::vector<store::AuditEntry>{};
  }

  togmal::testing::TempDir dir_;
  fs::path root_;
  HookOptions options_;
};

TEST_F(PreToolUse, SafeCommandIsAllowedAndAudited) {
  json out = Run("Bash", {{"command", "ls -la"}});
  EXPECT_EQ(out["hookSpecificOutput"]["hookEventName"], "PreToolUse");
  EXPECT_EQ(Decision(out), "allow");
  EXPECT_EQ(Reason(out).rfind("togmal L0: ", 0), 0u) << Reason(out);
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].tool_name, "Bash");
  EXPECT_EQ(audit[0].decision, "allow");
  EXPECT_EQ(audit[0].session, "s-1");
  EXPECT_EQ(audit[0].source, "classifier");
}

TEST_F(PreToolUse, DestructiveCommandIsDenied) {
  json out = Run("Bash", {{"command", "rm -rf /"}});
  EXPECT_EQ(Decision(out), "deny");
  EXPECT_EQ(Reason(out).rfind("togmal L3: ", 0), 0u) << Reason(out);
}

TEST_F(PreToolUse, UserRuleDecidesBeforeTheLevel) {
  WriteFile(root_ / "config/togmal/rules.yaml",
            "rules:\n  - id: no-npm-publish\n    conditions: {tool_name: Bash, command: "
            "'^npm\\s+publish'}\n    action: DENY\n    reason: Releases go through CI.\n");
  json out = Run("Bash", {{"command", "cd pkg && npm publish"}});
  EXPECT_EQ(Decision(out), "deny");
  // The reason ends with the allow code (`togmal allow CODE`).
  std::string expected = "rule no-npm-publish (user): Releases go through CI. (togmal allow ";
  EXPECT_EQ(Reason(out).rfind("togmal L", 0), 0u) << Reason(out);
  EXPECT_NE(Reason(out).find(expected), std::string::npos) << Reason(out);
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].rule, "no-npm-publish");
  EXPECT_EQ(audit[0].source, "rule");
}

TEST_F(PreToolUse, ProjectRuleTightensButCannotLoosen) {
  WriteFile(root_ / "proj/.togmal/rules.yaml",
            "rules:\n"
            "  - {id: all-ok, priority: 1, conditions: {}, action: ALLOW}\n"
            "  - {id: review-ls, priority: 2, conditions: {command: '^ls'}, action: ASK, "
            "reason: ls needs review here}\n");
  json ls = Run("Bash", {{"command", "ls"}});
  EXPECT_EQ(Decision(ls), "ask");
  EXPECT_NE(Reason(ls).find("review-ls (project)"), std::string::npos) << Reason(ls);
  json rm = Run("Bash", {{"command", "rm -rf /"}});
  EXPECT_EQ(Decision(rm), "deny") << Reason(rm);
}

TEST_F(PreToolUse, SampleRuleAsksWithTheGuidance) {
  WriteFile(root_ / "config/togmal/rules.yaml",
            "rules:\n  - id: review-writes\n    conditions: {tool_name: Write}\n"
            "    action: SAMPLE\n    sampling_guidance: Check the file for credentials.\n");
  json out = Run("Write", {{"file_path", (root_ / "proj/a.txt").string()}, {"content", "x"}});
  EXPECT_EQ(Decision(out), "ask");
  EXPECT_NE(Reason(out).find("Check the file for credentials."), std::string::npos);
}

TEST_F(PreToolUse, L1IsAllowedSilently) {
  json out = Run("Write", {{"file_path", (root_ / "proj/notes.txt").string()}, {"content", "x"}});
  EXPECT_EQ(Decision(out), "allow") << out.dump();
  EXPECT_FALSE(out.contains("systemMessage")) << "L1 notices are opt-in: " << out.dump();
}

TEST_F(PreToolUse, MalformedInputAsksAndIsAudited) {
  json out = RunRaw("{not json");
  EXPECT_EQ(Decision(out), "ask");
  EXPECT_NE(Reason(out).find("not valid JSON"), std::string::npos) << Reason(out);
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].source, "error");
  EXPECT_EQ(audit[0].decision, "ask");
}

TEST_F(PreToolUse, OnErrorCanBeDeny) {
  WriteFile(root_ / "config/togmal/settings.yaml", "hook:\n  on_error: deny\n");
  EXPECT_EQ(Decision(RunRaw("")), "deny");
}

TEST_F(PreToolUse, BrokenRuleFileIsLeftOutAndRecordedNamingTheLine) {
  // A broken file cannot loosen the policy (it would turn deny into ask):
  // the built-in policy decides, nothing is auto-approved (the file may have
  // denied it), and the audit entry names the file.
  WriteFile(root_ / "config/togmal/rules.yaml", "rules:\n  - id: x\n    action: MAYBE\n");
  EXPECT_EQ(Decision(Run("Bash", {{"command", "ls"}})), "ask");
  EXPECT_EQ(Decision(Run("Bash", {{"command", "rm -rf /"}})), "deny");
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_NE(audit[0].detail["config_ignored"].dump().find("rules.yaml:3"), std::string::npos)
      << audit[0].detail.dump();
}

TEST_F(PreToolUse, BrokenProjectFileCannotTurnADenyIntoAnAsk) {
  WriteFile(root_ / "proj/.togmal/rules.yaml",
            "rules:\n  - {id: loosen, priority: 0, conditions: {command: '(x'}, action: ASK}\n");
  EXPECT_EQ(Decision(Run("Bash", {{"command", "rm -rf /"}})), "deny");
}

TEST_F(PreToolUse, BrokenSettingsLeaveTheBuiltinMapping) {
  WriteFile(root_ / "config/togmal/settings.yaml", "hook:\n  levels: {L3: maybe}\n");
  EXPECT_EQ(Decision(Run("Bash", {{"command", "rm -rf /"}})), "deny");
  WriteFile(root_ / "config/togmal/settings.yaml", "hook: [\n");
  EXPECT_EQ(Decision(Run("Bash", {{"command", "rm -rf /"}})), "deny");
}

TEST_F(PreToolUse, HostileInputIsRefusedAndAudited) {
  const std::string deep = R"({"tool_name":"Bash","tool_input":{"command":"ls","x":)" +
                           std::string(20000, '[') + std::string(20000, ']') + "}}";
  EXPECT_EQ(Decision(RunRaw(deep)), "ask");
  EXPECT_EQ(Decision(RunRaw(R"({"tool_name":"Bash","tool_input":{"command":"ls","n":1e400}})")),
            "ask");
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_EQ(audit[0].source, "error");
  EXPECT_EQ(audit[1].source, "error");
}

TEST_F(PreToolUse, UnwritableAuditTurnsAllowIntoAsk) {
  options_.database = root_ / "not-a-dir/togmal.db";
  WriteFile(root_ / "not-a-dir", "a file, so no database can be created below it");
  json out = Run("Bash", {{"command", "ls"}});
  EXPECT_EQ(Decision(out), "ask");
  EXPECT_NE(Reason(out).find("audit trail could not be written"), std::string::npos) << Reason(out);
  json deny = Run("Bash", {{"command", "rm -rf /"}});
  EXPECT_EQ(Decision(deny), "deny");
}

}  // namespace
}  // namespace togmal::hook
