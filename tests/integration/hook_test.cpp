// `togmal hook` through the real binary, fed exactly what Claude Code writes
// to a PreToolUse command hook's stdin (docs/hosts.md, Claude Code).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
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

class HookProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    fs::create_directories(root_ / "proj/src");
    env_ = {{"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"XDG_CONFIG_HOME", (root_ / "config").string()},
            {"XDG_DATA_HOME", (root_ / "data").string()},
            {"TOGMAL_LOG", std::nullopt}};
  }

  json Event(const std::string& tool, const json& input) const {
    return {{"session_id", "9f3c2a7e-1b2d-4c5e-8f90-123456789abc"},
            {"transcript_path", (root_ / "transcript.jsonl").string()},
            {"cwd", (root_ / "proj").string()},
            {"permission_mode", "default"},
            {"hook_event_name", "PreToolUse"},
            {"tool_name", tool},
            {"tool_input", input},
            {"tool_use_id", "toolu_01ABCDEF"}};
  }

  // Runs the hook; checks the contract every answer must keep.
  json Hook(const std::string& stdin_text) {
    auto result = RunProcess({TogmalBinary(), "hook"}, stdin_text, env_, std::chrono::seconds(60));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_FALSE(result.out.empty());
    EXPECT_EQ(result.out.find('\n'), result.out.size() - 1) << "exactly one line: " << result.out;
    json out = json::parse(result.out, nullptr, false);
    EXPECT_TRUE(out.is_object()) << result.out;
    if (!out.is_object()) return json::object();
    // pass: no decision at all, so Claude Code's own permission system decides.
    if (out.empty()) return out;
    const json& specific = out["hookSpecificOutput"];
    EXPECT_EQ(specific["hookEventName"], "PreToolUse");
    EXPECT_TRUE(specific["permissionDecision"] == "allow" ||
                specific["permissionDecision"] == "ask" ||
                specific["permissionDecision"] == "deny");
    EXPECT_TRUE(specific["permissionDecisionReason"].is_string());
    for (const auto& [key, value] : out.items()) {
      EXPECT_TRUE(key == "hookSpecificOutput" || key == "systemMessage") << "unexpected " << key;
    }
    return out;
  }

  static std::string Decision(const json& out) {
    if (out.empty()) return "pass";
    return out["hookSpecificOutput"].value("permissionDecision", "");
  }
  static std::string Reason(const json& out) {
    return out["hookSpecificOutput"].value("permissionDecisionReason", "");
  }

  std::vector<store::AuditEntry> Audit() {
    auto db = store::Database::Open(root_ / "togmal.db");
    EXPECT_TRUE(db.ok()) << (db.ok() ? "" : db.error());
    if (!db.ok()) return {};
    store::AuditLog log(*db);
    auto verify = log.Verify();
    EXPECT_TRUE(verify.ok() && verify->ok);
    auto tail = log.Tail(1000);
    return tail.ok() ? *tail : std::vector<store::AuditEntry>{};
  }

  testing::TempDir dir_;
  fs::path root_;
  testing::EnvChanges env_;
};

TEST_F(HookProcess, BashListingIsAllowed) {
  json out = Hook(Event("Bash", {{"command", "ls -la src"}, {"description", "List files"}}).dump());
  EXPECT_EQ(Decision(out), "allow") << out.dump();
  EXPECT_EQ(Reason(out).rfind("togmal L0: ", 0), 0u);
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].tool_name, "Bash");
  EXPECT_EQ(audit[0].decision, "allow");
}

TEST_F(HookProcess, BashDestroyingHomeIsDenied) {
  json out = Hook(Event("Bash", {{"command", "rm -rf ~"}, {"timeout", 120000}}).dump());
  EXPECT_EQ(Decision(out), "deny");
  EXPECT_EQ(Reason(out).rfind("togmal L3: ", 0), 0u) << Reason(out);
}

// Without HOME (and XDG_*), the working directory is the project, which the
// agent writes: it must never become the user's configuration layer.
TEST_F(HookProcess, WithoutHomeTheProjectIsNotTheUserLayer) {
  const fs::path project = root_ / "proj";
  fs::create_directories(project / ".config/togmal");
  std::ofstream(project / ".config/togmal/settings.yaml")
      << "hook:\n  levels: {L0: allow, L1: allow, L2: allow, L3: allow}\n";
  env_["HOME"] = std::nullopt;
  env_["XDG_CONFIG_HOME"] = std::nullopt;
  env_["XDG_DATA_HOME"] = std::nullopt;
  const std::string call = Event("Bash", {{"command", "rm -rf ~"}}).dump();
  auto result = RunProcess({"env", "-C", project.string(), TogmalBinary(), "hook"}, call, env_,
                           std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"deny\""), std::string::npos) << result.out << result.err;

  // A user the password database does not know has no home at all: no user
  // layer, and no database under the project either (the hook asks instead).
  if (::geteuid() != 0 || !fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "needs root and setpriv";
  fs::permissions(root_, fs::perms::all, fs::perm_options::add);
  fs::permissions(project, fs::perms::all, fs::perm_options::add);
  env_["TOGMAL_DB"] = std::nullopt;
  const std::string listing = Event("Bash", {{"command", "ls"}}).dump();
  result = RunProcess({"env", "-C", project.string(), "setpriv", "--reuid=54321", "--regid=54321",
                       "--clear-groups", TogmalBinary(), "hook"},
                      listing, env_, std::chrono::seconds(60));
  if (result.exit_code == 126 || result.exit_code == 127) {
    GTEST_SKIP() << "the binary is not reachable by another user: " << result.err;
  }
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("\"ask\""), std::string::npos) << result.out << result.err;
  EXPECT_FALSE(fs::exists(project / ".local")) << "a database under the project";
}

TEST_F(HookProcess, WriteInsideTheProjectIsAllowedSilentlyUnlessNoticesAreAskedFor) {
  const json write = Event("Write", {{"file_path", (root_ / "proj/src/main.py").string()},
                                     {"content", "print('hi')\n"}});
  json out = Hook(write.dump());
  EXPECT_EQ(Decision(out), "allow") << out.dump();
  EXPECT_FALSE(out.contains("systemMessage")) << "L1 notices are opt-in";
  fs::create_directories(root_ / "config/togmal");
  std::ofstream(root_ / "config/togmal/settings.yaml") << "hook:\n  levels: {L1: notice}\n";
  out = Hook(write.dump());
  EXPECT_EQ(Decision(out), "allow") << out.dump();
  ASSERT_TRUE(out.contains("systemMessage"));
  EXPECT_EQ(out["systemMessage"].get<std::string>().rfind("togmal L1: ", 0), 0u);
}

// L2 is left to Claude Code's own permission system (the person's rules and
// mode); where that would not ask a person, togmal asks.
TEST_F(HookProcess, ReadingDotEnvIsNeverAutoApproved) {
  json read = Event("Read", {{"file_path", (root_ / "proj/.env").string()}});
  EXPECT_EQ(Decision(Hook(read.dump())), "pass");
  read["permission_mode"] = "bypassPermissions";
  json out = Hook(read.dump());
  EXPECT_EQ(Decision(out), "ask") << out.dump();
  EXPECT_NE(Reason(out).find(".env"), std::string::npos);
  EXPECT_NE(Reason(out).find("bypassPermissions"), std::string::npos) << Reason(out);
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 2u);
  EXPECT_EQ(audit[0].decision, "pass");
  EXPECT_EQ(audit[1].decision, "ask") << "the audit trail records what the host got";
}

TEST_F(HookProcess, McpToolOfAnotherServerIsLeftToTheHost) {
  json call = Event("mcp__github__create_pull_request",
                    {{"owner", "o"}, {"repo", "r"}, {"title", "t"}, {"head", "h"}});
  EXPECT_EQ(Decision(Hook(call.dump())), "pass");
  call["permission_mode"] = "dontAsk";
  EXPECT_EQ(Decision(Hook(call.dump())), "ask");
}

TEST_F(HookProcess, TogmalsOwnToolsAndTheAgentsBookkeepingRunWithoutAPrompt) {
  for (const auto& [tool, input] : std::vector<std::pair<std::string, json>>{
           {"mcp__togmal__togmal_analyze_prompt", {{"prompt", "is this safe?"}}},
           {"mcp__plugin_togmal_togmal__togmal_get_statistics", json::object()},
           {"TaskCreate", {{"subject", "write tests"}, {"description", "unit tests"}}},
           {"TaskUpdate", {{"taskId", "1"}, {"status", "completed"}}},
           {"TodoWrite", {{"todos", json::array()}}},
           {"Agent", {{"description", "explore"}, {"prompt", "find the parser"}}},
           {"Skill", {{"skill", "pdf"}}},
           {"ExitPlanMode", {{"plan", "1. do it"}}}}) {
    json out = Hook(Event(tool, input).dump());
    EXPECT_EQ(Decision(out), "allow") << tool << ": " << out.dump();
  }
}

TEST_F(HookProcess, MalformedStdinAsksWithTheError) {
  json out = Hook("{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": ");
  EXPECT_EQ(Decision(out), "ask");
  EXPECT_NE(Reason(out).find("not valid JSON"), std::string::npos) << Reason(out);
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].decision, "ask");
}

TEST_F(HookProcess, EmptyStdinAsks) {
  json out = Hook("");
  EXPECT_EQ(Decision(out), "ask");
  EXPECT_NE(Reason(out).find("empty"), std::string::npos);
}

TEST_F(HookProcess, OnErrorDenyIsHonoured) {
  fs::create_directories(root_ / "config/togmal");
  std::ofstream(root_ / "config/togmal/settings.yaml") << "hook:\n  on_error: deny\n";
  EXPECT_EQ(Decision(Hook("[]")), "deny");
}

TEST_F(HookProcess, AuditSyncSettingKeepsEveryEntry) {
  // audit.sync only decides when entries are forced to the disk: with full,
  // normal, or a value the hook cannot read (then full, and a warning on
  // stderr), every call is answered and recorded.
  fs::create_directories(root_ / "config/togmal");
  const json call = Event("Bash", {{"command", "git status"}});
  // A value it cannot read makes the settings file broken: nothing is
  // auto-approved until it is fixed.
  for (const char* sync : {"full", "normal", "sometimes"}) {
    std::ofstream(root_ / "config/togmal/settings.yaml") << "audit:\n  sync: " << sync << "\n";
    auto result = RunProcess({TogmalBinary(), "hook"}, call.dump(), env_, std::chrono::seconds(60));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(Decision(json::parse(result.out)), std::string(sync) == "sometimes" ? "ask" : "allow")
        << sync;
    EXPECT_EQ(result.err.find("audit.sync") != std::string::npos, std::string(sync) == "sometimes")
        << sync << ": " << result.err;
  }
  EXPECT_EQ(Audit().size(), 3u);
}

TEST_F(HookProcess, OneMegabyteCommandIsJudged) {
  // A generous budget: this checks the verdict, not the speed (sanitizer builds).
  fs::create_directories(root_ / "config/togmal");
  std::ofstream(root_ / "config/togmal/settings.yaml") << "hook:\n  budget_ms: 60000\n";
  std::string command = "echo " + std::string(1 << 20, 'a') + " && rm -rf /";
  auto started = std::chrono::steady_clock::now();
  json out = Hook(Event("Bash", {{"command", command}}).dump());
  auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(Decision(out), "deny") << Reason(out).substr(0, 300);
  EXPECT_LT(Reason(out).size(), 2000u) << "the reason must not carry the whole command";
  EXPECT_LT(took, std::chrono::seconds(45));  // quadratic would be hours; ~0.1 s in release
}

TEST_F(HookProcess, UserAndProjectRulesApply) {
  fs::create_directories(root_ / "config/togmal");
  std::ofstream(root_ / "config/togmal/rules.yaml")
      << "rules:\n  - id: allow-make\n    conditions: {tool_name: Bash, command: '^make\\b'}\n"
         "    action: ALLOW\n    reason: Builds are fine.\n";
  fs::create_directories(root_ / "proj/.togmal");
  std::ofstream(root_ / "proj/.togmal/rules.yaml")
      << "rules:\n  - id: no-deploy\n    priority: 1\n    conditions: {command: 'make\\s+deploy'}\n"
         "    action: DENY\n    reason: Deploys go through CI.\n"
         "  - {id: sneaky, priority: 0, conditions: {}, action: ALLOW}\n";
  json build = Hook(Event("Bash", {{"command", "make -j4"}}).dump());
  EXPECT_EQ(Decision(build), "allow") << Reason(build);
  EXPECT_NE(Reason(build).find("allow-make (user)"), std::string::npos) << Reason(build);
  json deploy = Hook(Event("Bash", {{"command", "make deploy"}}).dump());
  EXPECT_EQ(Decision(deploy), "deny") << Reason(deploy);
  EXPECT_NE(Reason(deploy).find("no-deploy (project)"), std::string::npos);
  json rm = Hook(Event("Bash", {{"command", "rm -rf /"}}).dump());
  EXPECT_EQ(Decision(rm), "deny") << "the project's ALLOW-everything rule is ignored";
}

TEST_F(HookProcess, InputThatNeverEndsIsAnsweredWithinTheBudget) {
  // Claude Code lets a call through when its hook hangs: past hook.budget_ms
  // the watchdog answers on_error's decision and records why.
  fs::create_directories(root_ / "config/togmal");
  std::ofstream(root_ / "config/togmal/settings.yaml") << "hook:\n  budget_ms: 300\n";
  testing::ChildProcess hook({TogmalBinary(), "hook"}, env_);
  ASSERT_TRUE(hook.Send(R"({"tool_name": "Bash", "tool_input": {"command": )"));  // no EOF
  auto line = hook.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(line.has_value()) << "no answer: " << hook.Stderr();
  json out = json::parse(*line);
  EXPECT_EQ(Decision(out), "ask");
  EXPECT_NE(Reason(out).find("no decision within 300 ms"), std::string::npos) << Reason(out);
  EXPECT_EQ(hook.Wait(std::chrono::seconds(20)), 0);
  auto audit = Audit();
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].source, "error");

  std::ofstream(root_ / "config/togmal/settings.yaml")
      << "hook:\n  budget_ms: 300\n  on_error: deny\n";
  testing::ChildProcess strict({TogmalBinary(), "hook"}, env_);
  auto denied = strict.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(denied.has_value());
  EXPECT_EQ(Decision(json::parse(*denied)), "deny");
  strict.Wait(std::chrono::seconds(20));
}

TEST_F(HookProcess, AnAnswerThatCannotBeWrittenExitsTwo) {
  // Exit 2 with the reason on stderr is Claude Code's "block".
  auto result =
      RunProcess({"sh", "-c", "exec \"$0\" hook >&-", TogmalBinary()},
                 Event("Bash", {{"command", "ls"}}).dump(), env_, std::chrono::seconds(60));
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_NE(result.err.find("could not write the decision"), std::string::npos) << result.err;
}

TEST_F(HookProcess, ConfigFilesThatAreNotRegularFilesDoNotHangTheHook) {
  fs::create_directories(root_ / "config/togmal");
  for (const char* name : {"rules.yaml", "settings.yaml", "classifier.yaml"}) {
    ASSERT_EQ(::mkfifo((root_ / "config/togmal" / name).c_str(), 0600), 0) << name;
  }
  fs::create_directories(root_ / "proj/.togmal");
  fs::create_symlink("/dev/zero", root_ / "proj/.togmal/rules.yaml");
  json out = Hook(Event("Bash", {{"command", "rm -rf /"}}).dump());
  EXPECT_EQ(Decision(out), "deny") << Reason(out);
  // Files that cannot be read are broken files: nothing is auto-approved.
  json listing = Hook(Event("Bash", {{"command", "ls"}}).dump());
  EXPECT_EQ(Decision(listing), "ask") << Reason(listing);
  EXPECT_NE(Reason(listing).find("is not a regular file"), std::string::npos) << Reason(listing);
}

// A project file that cannot be loaded may have held the rule that stops a
// call: in its project nothing is auto-approved until it is fixed, and the
// reason names file:line. The layers that did load keep deciding.
TEST_F(HookProcess, ABrokenProjectRulesFileAsksInItsProjectUntilFixed) {
  struct Broken {
    const char* what;
    std::string text;
    std::string where;  // expected in the reason, after the file's path
  };
  const Broken cases[] = {
      {"tabs", "rules:\n\t- id: no-ls\n\t  conditions: {command: '^ls'}\n\t  action: DENY\n",
       ":2:"},
      {"a duplicate key",
       "rules:\n  - id: no-ls\n    conditions: {command: '^ls'}\n    action: ASK\n"
       "    action: DENY\n",
       ":5: duplicate key \"action\" (also at "},
      {"an unknown action",
       "rules:\n  - id: no-ls\n    conditions: {command: '^ls'}\n    action: FORBID\n",
       ":4: rule no-ls: action must be"},
  };
  const fs::path file = root_ / "proj/.togmal/rules.yaml";
  fs::create_directories(file.parent_path());
  fs::create_directories(root_ / "elsewhere");
  for (const Broken& broken : cases) {
    std::ofstream(file) << broken.text;
    json listing = Hook(Event("Bash", {{"command", "ls -la"}}).dump());
    EXPECT_EQ(Decision(listing), "ask") << broken.what << ": " << listing.dump();
    EXPECT_NE(Reason(listing).find(file.string() + broken.where), std::string::npos)
        << broken.what << ": " << Reason(listing);
    json removal = Hook(Event("Bash", {{"command", "rm -rf /"}}).dump());
    EXPECT_EQ(Decision(removal), "deny") << broken.what << ": " << Reason(removal);

    // Only its project: a call elsewhere is judged as before.
    json outside = Event("Bash", {{"command", "ls -la"}});
    outside["cwd"] = (root_ / "elsewhere").string();
    EXPECT_EQ(Decision(Hook(outside.dump())), "allow") << broken.what;

    // What-if questions and the doctor say the same.
    auto checked = RunProcess(
        {TogmalBinary(), "check", "--json", "--cwd", (root_ / "proj").string(), "ls -la"}, "", env_,
        std::chrono::seconds(60));
    EXPECT_EQ(json::parse(checked.out, nullptr, false).value("decision", ""), "ask")
        << broken.what << ": " << checked.out << checked.err;
    auto explained = RunProcess({TogmalBinary(), "rules", "explain", "--tool", "Bash", "--input",
                                 R"({"command": "ls -la"})", "--cwd", (root_ / "proj").string()},
                                "", env_, std::chrono::seconds(60));
    EXPECT_NE(explained.out.find("decision:   ask"), std::string::npos)
        << broken.what << ": " << explained.out << explained.err;
    auto doctor = RunProcess({TogmalBinary(), "doctor", "--dir", (root_ / "proj").string()}, "",
                             env_, std::chrono::seconds(60));
    EXPECT_EQ(doctor.exit_code, 1);
    EXPECT_NE(doctor.out.find("PROBLEM  rules left out: " + file.string() + broken.where),
              std::string::npos)
        << broken.what << ": " << doctor.out;
  }
  // Each decision records the file it was made without.
  auto audit = Audit();
  ASSERT_FALSE(audit.empty());
  EXPECT_NE(audit[0].detail["config_ignored"].dump().find(file.string()), std::string::npos);

  std::ofstream(file) << "rules:\n  - {id: no-ls, conditions: {command: '^ls'}, action: DENY}\n";
  EXPECT_EQ(Decision(Hook(Event("Bash", {{"command", "ls -la"}}).dump())), "deny");
  std::ofstream(file) << "rules: []\n";
  EXPECT_EQ(Decision(Hook(Event("Bash", {{"command", "ls -la"}}).dump())), "allow")
      << "fixed: auto-approval is back";
}

// A broken user settings file stops auto-approval everywhere.
TEST_F(HookProcess, ABrokenUserSettingsFileAsksEverywhere) {
  const fs::path file = root_ / "config/togmal/settings.yaml";
  fs::create_directories(file.parent_path());
  for (const char* text : {"hook:\n  levels: {L3: allow\n",                  // does not parse
                           "hook:\n  on_error: deny\n  on_error: ask\n",     // a repeated key
                           "hook:\n  levels: {L0: allow, L3: permit}\n"}) {  // not a value
    std::ofstream(file) << text;
    for (const fs::path& cwd : {root_ / "proj", root_}) {
      json listing = Event("Bash", {{"command", "ls -la"}});
      listing["cwd"] = cwd.string();
      json out = Hook(listing.dump());
      EXPECT_EQ(Decision(out), "ask") << text << out.dump();
      EXPECT_NE(Reason(out).find(file.string() + ":"), std::string::npos) << Reason(out);
    }
    json mcp = Hook(Event("mcp__github__create_pull_request", {{"title", "t"}}).dump());
    EXPECT_EQ(Decision(mcp), "ask") << text << ": not left to the host either";
    EXPECT_EQ(Decision(Hook(Event("Bash", {{"command", "rm -rf /"}}).dump())), "deny") << text;
    auto doctor = RunProcess({TogmalBinary(), "doctor", "--dir", (root_ / "proj").string()}, "",
                             env_, std::chrono::seconds(60));
    EXPECT_NE(doctor.out.find("PROBLEM  settings left out: " + file.string() + ":"),
              std::string::npos)
        << text << ": " << doctor.out;
  }
}

TEST_F(HookProcess, ConcurrentHooksKeepOneAuditChain) {
  constexpr int kHooks = 8;
  std::vector<std::thread> threads;
  std::vector<int> exit_codes(kHooks, -1);
  std::string input = Event("Bash", {{"command", "git status"}}).dump();
  for (int i = 0; i < kHooks; ++i) {
    threads.emplace_back([&, i] {
      exit_codes[static_cast<std::size_t>(i)] =
          RunProcess({TogmalBinary(), "hook"}, input, env_, std::chrono::seconds(60)).exit_code;
    });
  }
  for (auto& thread : threads) thread.join();
  for (int code : exit_codes) EXPECT_EQ(code, 0);
  EXPECT_EQ(Audit().size(), static_cast<std::size_t>(kHooks));
}

// After the call: Claude Code's PostToolUse and PostToolBatch events, sent to
// the same command, record what became of a call togmal passed, and print
// nothing (they must never block or change the call).
TEST_F(HookProcess, WhatBecameOfAPassedCallIsRecordedAndNothingIsPrinted) {
  json ran = Event("Bash", {{"command", "npm install left-pad"}});
  EXPECT_EQ(Decision(Hook(ran.dump())), "pass");
  json refused = Event("Bash", {{"command", "npm install right-pad"}});
  refused["tool_use_id"] = "toolu_02REFUSED";
  EXPECT_EQ(Decision(Hook(refused.dump())), "pass");

  json after = ran;
  after["hook_event_name"] = "PostToolUse";
  after["tool_response"] = {{"stdout", "added 1 package"}, {"stderr", ""}};
  json batch = {
      {"session_id", ran["session_id"]},
      {"cwd", ran["cwd"]},
      {"hook_event_name", "PostToolBatch"},
      {"tool_calls", json::array({{{"tool_name", "Bash"},
                                   {"tool_input", ran["tool_input"]},
                                   {"tool_use_id", ran["tool_use_id"]},
                                   {"tool_response", "added 1 package"}},
                                  {{"tool_name", "Bash"},
                                   {"tool_input", refused["tool_input"]},
                                   {"tool_use_id", "toolu_02REFUSED"},
                                   {"tool_response", "This command requires approval"}}})}};
  for (const json& event : {after, batch}) {
    auto result =
        RunProcess({TogmalBinary(), "hook"}, event.dump(), env_, std::chrono::seconds(60));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(result.out, "") << "an after-the-call event is not answered";
  }
  std::vector<std::pair<std::string, std::string>> outcomes;
  for (const store::AuditEntry& entry : Audit()) {
    if (entry.kind == store::AuditKind::kOutcome) {
      outcomes.emplace_back(entry.detail.value("tool_use_id", ""), entry.decision);
      EXPECT_EQ(entry.detail.value("decided", ""), "pass");
    }
  }
  EXPECT_EQ(outcomes, (std::vector<std::pair<std::string, std::string>>{
                          {"toolu_01ABCDEF", "ran"}, {"toolu_02REFUSED", "refused"}}));
  auto verify = RunProcess({TogmalBinary(), "audit", "verify"}, "", env_, std::chrono::seconds(60));
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

}  // namespace
}  // namespace togmal
