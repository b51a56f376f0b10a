// `togmal install|uninstall` and `togmal statusline` through the real binary,
// against a temporary HOME with settings the person already had.
#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.h"
#include "togmal/store/database.h"

namespace togmal {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using testing::ProcessOutput;
using testing::RunProcess;
using testing::TogmalBinary;

constexpr const char* kSettings = R"({
  "model": "sonnet",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "togmal statusline"
  }
}
)";

class Install : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    home_ = root_ / "home";
    project_ = root_ / "proj";
    bin_ = root_ / "bin";
    fs::create_directories(home_);
    fs::create_directories(project_);
    fs::create_directories(bin_);
    env_ = {{"HOME", home_.string()},
            {"XDG_DATA_HOME", (root_ / "data").string()},
            {"XDG_CONFIG_HOME", (home_ / ".config").string()},
            {"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"CODEX_HOME", std::nullopt},
            {"COPILOT_HOME", std::nullopt},
            {"TOGMAL_LOG", std::nullopt},
            {"PATH", bin_.string() + ":/usr/bin:/bin"}};
  }

  ProcessOutput Togmal(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), TogmalBinary());
    return RunProcess(args, input, env_, std::chrono::seconds(60));
  }
  static void Write(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
  }
  static std::string Read(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  testing::TempDir dir_;
  fs::path root_, home_, project_, bin_;
  testing::EnvChanges env_;
};

TEST_F(Install, ClaudeCodeKeepsTheSettingsIsIdempotentAndReversible) {
  const fs::path settings = home_ / ".claude/settings.json";
  Write(settings, kSettings);

  ProcessOutput first = Togmal({"install", "claude-code"});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("updated " + settings.string()), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("backup: "), std::string::npos) << first.out;
  // Without `claude` on PATH the MCP registration is printed, not run.
  EXPECT_NE(first.out.find("claude mcp add --scope user togmal -- "), std::string::npos)
      << first.out;
  const std::string installed = Read(settings);
  json value = json::parse(installed);
  EXPECT_EQ(value["model"], "sonnet");
  EXPECT_EQ(value["hooks"]["Stop"][0]["hooks"][0]["command"], "notify-send done");
  EXPECT_EQ(value["statusLine"]["command"], "togmal statusline");
  const std::string command = value["hooks"]["PreToolUse"][0]["hooks"][0]["command"];
  EXPECT_EQ(command, fs::canonical(TogmalBinary()).string() + " hook");

  ProcessOutput second = Togmal({"install", "claude-code"});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("unchanged " + settings.string()), std::string::npos) << second.out;
  EXPECT_EQ(Read(settings), installed);

  ProcessOutput removed = Togmal({"uninstall", "claude-code"});
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_EQ(Read(settings), kSettings);
}

TEST_F(Install, DryRunPrintsTheDiffAndWritesNothing) {
  const fs::path settings = home_ / ".claude/settings.json";
  Write(settings, kSettings);
  ProcessOutput dry = Togmal({"install", "claude-code", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("--- " + settings.string()), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("+    \"PreToolUse\": ["), std::string::npos) << dry.out;
  EXPECT_EQ(Read(settings), kSettings);
  EXPECT_FALSE(fs::exists(root_ / "data/togmal/installed.json"));
}

TEST_F(Install, AFileThatDoesNotParseIsRefusedAndLeftAlone) {
  const fs::path settings = project_ / ".gemini/settings.json";
  const std::string broken = "{\n  \"theme\": \"dark\",\n  \"hooks\": {,\n}\n";
  Write(settings, broken);
  ProcessOutput out =
      Togmal({"install", "gemini", "--scope", "project", "--dir", project_.string()});
  EXPECT_EQ(out.exit_code, 65);
  EXPECT_NE(out.err.find(settings.string() + ":3:"), std::string::npos) << out.err;
  EXPECT_EQ(Read(settings), broken);
}

TEST_F(Install, EveryHostInstallsAndUninstallsInAProject) {
  const std::string dir = project_.string();
  Write(project_ / ".cursor/hooks.json",
        "{\n  \"version\": 1,\n  \"hooks\": {\n    \"stop\": [\n      {\n        \"command\": "
        "\"./stop.sh\"\n      }\n    ]\n  }\n}\n");
  const std::string cursor_before = Read(project_ / ".cursor/hooks.json");
  for (const char* target : {"claude-code", "gemini", "codex", "copilot", "cursor"}) {
    ProcessOutput out = Togmal({"install", target, "--scope", "project", "--dir", dir});
    EXPECT_EQ(out.exit_code, 0) << target << ": " << out.err;
  }
  EXPECT_TRUE(fs::exists(project_ / ".claude/settings.json"));
  EXPECT_TRUE(fs::exists(project_ / ".gemini/settings.json"));
  EXPECT_TRUE(fs::exists(project_ / ".codex/hooks.json"));
  EXPECT_TRUE(fs::exists(project_ / ".github/hooks/togmal.json"));
  json cursor = json::parse(Read(project_ / ".cursor/hooks.json"));
  EXPECT_EQ(cursor["hooks"]["stop"][0]["command"], "./stop.sh");
  EXPECT_NE(cursor["hooks"]["beforeShellExecution"][0]["command"].get<std::string>().find(
                "hook --host cursor"),
            std::string::npos);
  for (const char* target : {"claude-code", "gemini", "codex", "copilot", "cursor"}) {
    ProcessOutput again = Togmal({"install", target, "--scope", "project", "--dir", dir});
    EXPECT_EQ(again.out.find("updated"), std::string::npos) << target << ": " << again.out;
    ProcessOutput out = Togmal({"uninstall", target, "--scope", "project", "--dir", dir});
    EXPECT_EQ(out.exit_code, 0) << target << ": " << out.err;
  }
  EXPECT_FALSE(fs::exists(project_ / ".claude/settings.json"));
  EXPECT_FALSE(fs::exists(project_ / ".gemini/settings.json"));
  EXPECT_FALSE(fs::exists(project_ / ".codex/hooks.json"));
  EXPECT_FALSE(fs::exists(project_ / ".github/hooks/togmal.json"));
  EXPECT_EQ(Read(project_ / ".cursor/hooks.json"), cursor_before);
}

TEST_F(Install, ClaudeDesktopGetsTheAbsolutePath) {
  const fs::path config = home_ / ".config/Claude/claude_desktop_config.json";
  Write(config, "{\n  \"mcpServers\": {}\n}\n");
  ProcessOutput out = Togmal({"install", "claude-desktop"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  json value = json::parse(Read(config));
  EXPECT_EQ(value["mcpServers"]["togmal"]["command"], fs::canonical(TogmalBinary()).string());
  ASSERT_EQ(Togmal({"uninstall", "claude-desktop"}).exit_code, 0);
  EXPECT_EQ(Read(config), "{\n  \"mcpServers\": {}\n}\n");
}

TEST_F(Install, UnknownTargetOrScopeIsAUsageError) {
  ProcessOutput target = Togmal({"install", "vscode"});
  EXPECT_EQ(target.exit_code, 64);
  EXPECT_NE(target.err.find("unknown target 'vscode'"), std::string::npos) << target.err;
  EXPECT_EQ(Togmal({"install", "cursor", "--scope", "local"}).exit_code, 64);
  EXPECT_EQ(Togmal({"install", "claude-code", "--scope", "global"}).exit_code, 64);
}

TEST_F(Install, StatuslineShowsTheGuardAndTodaysCounts) {
  const std::string session =
      json{{"hook_event_name", "Status"},
           {"session_id", "s"},
           {"cwd", project_.string()},
           {"model", {{"id", "claude-opus-4"}, {"display_name", "Opus"}}},
           {"workspace", {{"current_dir", project_.string()}, {"project_dir", project_.string()}}}}
          .dump();
  ProcessOutput off = Togmal({"statusline", "--no-color"}, session);
  ASSERT_EQ(off.exit_code, 0) << off.err;
  const std::string name = project_.filename().string();
  EXPECT_EQ(off.out, "togmal not guarding (togmal install claude-code) · today in " + name +
                         ": 0 allowed · 0 passed · 0 asked · 0 denied\n");

  ASSERT_EQ(Togmal({"install", "claude-code", "--scope", "project", "--dir", project_.string()})
                .exit_code,
            0);
  auto call = [&](const std::string& command) {
    return json{{"hook_event_name", "PreToolUse"},
                {"cwd", project_.string()},
                {"tool_name", "Bash"},
                {"tool_input", {{"command", command}}}}
        .dump();
  };
  Togmal({"hook"}, call("ls"));
  Togmal({"hook"}, call("git status"));
  Togmal({"hook"}, call("rm -rf ~"));
  Togmal({"hook"}, call("npm install left-pad"));
  Togmal({"hook"}, "garbage");  // asked, but in no project
  // Another project's calls (a sibling whose name starts the same) are not counted here.
  Togmal({"hook"}, json{{"hook_event_name", "PreToolUse"},
                        {"cwd", project_.string() + "-other"},
                        {"tool_name", "Bash"},
                        {"tool_input", {{"command", "ls"}}}}
                       .dump());
  ProcessOutput on = Togmal({"statusline", "--no-color"}, session);
  ASSERT_EQ(on.exit_code, 0) << on.err;
  EXPECT_EQ(on.out,
            "togmal guarding · today in " + name + ": 2 allowed · 1 passed · 0 asked · 1 denied\n");
}

TEST_F(Install, DoctorOnAHealthySetUp) {
  ASSERT_EQ(Togmal({"install", "claude-code"}).exit_code, 0);
  // The MCP server, as `claude mcp add --scope user` records it.
  Write(home_ / ".claude.json", json{{"mcpServers",
                                      {{"togmal",
                                        {{"type", "stdio"},
                                         {"command", fs::canonical(TogmalBinary()).string()},
                                         {"args", {"serve"}},
                                         {"env", json::object()}}}}}}
                                    .dump());
  Togmal({"hook"}, json{{"cwd", project_.string()},
                        {"tool_name", "Bash"},
                        {"tool_input", {{"command", "ls -la"}}}}
                       .dump());
  ProcessOutput out = Togmal({"doctor", "--dir", project_.string()});
  EXPECT_EQ(out.exit_code, 0) << out.out << out.err;
  EXPECT_NE(out.out.find("ok       claude-code (user): "), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("audit chain intact (1 entries)"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("allow  L0  Bash"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("no problems found"), std::string::npos) << out.out;
}

TEST_F(Install, DoctorNamesEachProblemWithItsFix) {
  // A hook that runs a togmal which is gone, and a rule file that does not parse.
  Write(
      home_ / ".cursor/hooks.json",
      R"({"version": 1, "hooks": {"beforeShellExecution": [{"command": "/gone/togmal hook --host cursor"}]}})");
  Write(home_ / ".config/togmal/rules.yaml", "rules:\n  - id: broken\n    match: [unclosed\n");
  ProcessOutput out = Togmal({"doctor", "--dir", project_.string()});
  EXPECT_EQ(out.exit_code, 1) << out.out << out.err;
  EXPECT_NE(out.out.find("runs /gone/togmal, which is not an executable file"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("fix: togmal install cursor --scope user"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find(
                "PROBLEM  rules left out: " + (home_ / ".config/togmal/rules.yaml").string() + ":"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("problems found"), std::string::npos) << out.out;
}

TEST_F(Install, DoctorFindsABrokenAuditChain) {
  Togmal(
      {"hook"},
      json{{"cwd", project_.string()}, {"tool_name", "Bash"}, {"tool_input", {{"command", "ls"}}}}
          .dump());
  {
    auto db = store::Database::Open(root_ / "togmal.db");
    ASSERT_TRUE(db.ok()) << db.error();
    db->sql().exec("UPDATE audit SET decision = 'deny' WHERE id = 1");
  }
  ProcessOutput out = Togmal({"doctor"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.out.find("the audit chain is broken at entry 1"), std::string::npos) << out.out;
}

}  // namespace
}  // namespace togmal

namespace togmal {
namespace {

// `install --profile strict` writes the profile into the user's settings.yaml
// (keeping what is there); the hook then judges with the seed's table.
TEST_F(Install, ProfileIsWrittenToTheUsersSettings) {
  const fs::path settings = home_ / ".config/togmal/settings.yaml";
  fs::create_directories(settings.parent_path());
  std::ofstream(settings) << "audit:\n  sync: full\n";
  ProcessOutput dry = Togmal({"install", "claude-code", "--profile", "strict", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("+profile: strict"), std::string::npos) << dry.out;
  ProcessOutput installed = Togmal({"install", "claude-code", "--profile", "strict"});
  ASSERT_EQ(installed.exit_code, 0) << installed.err;
  std::ifstream in(settings);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "audit:\n  sync: full\nprofile: strict\n");
  ProcessOutput check = Togmal({"check", "--json", "--cwd", project_.string(), "mkdir -p src/x"});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(json::parse(check.out)["decision"], "ask") << check.out;
  EXPECT_EQ(Togmal({"install", "claude-code", "--profile", "lenient"}).exit_code, 64);
  ASSERT_EQ(Togmal({"install", "claude-code", "--profile", "standard"}).exit_code, 0);
  check = Togmal({"check", "--json", "--cwd", project_.string(), "mkdir -p src/x"});
  EXPECT_EQ(json::parse(check.out)["decision"], "allow") << check.out;
}

}  // namespace
}  // namespace togmal
