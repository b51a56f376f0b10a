// Installing into and uninstalling from the hosts' settings files: merged
// without losing a key, the layout kept, idempotent, and reversible to the
// byte.
#include "togmal/install/installer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "process.h"

namespace togmal::install {
namespace {

namespace fs = std::filesystem;

class Installer : public ::testing::Test {
 protected:
  void SetUp() override {
    places_.home = fs::path(dir_.path()) / "home";
    places_.project = fs::path(dir_.path()) / "proj";
    fs::create_directories(places_.home);
    fs::create_directories(places_.project);
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

  std::vector<FilePlan> Plans(std::string_view target, Scope scope = Scope::kUser) {
    auto plans = PlanFor(*FindTarget(target), scope, places_, binary_);
    EXPECT_TRUE(plans.ok()) << plans.error();
    return plans.ok() ? *plans : std::vector<FilePlan>{};
  }

  // Installs, applies, records in manifest_; returns the file's new text.
  void Install(std::string_view target, Scope scope = Scope::kUser) {
    for (const FilePlan& plan : Plans(target, scope)) {
      auto change = PlanInstall(plan);
      ASSERT_TRUE(change.ok()) << change.error();
      ASSERT_TRUE(ApplyChange(*change, backups_).ok());
      RecordInstall(manifest_, *change);
    }
  }
  void Uninstall(std::string_view target, Scope scope = Scope::kUser) {
    for (const FilePlan& plan : Plans(target, scope)) {
      auto it = manifest_.files.find(plan.file.string());
      auto change = PlanUninstall(plan, it == manifest_.files.end() ? nullptr : &it->second);
      ASSERT_TRUE(change.ok()) << change.error();
      ASSERT_TRUE(ApplyChange(*change, backups_).ok());
      manifest_.files.erase(plan.file.string());
    }
  }

  testing::TempDir dir_;
  Places places_;
  fs::path binary_ = "/opt/togmal/bin/togmal";
  fs::path backups_ = fs::path(dir_.path()) / "data/backups";
  Manifest manifest_;
};

// What Claude Code itself writes: two-space JSON, keys in its own order.
// clang-format off
constexpr const char* kClaudeSettings = R"json({
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(npm test:*)"
    ],
    "deny": []
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Write",
        "hooks": [
          {
            "type": "command",
            "command": "prettier --write"
          }
        ]
      }
    ]
  },
  "env": {
    "ZED": "1",
    "ALPHA": "2"
  }
}
)json";
// clang-format on

TEST_F(Installer, ClaudeCodeMergesKeepsEveryKeyAndIsReversible) {
  const fs::path file = places_.home / ".claude/settings.json";
  Write(file, kClaudeSettings);
  Install("claude-code");
  const std::string installed = Read(file);
  auto value = OrderedJson::parse(installed);
  EXPECT_EQ(value["model"], "opus");
  EXPECT_EQ(value["hooks"]["PostToolUse"][0]["hooks"][0]["command"], "prettier --write");
  EXPECT_EQ(value["hooks"]["PreToolUse"][0]["matcher"], "*");
  EXPECT_EQ(value["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "/opt/togmal/bin/togmal hook");
  // Key order as the person had it (ZED before ALPHA), not sorted.
  EXPECT_LT(installed.find("\"ZED\""), installed.find("\"ALPHA\""));
  EXPECT_LT(installed.find("\"model\""), installed.find("\"permissions\""));
  // The one backup is the file as it was, kept outside the person's folders.
  EXPECT_EQ(Read(BackupPath(backups_, file)), kClaudeSettings);
  EXPECT_FALSE(fs::exists(file.parent_path() / "settings.json.togmal-backup"));

  // Again: nothing to change.
  for (const FilePlan& plan : Plans("claude-code")) {
    auto again = PlanInstall(plan);
    ASSERT_TRUE(again.ok());
    EXPECT_FALSE(again->Changed());
  }
  Uninstall("claude-code");
  EXPECT_EQ(Read(file), kClaudeSettings);
}

TEST_F(Installer, ANewFileIsCreatedAndRemovedAgain) {
  for (std::string_view target : {"claude-code", "gemini", "codex", "copilot", "cursor"}) {
    Install(target);
  }
  const fs::path cursor = places_.home / ".cursor/hooks.json";
  const std::string created = Read(cursor);
  EXPECT_EQ(created.substr(0, 4), "{\n  ") << created;
  EXPECT_EQ(created.substr(created.size() - 3), "\n}\n") << created;
  auto value = OrderedJson::parse(created);
  EXPECT_EQ(value["version"], 1);
  EXPECT_EQ(value["hooks"]["beforeShellExecution"][0]["command"],
            "/opt/togmal/bin/togmal hook --host cursor");
  EXPECT_EQ(value["hooks"]["beforeReadFile"].size(), 1u);
  auto copilot = OrderedJson::parse(Read(places_.home / ".copilot/hooks/togmal.json"));
  EXPECT_EQ(copilot["hooks"]["preToolUse"][0]["bash"],
            "/opt/togmal/bin/togmal hook --host copilot");
  auto gemini = OrderedJson::parse(Read(places_.home / ".gemini/settings.json"));
  EXPECT_EQ(gemini["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
            "/opt/togmal/bin/togmal hook --host gemini");
  for (std::string_view target : {"claude-code", "gemini", "codex", "copilot", "cursor"}) {
    Uninstall(target);
  }
  EXPECT_FALSE(fs::exists(cursor));
  EXPECT_FALSE(fs::exists(places_.home / ".claude/settings.json"));
  EXPECT_FALSE(fs::exists(places_.home / ".codex/hooks.json"));
}

TEST_F(Installer, UninstallKeepsContainersThePersonHad) {
  const fs::path file = places_.project / ".cursor/hooks.json";
  const std::string before =
      "{\n    \"version\": 1,\n    \"hooks\": {\n        \"beforeShellExecution\": []\n    }\n}\n";
  Write(file, before);
  Install("cursor", Scope::kProject);
  const std::string installed = Read(file);
  EXPECT_NE(installed.find("\n        \"beforeShellExecution\": [\n            {"),
            std::string::npos)
      << "four-space indentation kept:\n"
      << installed;
  Uninstall("cursor", Scope::kProject);
  EXPECT_EQ(Read(file), before);
}

TEST_F(Installer, OtherHooksInTogmalsGroupStay) {
  const fs::path file = places_.project / ".claude/settings.local.json";
  Install("claude-code", Scope::kLocal);
  auto value = OrderedJson::parse(Read(file));
  value["hooks"]["PreToolUse"][0]["hooks"].push_back(
      {{"type", "command"}, {"command", "audit.sh"}});
  Write(file, value.dump(2) + "\n");
  Uninstall("claude-code", Scope::kLocal);
  auto after = OrderedJson::parse(Read(file));
  ASSERT_EQ(after["hooks"]["PreToolUse"].size(), 1u);
  EXPECT_EQ(after["hooks"]["PreToolUse"][0]["hooks"].size(), 1u);
  EXPECT_EQ(after["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "audit.sh");
}

TEST_F(Installer, AMovedBinaryUpdatesTheCommandInsteadOfAddingASecondHook) {
  Install("codex");
  binary_ = "/usr/bin/togmal";
  Install("codex");
  auto value = OrderedJson::parse(Read(places_.home / ".codex/hooks.json"));
  ASSERT_EQ(value["hooks"]["PreToolUse"].size(), 1u);
  EXPECT_EQ(value["hooks"]["PreToolUse"][0]["hooks"][0]["command"],
            "/usr/bin/togmal hook --host codex");
}

TEST_F(Installer, ClaudeDesktopGetsTheServerWithTheAbsolutePath) {
  places_.os = "macos";
  const fs::path file =
      places_.home / "Library/Application Support/Claude/claude_desktop_config.json";
  const std::string before = R"({"mcpServers":{"other":{"command":"x","args":[]}},"theme":"dark"})";
  Write(file, before);
  Install("claude-desktop");
  const std::string installed = Read(file);
  EXPECT_EQ(installed.find('\n'), std::string::npos) << "one line stays one line: " << installed;
  auto value = OrderedJson::parse(installed);
  EXPECT_EQ(value["mcpServers"]["togmal"]["command"], "/opt/togmal/bin/togmal");
  EXPECT_EQ(value["mcpServers"]["togmal"]["args"], OrderedJson::array({"serve"}));
  Uninstall("claude-desktop");
  EXPECT_EQ(Read(file), before);
}

TEST_F(Installer, AnotherServerNamedTogmalIsNotOverwritten) {
  places_.os = "linux";
  Write(places_.home / ".config/Claude/claude_desktop_config.json",
        R"({"mcpServers": {"togmal": {"command": "python", "args": ["togmal.py"]}}})");
  auto change = PlanInstall(Plans("claude-desktop").front());
  ASSERT_FALSE(change.ok());
  EXPECT_NE(change.error().find("another server"), std::string::npos) << change.error();
}

TEST_F(Installer, AFileThatDoesNotParseIsRefusedWithItsLine) {
  const fs::path file = places_.home / ".gemini/settings.json";
  Write(file, "{\n  \"theme\": \"dark\",\n  // a comment\n  \"x\": 1\n}\n");
  auto change = PlanInstall(Plans("gemini").front());
  ASSERT_FALSE(change.ok());
  EXPECT_NE(change.error().find(file.string() + ":3:"), std::string::npos) << change.error();
}

TEST_F(Installer, AWrongTypeWhereTheHookGoesIsRefused) {
  Write(places_.home / ".claude/settings.json", R"({"hooks": {"PreToolUse": {"matcher": "*"}}})");
  auto change = PlanInstall(Plans("claude-code").front());
  ASSERT_FALSE(change.ok());
  EXPECT_NE(change.error().find("/hooks/PreToolUse is not an array"), std::string::npos)
      << change.error();
}

TEST_F(Installer, ACompactFileStaysCompactAndComesBackToTheByte) {
  const fs::path file = places_.home / ".gemini/settings.json";
  // One line, no spaces, no final newline: nothing re-indents it.
  const std::string before = R"({"theme":"dark","hooks":{"AfterTool":[]},"n":1.50})";
  Write(file, before);
  Install("gemini");
  const std::string installed = Read(file);
  EXPECT_EQ(installed.find('\n'), std::string::npos) << installed;
  EXPECT_EQ(installed.rfind(R"({"theme":"dark","hooks":{"AfterTool":[],"BeforeTool":[{)", 0), 0u)
      << installed;
  EXPECT_NE(installed.find(R"("n":1.50)"), std::string::npos) << "numbers as written";
  Uninstall("gemini");
  EXPECT_EQ(Read(file), before);
}

TEST_F(Installer, AReinstallFromAnotherBinaryStillRestoresTheOriginal) {
  const fs::path file = places_.home / ".codex/hooks.json";
  const std::string before = "{ \"hooks\" : { } }";
  Write(file, before);
  Install("codex");
  binary_ = "/usr/bin/togmal";
  Install("codex");
  Uninstall("codex");
  EXPECT_EQ(Read(file), before);
}

TEST_F(Installer, AChangeMadeBetweenTwoInstallsSurvivesUninstall) {
  const fs::path file = places_.home / ".cursor/hooks.json";
  Install("cursor");  // creates the file
  std::string edited = Read(file);
  edited.insert(edited.find("\"version\""), "\"mine\": true,\n  ");
  Write(file, edited);
  binary_ = "/usr/bin/togmal";
  Install("cursor");  // rewrites the command, so the file is "what togmal wrote" again
  ASSERT_FALSE(manifest_.files[file.string()].Restorable());
  Uninstall("cursor");
  ASSERT_TRUE(fs::exists(file));
  EXPECT_EQ(OrderedJson::parse(Read(file)), (OrderedJson{{"mine", true}, {"version", 1}}));
}

TEST_F(Installer, AFileChangedSinceInstallLosesOnlyTogmalsEntries) {
  const fs::path file = places_.project / ".claude/settings.json";
  const std::string before = "{\n    \"model\": \"opus\",\n    \"env\": {\"A\": \"1\"}\n}\n";
  Write(file, before);
  Install("claude-code", Scope::kProject);
  // The person changes the file afterwards (their editor keeps the layout).
  std::string edited = Read(file);
  edited.replace(edited.find("\"opus\""), 6, "\"sonnet\"");
  Write(file, edited);
  auto it = manifest_.files.find(file.string());
  ASSERT_NE(it, manifest_.files.end());
  const FilePlan plan = Plans("claude-code", Scope::kProject).front();
  auto change = PlanUninstall(plan, &it->second);
  ASSERT_TRUE(change.ok()) << change.error();
  EXPECT_FALSE(change->restore);
  EXPECT_TRUE(NeedsBackup(*change)) << "the person's edit is kept in the backup";
  ASSERT_FALSE(change->notes.empty());
  ASSERT_TRUE(ApplyChange(*change, backups_).ok());
  std::string expected = before;
  expected.replace(expected.find("\"opus\""), 6, "\"sonnet\"");
  EXPECT_EQ(Read(file), expected);
  EXPECT_EQ(Read(BackupPath(backups_, file)), edited);
}

TEST_F(Installer, TheProjectsMcpServerIsWrittenAsClaudeWritesIt) {
  const auto plans = Plans("claude-code", Scope::kProject);
  ASSERT_EQ(plans.size(), 2u);
  EXPECT_EQ(plans[1].file, places_.project / ".mcp.json");
  Install("claude-code", Scope::kProject);
  auto value = OrderedJson::parse(Read(places_.project / ".mcp.json"));
  EXPECT_EQ(value["mcpServers"]["togmal"], (OrderedJson{{"type", "stdio"},
                                                        {"command", "/opt/togmal/bin/togmal"},
                                                        {"args", {"serve"}},
                                                        {"env", OrderedJson::object()}}));
  Uninstall("claude-code", Scope::kProject);
  EXPECT_FALSE(fs::exists(places_.project / ".mcp.json"));
}

TEST_F(Installer, FoldersInstallCreatedAreLeftEmptyOnlyWhenNothingElseIsInThem) {
  const fs::path file = places_.project / ".github/hooks/togmal.json";
  auto change = PlanInstall(Plans("copilot", Scope::kProject).front());
  ASSERT_TRUE(change.ok());
  ASSERT_EQ(change->new_folders.size(), 2u);
  EXPECT_EQ(change->new_folders[0], places_.project / ".github");
  EXPECT_EQ(change->new_folders[1], places_.project / ".github/hooks");
  ASSERT_TRUE(ApplyChange(*change, backups_).ok());
  RecordInstall(manifest_, *change);
  EXPECT_EQ(
      FoldersLeftEmpty(manifest_.folders, {file}),
      (std::vector<fs::path>{places_.project / ".github/hooks", places_.project / ".github"}));
  Write(places_.project / ".github/workflows/ci.yml", "on: push\n");
  EXPECT_EQ(FoldersLeftEmpty(manifest_.folders, {file}),
            (std::vector<fs::path>{places_.project / ".github/hooks"}));
}

TEST_F(Installer, ASymlinkedSettingsFileStaysALink) {
  const fs::path real = fs::path(dir_.path()) / "dotfiles/settings.json";
  Write(real, "{}\n");
  fs::create_directories(places_.home / ".claude");
  fs::create_symlink(real, places_.home / ".claude/settings.json");
  Install("claude-code");
  EXPECT_TRUE(fs::is_symlink(places_.home / ".claude/settings.json"));
  EXPECT_NE(Read(real).find("togmal hook"), std::string::npos);
}

TEST_F(Installer, FindRegistrationsSeesWhatWasInstalled) {
  Install("gemini", Scope::kProject);
  bool gemini_project = false;
  for (const Registration& found : FindRegistrations(places_, binary_)) {
    if (found.target == "gemini" && found.scope == Scope::kProject) {
      EXPECT_EQ(found.file, places_.project / ".gemini/settings.json");
      gemini_project = found.registered;
    }
    if (found.target == "claude-code") {
      EXPECT_FALSE(found.registered) << found.file;
    }
  }
  EXPECT_TRUE(gemini_project);
}

TEST_F(Installer, ScopesATargetDoesNotHaveAreRefused) {
  auto plans = PlanFor(*FindTarget("claude-desktop"), Scope::kProject, places_, binary_);
  ASSERT_FALSE(plans.ok());
  EXPECT_NE(plans.error().find("no project scope"), std::string::npos) << plans.error();
}

TEST(HookCommands, RecogniseTogmalWhereverItLives) {
  EXPECT_TRUE(IsTogmalHookCommand("togmal hook"));
  EXPECT_TRUE(IsTogmalHookCommand("/usr/local/bin/togmal hook --host gemini"));
  EXPECT_TRUE(IsTogmalHookCommand("\"/Users/a b/bin/togmal\" hook"));
  EXPECT_FALSE(IsTogmalHookCommand("togmal serve"));
  EXPECT_FALSE(IsTogmalHookCommand("/bin/not-togmal hook"));
  EXPECT_FALSE(IsTogmalHookCommand("echo togmal hook"));
  EXPECT_EQ(HookCommand("/a b/togmal", "cursor"), "\"/a b/togmal\" hook --host cursor");
}

}  // namespace
}  // namespace togmal::install
