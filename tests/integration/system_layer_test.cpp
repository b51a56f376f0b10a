// The system layer through the built binary, which reads it only at its
// build-time path (/etc/togmal): each test mounts its own folder there in a
// mount namespace (system_root.h). A user rule and a project rule cannot
// loosen a system deny or ask, in the hook, `togmal check` and `rules
// explain`; nothing in the agent's reach (HOME, XDG_CONFIG_HOME, a project's
// .togmal/, a variable naming another folder) changes which system layer is
// read; a system file others may write, or a broken one, stops
// auto-approval and doctor names it.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "process.h"
#include "system_root.h"

namespace togmal {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::ProcessOutput;
using testing::RunProcess;
using testing::TogmalBinary;

constexpr const char* kSystemRules =
    "rules:\n"
    "  - id: org-no-force-push\n"
    "    priority: 90\n"
    "    conditions: {command: 'git push.*--force'}\n"
    "    action: DENY\n"
    "    reason: force pushes are off for the whole organisation\n"
    "  - {id: org-ask-status, priority: 90, conditions: {command: '^git status'}, action: ASK}\n";

// What an agent could write: allow everything, in every file it can reach.
constexpr const char* kAllowAll =
    "rules:\n  - {id: agent-allows, priority: 1, conditions: {tool_name: Bash}, action: ALLOW}\n";

class SystemLayer : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string why = testing::SystemRootUnavailable(); !why.empty()) GTEST_SKIP() << why;
    root_ = dir_.path();
    system_ = root_ / "etc-togmal";
    claude_ = root_ / "etc-claude-code";
    fs::create_directories(system_);
    fs::create_directories(claude_);
    fs::create_directories(root_ / "scratch");
    fs::create_directories(root_ / "proj/.git");
    ::chmod(system_.c_str(), 0755);
    Write(system_ / "rules.yaml", kSystemRules);
    Write(root_ / "config/togmal/rules.yaml", kAllowAll);
    Write(root_ / "proj/.togmal/rules.yaml", kAllowAll);
    env_ = {{"HOME", (root_ / "home").string()},
            {"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"XDG_CONFIG_HOME", (root_ / "config").string()},
            {"XDG_DATA_HOME", (root_ / "data").string()},
            {"TOGMAL_LOG", std::nullopt}};
  }

  static void Write(const fs::path& file, const std::string& text, mode_t mode = 0644) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::trunc) << text;
    ::chmod(file.c_str(), mode);
  }

  ProcessOutput Togmal(const std::vector<std::string>& args, const std::string& input = "") {
    std::vector<std::string> argv = {TogmalBinary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(testing::InSystemRoot(root_ / "scratch", system_, claude_, argv), input, env_,
                      std::chrono::seconds(60));
  }

  // The hook's answer to a Bash call in the project: its decision and reason.
  std::pair<std::string, std::string> Hook(const std::string& command) {
    const json event = {{"session_id", "s1"},
                        {"transcript_path", (root_ / "t.jsonl").string()},
                        {"cwd", (root_ / "proj").string()},
                        {"permission_mode", "default"},
                        {"hook_event_name", "PreToolUse"},
                        {"tool_name", "Bash"},
                        {"tool_input", {{"command", command}}},
                        {"tool_use_id", "toolu_1"}};
    ProcessOutput out = Togmal({"hook"}, event.dump());
    EXPECT_EQ(out.exit_code, 0) << out.err;
    const json answer = json::parse(out.out, nullptr, false);
    if (!answer.is_object() || answer.empty()) return {"pass", ""};
    return {answer["hookSpecificOutput"].value("permissionDecision", ""),
            answer["hookSpecificOutput"].value("permissionDecisionReason", "")};
  }

  json Check(const std::string& command) {
    ProcessOutput out = Togmal({"check", "--json", "--cwd", (root_ / "proj").string(), command});
    const json parsed = json::parse(out.out, nullptr, false);
    EXPECT_TRUE(parsed.is_object()) << out.out << out.err;
    return parsed.is_object() ? parsed : json::object();
  }

  testing::TempDir dir_;
  fs::path root_, system_, claude_;
  testing::EnvChanges env_;
};

TEST_F(SystemLayer, UserAndProjectRulesCannotLoosenASystemDeny) {
  // The agent's allow-all decides what the system layer does not name.
  EXPECT_EQ(Hook("ls").first, "allow");
  auto [decision, reason] = Hook("git push --force origin main");
  EXPECT_EQ(decision, "deny") << reason;
  EXPECT_NE(reason.find("rule org-no-force-push (system)"), std::string::npos) << reason;
  EXPECT_NE(reason.find("togmal allow"), std::string::npos) << reason;  // the sentence about it
  const json checked = Check("git push --force origin main");
  EXPECT_EQ(checked.value("decision", ""), "deny") << checked.dump();

  ProcessOutput explain = Togmal({"rules", "explain", "--tool", "Bash", "--input",
                                  R"({"command": "git push --force origin main"})", "--cwd",
                                  (root_ / "proj").string()});
  EXPECT_NE(explain.out.find("decided by: rule org-no-force-push (system layer, " +
                             (fs::path(util::SystemConfigDir()) / "rules.yaml").string() + ":"),
            std::string::npos)
      << explain.out << explain.err;
  EXPECT_NE(explain.out.find("is a ceiling: user rule agent-allows"), std::string::npos)
      << explain.out;
}

TEST_F(SystemLayer, ServesCheckToolCallUnderTheSameCeiling) {
  testing::ChildProcess serve(
      testing::InSystemRoot(root_ / "scratch", system_, claude_, {TogmalBinary(), "serve"}), env_);
  auto call = [&serve](const json& message) -> json {
    EXPECT_TRUE(serve.Send(message.dump()));
    for (int i = 0; i < 100; ++i) {
      auto line = serve.ReadLine();
      if (!line) break;
      json reply = json::parse(*line, nullptr, false);
      if (reply.is_object() && reply.contains("id") && reply["id"] == message["id"]) return reply;
    }
    ADD_FAILURE() << "no reply to " << message.dump() << "\n" << serve.Stderr();
    return json::object();
  };
  call({{"jsonrpc", "2.0"},
        {"id", "init"},
        {"method", "initialize"},
        {"params",
         {{"protocolVersion", "2025-06-18"},
          {"capabilities", json::object()},
          {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}});
  EXPECT_TRUE(serve.Send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump()));
  json reply = call({{"jsonrpc", "2.0"},
                     {"id", 1},
                     {"method", "tools/call"},
                     {"params",
                      {{"name", "togmal_check_tool_call"},
                       {"arguments",
                        {{"tool_name", "Bash"},
                         {"tool_input", {{"command", "git push --force"}}},
                         {"cwd", (root_ / "proj").string()},
                         {"response_format", "json"}}}}}});
  const json& result = reply["result"]["structuredContent"];
  EXPECT_EQ(result.value("decision", ""), "deny") << reply.dump();
  EXPECT_EQ(result.value("rule_id", ""), "org-no-force-push") << reply.dump();
  serve.CloseStdin();
  EXPECT_EQ(serve.Wait(), 0);
}

TEST_F(SystemLayer, ASystemAskIsNotTurnedIntoAllowByAUserAllow) {
  auto [decision, reason] = Hook("git status");
  EXPECT_EQ(decision, "ask") << reason;
  EXPECT_NE(reason.find("org-ask-status"), std::string::npos) << reason;
}

TEST_F(SystemLayer, NothingInTheAgentsReachMovesTheSystemLayer) {
  // Decoys of the system files wherever the agent could write, and variables
  // that might name another folder: the one at the build-time path decides.
  const fs::path decoy = root_ / "decoy";
  Write(decoy / "rules.yaml", "rules: []\n");
  Write(decoy / "togmal/rules.yaml", "rules: []\n");
  Write(root_ / "proj/etc/togmal/rules.yaml", "rules: []\n");
  for (const auto& [name, value] : std::vector<std::pair<std::string, std::string>>{
           {"HOME", decoy.string()},
           {"XDG_CONFIG_HOME", decoy.string()},
           {"XDG_CONFIG_DIRS", decoy.string()},
           {"TOGMAL_SYSTEM_CONFIG_DIR", decoy.string()},
           {"TOGMAL_CONFIG_DIR", decoy.string()},
           {"TOGMAL_ETC", decoy.string()}}) {
    testing::EnvChanges saved = env_;
    env_[name] = value;
    EXPECT_EQ(Hook("git push --force").first, "deny") << name << "=" << value;
    env_ = saved;
  }
  // And the other way round: with no system file, no decoy becomes one.
  fs::remove(system_ / "rules.yaml");
  env_["XDG_CONFIG_HOME"] = (root_ / "config").string();
  for (const char* name : {"TOGMAL_SYSTEM_CONFIG_DIR", "XDG_CONFIG_DIRS"}) {
    Write(decoy / "rules.yaml", kSystemRules);
    env_[name] = decoy.string();
    EXPECT_EQ(Hook("git push --force").first, "allow") << name;
    env_[name] = std::nullopt;
  }
}

TEST_F(SystemLayer, AFileOthersMayWriteOrABrokenOneStopsAutoApprovalAndDoctorNamesIt) {
  const fs::path file = system_ / "rules.yaml";
  for (const auto& [what, text, mode] : std::vector<std::tuple<std::string, std::string, mode_t>>{
           {"world-writable", kSystemRules, mode_t{0666}},
           {"group-writable", kSystemRules, mode_t{0664}},
           {"broken", "rules:\n  - {id: x, conditions: {command: '(x'}, action: DENY}\n",
            mode_t{0644}}}) {
    Write(file, text, mode);
    auto [decision, reason] = Hook("ls");
    EXPECT_EQ(decision, "ask") << what << ": " << reason;
    EXPECT_NE(reason.find("nothing is auto-approved"), std::string::npos) << what << reason;
    ProcessOutput doctor = Togmal({"doctor", "--dir", (root_ / "proj").string()});
    EXPECT_EQ(doctor.exit_code, 1) << what;
    const std::string named =
        "PROBLEM  rules left out: " + (fs::path(util::SystemConfigDir()) / "rules.yaml").string();
    EXPECT_NE(doctor.out.find(named), std::string::npos) << what << "\n" << doctor.out;
  }
  // Settings too.
  Write(file, kSystemRules);
  Write(system_ / "settings.yaml", "hook: {levels: {L0: ask}}\n", 0666);
  EXPECT_EQ(Hook("ls").first, "ask");
  ProcessOutput doctor = Togmal({"doctor", "--dir", (root_ / "proj").string()});
  EXPECT_NE(doctor.out.find("PROBLEM  settings left out: " +
                            (fs::path(util::SystemConfigDir()) / "settings.yaml").string()),
            std::string::npos)
      << doctor.out;
}

TEST_F(SystemLayer, SystemSettingsAreACeilingAndDoctorShowsTheLayers) {
  Write(system_ / "settings.yaml", "hook: {levels: {L0: ask}}\n");
  Write(root_ / "config/togmal/settings.yaml", "hook: {levels: {L0: allow}}\n");
  fs::remove(root_ / "config/togmal/rules.yaml");
  fs::remove(root_ / "proj/.togmal/rules.yaml");
  EXPECT_EQ(Hook("ls").first, "ask");
  ProcessOutput doctor = Togmal({"doctor", "--dir", (root_ / "proj").string()});
  EXPECT_NE(doctor.out.find(
                "settings: " + (fs::path(util::SystemConfigDir()) / "settings.yaml").string() +
                " (system layer)"),
            std::string::npos)
      << doctor.out;
  EXPECT_NE(doctor.out.find((fs::path(util::SystemConfigDir()) / "rules.yaml").string() +
                            " (system layer)"),
            std::string::npos)
      << doctor.out;
}

}  // namespace
}  // namespace togmal
