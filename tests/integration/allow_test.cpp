// Allow codes through the real binary, as a user meets them: the hook denies
// and names a code, `togmal allow CODE` (once, --for, --always) lets exactly
// that call through, `--list` and `--revoke` manage the grants, every step is
// in the audit trail, and the agent itself cannot run `togmal allow`.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "process.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::RunProcess;
using testing::TogmalBinary;

class AllowCodes : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    fs::create_directories(root_ / "proj");
    env_ = {{"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"HOME", root_.string()},
            {"XDG_CONFIG_HOME", (root_ / "config").string()},
            {"XDG_DATA_HOME", (root_ / "data").string()},
            {"TOGMAL_LOG", std::nullopt}};
  }

  std::string Event(const std::string& command, const std::string& cwd = "") const {
    json event = {{"session_id", "9f3c2a7e-1b2d-4c5e-8f90-123456789abc"},
                  {"transcript_path", (root_ / "t.jsonl").string()},
                  {"cwd", cwd.empty() ? (root_ / "proj").string() : cwd},
                  {"permission_mode", "default"},
                  {"hook_event_name", "PreToolUse"},
                  {"tool_name", "Bash"},
                  {"tool_input", {{"command", command}}},
                  {"tool_use_id", "toolu_01"}};
    return event.dump();
  }

  // Claude Code's Bash call with the agent's description of it.
  std::string Described(const std::string& command, const std::string& description) const {
    json event = json::parse(Event(command));
    event["tool_input"]["description"] = description;
    return event.dump();
  }

  // The decision and reason the hook gives.
  std::pair<std::string, std::string> Hook(const std::string& event) {
    auto result = RunProcess({TogmalBinary(), "hook"}, event, env_, std::chrono::seconds(60));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    json out = json::parse(result.out, nullptr, false);
    EXPECT_TRUE(out.is_object()) << result.out;
    if (!out.is_object()) return {};
    return {out["hookSpecificOutput"].value("permissionDecision", ""),
            out["hookSpecificOutput"].value("permissionDecisionReason", "")};
  }

  testing::ProcessOutput Allow(std::vector<std::string> args) {
    args.insert(args.begin(), {TogmalBinary(), "allow"});
    return RunProcess(args, "", env_, std::chrono::seconds(60));
  }

  static std::string CodeOf(const std::string& reason) {
    std::string code;
    EXPECT_TRUE(RE2::PartialMatch(reason, R"(\(togmal allow ([0-9A-Z]{4})\)$)", &code)) << reason;
    return code;
  }

  std::vector<store::AuditEntry> Audit() {
    auto db = store::Database::Open(root_ / "togmal.db");
    EXPECT_TRUE(db.ok());
    if (!db.ok()) return {};
    store::AuditLog log(*db);
    auto verify = log.Verify();
    EXPECT_TRUE(verify.ok() && verify->ok);
    auto tail = log.Tail(1000);
    EXPECT_TRUE(tail.ok());
    return tail.ok() ? *tail : std::vector<store::AuditEntry>{};
  }

  testing::TempDir dir_;
  fs::path root_;
  testing::EnvChanges env_;
};

TEST_F(AllowCodes, OnceLetsExactlyThatCallThroughOneTime) {
  const std::string event = Event("rm -rf ~/project");
  auto [decision, reason] = Hook(event);
  ASSERT_EQ(decision, "deny");
  const std::string code = CodeOf(reason);

  auto granted = Allow({code});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  EXPECT_NE(granted.out.find("rm -rf ~/project"), std::string::npos) << granted.out;
  // The same command in another directory is another call.
  EXPECT_EQ(Hook(Event("rm -rf ~/project", root_.string())).first, "deny");
  auto [once, once_reason] = Hook(event);
  EXPECT_EQ(once, "allow");
  EXPECT_NE(once_reason.find("togmal allow " + code), std::string::npos);
  EXPECT_EQ(Hook(event).first, "deny");

  std::vector<store::AuditEntry> audit = Audit();
  int grants = 0, let_through = 0;
  for (const store::AuditEntry& entry : audit) {
    if (entry.kind == store::AuditKind::kConfigChange && entry.decision == "grant") ++grants;
    if (entry.detail.contains("allowed_by")) ++let_through;
  }
  EXPECT_EQ(grants, 1);
  EXPECT_EQ(let_through, 1);
}

TEST_F(AllowCodes, ForExpiresAndRevokeEndsItEarly) {
  const std::string event = Event("git push --force origin main");
  auto [decision, reason] = Hook(event);
  ASSERT_NE(decision, "allow");
  const std::string code = CodeOf(reason);
  std::string lower = code;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  ASSERT_EQ(Allow({lower, "--for", "2s"}).exit_code, 0);
  EXPECT_EQ(Hook(event).first, "allow");
  EXPECT_EQ(Hook(event).first, "allow");
  std::this_thread::sleep_for(std::chrono::milliseconds(2200));
  EXPECT_NE(Hook(event).first, "allow");

  ASSERT_EQ(Allow({code, "--for", "1h"}).exit_code, 0);
  auto listed = Allow({"--list"});
  EXPECT_NE(listed.out.find(code + "  until"), std::string::npos) << listed.out;
  EXPECT_EQ(Hook(event).first, "allow");
  ASSERT_EQ(Allow({"--revoke", code}).exit_code, 0);
  EXPECT_NE(Hook(event).first, "allow");
  EXPECT_NE(Allow({"--list"}).out.find("no active allow grants"), std::string::npos);
  EXPECT_EQ(Allow({code, "--for", "soon"}).exit_code, 64);
}

TEST_F(AllowCodes, AlwaysWritesAUserRuleThatRevokeRemoves) {
  const fs::path rules = root_ / "config/togmal/rules.yaml";
  fs::create_directories(rules.parent_path());
  const std::string mine =
      "# mine\nrules:\n  - {id: mine, conditions: {tool_name: Glob}, action: ASK}\n";
  std::ofstream(rules) << mine;
  const std::string event = Event("rm -rf ~/project");
  const std::string code = CodeOf(Hook(event).second);
  auto always = Allow({code, "--always"});
  ASSERT_EQ(always.exit_code, 0) << always.err;
  for (int i = 0; i < 2; ++i) EXPECT_EQ(Hook(event).first, "allow");
  // Only that command: the rule matches it exactly.
  EXPECT_EQ(Hook(Event("rm -rf ~/project2")).first, "deny");
  ASSERT_EQ(Allow({"--revoke", code}).exit_code, 0);
  std::stringstream text;
  text << std::ifstream(rules).rdbuf();
  EXPECT_EQ(text.str(), mine);
  EXPECT_EQ(Hook(event).first, "deny");
}

// A rule matches input values exactly: a nested value (MultiEdit's edits)
// cannot be, so --always refuses and nothing is written; --for still works.
TEST_F(AllowCodes, AlwaysRefusesInputARuleCannotMatchExactly) {
  json event = json::parse(Event("x"));
  event["tool_name"] = "MultiEdit";
  event["tool_input"] = {{"file_path", (root_ / "proj/.claude/settings.json").string()},
                         {"edits", json::array({{{"old_string", "a"}, {"new_string", "b"}}})}};
  auto [decision, reason] = Hook(event.dump());
  ASSERT_NE(decision, "allow") << reason;
  const std::string code = CodeOf(reason);
  auto always = Allow({code, "--always"});
  EXPECT_EQ(always.exit_code, 65) << always.out;
  EXPECT_NE(always.err.find("nested value (edits)"), std::string::npos) << always.err;
  EXPECT_FALSE(fs::exists(root_ / "config/togmal/rules.yaml"));
  ASSERT_EQ(Allow({code, "--for", "1h"}).exit_code, 0);
  EXPECT_EQ(Hook(event.dump()).first, "allow");
}

// The code names the action: the agent's two wordings of one command get one
// code, and a time grant lets both through (it used to stop at the next one).
TEST_F(AllowCodes, OneCodeForOneCommandHoweverItIsDescribed) {
  const std::string first = Described("rm -rf ~/project", "Remove the old project");
  const std::string second = Described("rm -rf ~/project", "Delete project folder to start over");
  auto [decision, reason] = Hook(first);
  ASSERT_EQ(decision, "deny");
  const std::string code = CodeOf(reason);
  EXPECT_EQ(CodeOf(Hook(second).second), code);
  ASSERT_EQ(Allow({code, "--for", "1h"}).exit_code, 0);
  EXPECT_EQ(Hook(first).first, "allow");
  EXPECT_EQ(Hook(second).first, "allow");
  EXPECT_EQ(Hook(Event("rm -rf ~/project")).first, "allow");
  EXPECT_EQ(Hook(Described("rm -rf ~/project2", "Remove the old project")).first, "deny");
}

// `togmal check` records no decision, yet the code it prints is one
// `togmal allow` accepts, and the grant is for the hook's call.
TEST_F(AllowCodes, ACodeFromTogmalCheckIsAccepted) {
  auto checked = RunProcess(
      {TogmalBinary(), "check", "--cwd", (root_ / "proj").string(), "--", "rm -rf ~/project"}, "",
      env_, std::chrono::seconds(60));
  ASSERT_EQ(checked.exit_code, 0) << checked.err;
  std::string code;
  ASSERT_TRUE(RE2::PartialMatch(checked.out, R"(\(togmal allow ([0-9A-Z]{4})\))", &code))
      << checked.out;
  auto granted = Allow({code});
  ASSERT_EQ(granted.exit_code, 0) << granted.err;
  EXPECT_NE(granted.out.find("rm -rf ~/project"), std::string::npos) << granted.out;
  EXPECT_EQ(Hook(Described("rm -rf ~/project", "Remove it")).first, "allow");
  EXPECT_EQ(Hook(Event("rm -rf ~/project")).first, "deny");  // spent
  // No decision was recorded for the question itself.
  for (const store::AuditEntry& entry : Audit()) {
    if (entry.kind == store::AuditKind::kDecision) {
      EXPECT_NE(entry.session, "cli");
    }
  }
}

// Granting one code twice makes one grant: the second says what is granted
// already, and a longer time extends the one grant.
TEST_F(AllowCodes, GrantingTwiceSaysSoOrExtends) {
  const std::string code = CodeOf(Hook(Event("rm -rf ~/project")).second);
  ASSERT_EQ(Allow({code}).exit_code, 0);
  auto again = Allow({code});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("already allowed once (not used yet)"), std::string::npos) << again.out;
  auto hour = Allow({code, "--for", "1h"});
  EXPECT_EQ(hour.exit_code, 0) << hour.err;
  EXPECT_NE(hour.out.find("extended: allowing until "), std::string::npos) << hour.out;
  auto shorter = Allow({code, "--for", "10m"});
  EXPECT_NE(shorter.out.find("already allowed until "), std::string::npos) << shorter.out;
  auto listed = Allow({"--list", "--all"});
  std::size_t lines = 0;
  for (char c : listed.out) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 1u) << listed.out;
  int grants = 0, extends = 0;
  for (const store::AuditEntry& entry : Audit()) {
    if (entry.kind != store::AuditKind::kConfigChange) continue;
    grants += entry.decision == "grant" ? 1 : 0;
    extends += entry.decision == "extend" ? 1 : 0;
  }
  EXPECT_EQ(grants, 1);
  EXPECT_EQ(extends, 1);
}

// --always writes a rule on what acts (the command), never on the agent's
// description; a second --always writes no second rule.
TEST_F(AllowCodes, AlwaysRuleMatchesTheCommandNotItsDescription) {
  const fs::path rules = root_ / "config/togmal/rules.yaml";
  const std::string code =
      CodeOf(Hook(Described("rm -rf ~/project", "Remove the old project")).second);
  auto always = Allow({code, "--always"});
  ASSERT_EQ(always.exit_code, 0) << always.err;
  std::stringstream text;
  text << std::ifstream(rules).rdbuf();
  EXPECT_EQ(text.str().find("description"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("command"), std::string::npos) << text.str();
  EXPECT_EQ(Hook(Described("rm -rf ~/project", "Start over")).first, "allow");
  EXPECT_EQ(Hook(Described("rm -rf ~/project2", "Remove the old project")).first, "deny");
  auto twice = Allow({code, "--always"});
  EXPECT_EQ(twice.exit_code, 0) << twice.err;
  EXPECT_NE(twice.out.find("already allowed always"), std::string::npos) << twice.out;
  std::stringstream after;
  after << std::ifstream(rules).rdbuf();
  EXPECT_EQ(after.str(), text.str());
}

TEST_F(AllowCodes, UnknownCodesAndTheAgentRunningAllowAreRefused) {
  auto unknown = Allow({"ZZZZ"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("ZZZZ"), std::string::npos);
  EXPECT_EQ(Allow({"not-a-code"}).exit_code, 64);
  EXPECT_EQ(Allow({"K7Q2", "--once", "--always"}).exit_code, 64);
  // The reason names the code for the person; the agent cannot use it.
  const std::string code = CodeOf(Hook(Event("rm -rf ~/project")).second);
  EXPECT_EQ(Hook(Event("togmal allow " + code)).first, "deny");
  EXPECT_EQ(Hook(Event("/usr/local/bin/togmal allow " + code + " --always")).first, "deny");
  EXPECT_EQ(Hook(Event("togmal uninstall claude-code")).first, "deny");
  EXPECT_EQ(Hook(Event("togmal allow --list")).first, "allow");
}

}  // namespace
}  // namespace togmal
