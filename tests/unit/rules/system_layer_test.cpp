// The administrator's system layer (/etc/togmal/rules.yaml and settings.yaml)
// is a ceiling: no user or project rule, and no user setting, makes a call's
// decision looser than it says; its rules' ids cannot be taken over; a file
// that anyone but root could have written is left out and named, which stops
// auto-approval. Here the layering is tested with the system file's path
// passed in; tests/integration/system_layer_test.cpp runs the binary, which
// reads only the build-time path, in a mount namespace.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "process.h"
#include "togmal/rules/active_rules.h"
#include "togmal/rules/decision.h"
#include "togmal/rules/rule_loader.h"
#include "togmal/util/settings_layers.h"
#include "togmal/util/system_paths.h"

namespace togmal::rules {
namespace {

namespace fs = std::filesystem;

RuleFile Parse(const std::string& yaml, Layer layer) {
  auto file = ParseRuleFile(yaml, std::string(LayerName(layer)) + ".yaml", layer, true);
  EXPECT_TRUE(file.ok()) << (file.ok() ? "" : file.error());
  return file.ok() ? std::move(*file) : RuleFile{};
}

// Built-in rules are left out: the classifier's level decides what no rule does.
RuleSet Layers(const std::string& system, const std::string& user, const std::string& project) {
  std::vector<RuleFile> files;
  files.push_back(Parse(system, Layer::kSystem));
  files.push_back(Parse(user, Layer::kUser));
  files.push_back(Parse(project, Layer::kProject));
  return CombineRuleFiles(std::move(files));
}

Facts Bash(int level, const std::string& command = "git push --force") {
  Facts facts;
  facts.call.tool_name = "Bash";
  facts.call.tool_input = {{"command", command}};
  facts.level = static_cast<policy::Level>(level);
  facts.executed_segments = {command};
  return facts;
}

constexpr const char* kSystemDenyPush =
    "rules:\n  - {id: org-no-force-push, priority: 90, conditions: {command: 'git push.*--force'}, "
    "action: DENY, reason: org policy}\n";
constexpr const char* kSystemAskPush =
    "rules:\n  - {id: org-ask-push, priority: 90, conditions: {command: 'git push'}, action: "
    "ASK}\n";
constexpr const char* kUserAllowAll =
    "rules:\n  - {id: mine, priority: 1, conditions: {tool_name: Bash}, action: ALLOW}\n";
constexpr const char* kProjectAskAll =
    "rules:\n  - {id: proj, priority: 1, conditions: {}, action: ASK}\n";

struct CeilingCase {
  const char* name;
  const char* system;
  const char* user;
  const char* project;
  int level;
  Permission expected;
  const char* rule;  // the deciding rule
};

class Ceiling : public ::testing::TestWithParam<CeilingCase> {};

TEST_P(Ceiling, NoLowerLayerLoosensTheSystemLayer) {
  const CeilingCase& c = GetParam();
  auto decision = ApplyRules(Layers(c.system, c.user, c.project), Bash(c.level), {}, {});
  ASSERT_TRUE(decision.ok()) << decision.error();
  EXPECT_EQ(PermissionName(decision->permission), PermissionName(c.expected))
      << c.name << ": " << decision->reason;
  EXPECT_EQ(decision->rule_id, c.rule) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, Ceiling,
    ::testing::Values(
        CeilingCase{"a user allow does not loosen a system deny", kSystemDenyPush, kUserAllowAll,
                    "", 0, Permission::kDeny, "org-no-force-push"},
        CeilingCase{"nor a project ask", kSystemDenyPush, kUserAllowAll, kProjectAskAll, 0,
                    Permission::kDeny, "org-no-force-push"},
        CeilingCase{"a user allow does not turn a system ask into allow", kSystemAskPush,
                    kUserAllowAll, "", 0, Permission::kAsk, "org-ask-push"},
        CeilingCase{"a system ask does not loosen the classifier's L3 deny", kSystemAskPush, "", "",
                    3, Permission::kDeny, ""},
        CeilingCase{"a user deny tightens beneath a system ask", kSystemAskPush,
                    "rules:\n  - {id: u, priority: 1, conditions: {}, action: DENY}\n", "", 0,
                    Permission::kDeny, "u"},
        CeilingCase{"no system rule matches: the other layers decide",
                    "rules:\n  - {id: s, conditions: {tool_name: Write}, action: DENY}\n",
                    kUserAllowAll, "", 0, Permission::kAllow, "mine"}));

TEST(SystemLayer, TheCeilingIsExplainedAndNamesTheLayer) {
  auto decision = ApplyRules(Layers(kSystemDenyPush, kUserAllowAll, ""), Bash(0), {}, {});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(decision->rule_layer, Layer::kSystem);
  EXPECT_NE(decision->reason.find("(system): org policy"), std::string::npos) << decision->reason;
  EXPECT_NE(decision->tightened_by.find("user rule mine"), std::string::npos)
      << decision->tightened_by;
  EXPECT_NE(decision->tightened_by.find("would have allowed"), std::string::npos)
      << decision->tightened_by;
}

TEST(SystemLayer, ItsIdsCannotBeReplacedOrSwitchedOff) {
  RuleSet set = Layers(kSystemDenyPush,
                       "rules:\n  - {id: org-no-force-push, enabled: false}\n"
                       "  - {id: org-no-force-push-2, conditions: {}, action: ALLOW}\n",
                       "rules:\n  - {id: org-no-force-push, conditions: {}, action: DENY}\n");
  int held = 0;
  for (const Rule& rule : set.rules) {
    if (rule.id == "org-no-force-push") {
      ++held;
      EXPECT_EQ(rule.layer, Layer::kSystem);
      EXPECT_TRUE(rule.enabled);
    }
  }
  EXPECT_EQ(held, 1);
  ASSERT_EQ(set.warnings.size(), 2u);
  EXPECT_NE(set.warnings[0].find("user.yaml:2: rule org-no-force-push ignored: the system rule"),
            std::string::npos)
      << set.warnings[0];
  EXPECT_NE(set.warnings[1].find("project.yaml"), std::string::npos) << set.warnings[1];
  auto decision = ApplyRules(set, Bash(0), {}, {});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(decision->permission, Permission::kDeny) << decision->reason;
}

TEST(SystemLayer, ItsAllowAndPassRulesAreIgnoredAndSaidSo) {
  RuleSet set = Layers("rules:\n  - {id: s, conditions: {}, action: ALLOW}\n", "", "");
  EXPECT_TRUE(set.rules.empty());
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_NE(set.warnings[0].find("a system rule is a ceiling"), std::string::npos);
}

TEST(SystemLayer, ASystemRuleMaySwitchOffABuiltInOne) {
  std::vector<RuleFile> files;
  files.push_back(Parse("rules:\n  - {id: b, conditions: {}, action: ASK}\n", Layer::kBuiltin));
  files.push_back(Parse("rules:\n  - {id: b, enabled: false}\n", Layer::kSystem));
  files.push_back(Parse("rules:\n  - {id: b, conditions: {}, action: ASK}\n", Layer::kUser));
  RuleSet set = CombineRuleFiles(std::move(files));
  ASSERT_EQ(set.rules.size(), 1u);
  EXPECT_EQ(set.rules[0].layer, Layer::kSystem);
  EXPECT_FALSE(set.rules[0].enabled);
  EXPECT_EQ(set.warnings.size(), 1u);  // the user's b
}

// A system file in a folder of its own, written by this (root) process.
class SystemFile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "a trusted system file must be root's";
    folder_ = fs::path(dir_.path()) / "etc-togmal";
    fs::create_directories(folder_);
    ::chmod(folder_.c_str(), 0755);
  }
  fs::path Write(const std::string& name, const std::string& text, mode_t mode = 0644) {
    const fs::path file = folder_ / name;
    std::ofstream(file, std::ios::trunc) << text;
    ::chmod(file.c_str(), mode);
    return file;
  }
  testing::TempDir dir_;
  fs::path folder_;
};

TEST_F(SystemFile, ARootOwnedFileIsTheSystemLayer) {
  const fs::path file = Write("rules.yaml", kSystemDenyPush);
  auto set = LoadRules({.cwd = {}, .user_file = fs::path(), .system_file = file});
  ASSERT_TRUE(set.ok()) << set.error();
  EXPECT_TRUE(set->ignored.empty()) << set->ignored.front();
  bool found = false;
  for (const Rule& rule : set->rules) found |= rule.layer == Layer::kSystem;
  EXPECT_TRUE(found);
  // No file: no system layer, nothing named.
  auto none = LoadRules({.cwd = {}, .user_file = fs::path(), .system_file = folder_ / "none"});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->ignored.empty());
}

TEST_F(SystemFile, AFileOthersMayWriteIsLeftOutAndNamed) {
  for (mode_t mode : {mode_t{0666}, mode_t{0664}}) {
    const fs::path file = Write("rules.yaml", kSystemDenyPush, mode);
    auto set = LoadRules({.cwd = {}, .user_file = fs::path(), .system_file = file});
    ASSERT_TRUE(set.ok());
    ASSERT_EQ(set->ignored.size(), 1u) << mode;
    EXPECT_NE(set->ignored[0].find(file.string() + ": not used as system policy"),
              std::string::npos)
        << set->ignored[0];
  }
  // Not root's: the same.
  const fs::path file = Write("rules.yaml", kSystemDenyPush);
  ASSERT_EQ(::chown(file.c_str(), 1000, 1000), 0);
  EXPECT_NE(util::UntrustedSystemFile(file).find("owner uid 1000"), std::string::npos);
  ASSERT_EQ(::chown(file.c_str(), 0, 0), 0);
  // A folder others may write: they could replace the file.
  ::chmod(folder_.c_str(), 0777);
  EXPECT_NE(util::UntrustedSystemFile(file).find("its folder"), std::string::npos);
  auto set = LoadRules({.cwd = {}, .user_file = fs::path(), .system_file = file});
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(set->ignored.size(), 1u);
}

TEST_F(SystemFile, ABrokenFileIsLeftOutAndNamed) {
  const fs::path file = Write("rules.yaml", "rules:\n  - {id: x, conditions: {command: '(x'}}\n");
  auto set = LoadRules({.cwd = {}, .user_file = fs::path(), .system_file = file});
  ASSERT_TRUE(set.ok());
  ASSERT_EQ(set->ignored.size(), 1u);
  EXPECT_NE(set->ignored[0].find(file.string() + ":2"), std::string::npos) << set->ignored[0];
}

TEST_F(SystemFile, ServeLoadsItAndNamesItWhenItBreaks) {
  const fs::path file = Write("rules.yaml", kSystemDenyPush);
  ActiveRules active(fs::path(dir_.path()) / "user.yaml", file);
  ASSERT_TRUE(active.Reload().ok());
  auto decision = ApplyRules(*active.ForCwd(dir_.path()), Bash(0), {}, {});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(decision->rule_id, "org-no-force-push");
  Write("rules.yaml", kSystemDenyPush, 0666);
  EXPECT_FALSE(active.Reload().ok());
  ASSERT_EQ(active.Base()->ignored.size(), 1u);
  EXPECT_NE(active.Base()->ignored[0].find("not used as system policy"), std::string::npos);
}

DecisionSettings Settings(const std::string& user, const std::string& system) {
  std::vector<util::SettingsLayer> layers;
  auto u = util::ParseSettingsLayer(user, "user.yaml");
  auto s = util::ParseSettingsLayer(system, "system.yaml");
  EXPECT_TRUE(u.ok() && s.ok());
  layers.push_back(std::move(*u));
  s->system = true;
  layers.push_back(std::move(*s));
  std::vector<std::string> ignored;
  DecisionSettings settings = DecisionSettingsFrom(layers, ignored);
  EXPECT_TRUE(ignored.empty());
  return settings;
}

TEST(SystemSettings, HookLevelsAreACeilingTheUserMayOnlyTighten) {
  auto level = [](const DecisionSettings& s, int i) { return s.levels[i]; };
  // The system asks at L2: the user's pass does not loosen it.
  EXPECT_EQ(level(Settings("hook: {levels: {L2: pass}}\n", "hook: {levels: {L2: ask}}\n"), 2),
            LevelOutcome::kAsk);
  // The system passes at L2: the user's ask still tightens it.
  EXPECT_EQ(level(Settings("hook: {levels: {L2: ask}}\n", "hook: {levels: {L2: pass}}\n"), 2),
            LevelOutcome::kAsk);
  // The system's strict profile: the user's standard one and an L2 pass yield.
  DecisionSettings strict =
      Settings("profile: standard\nhook: {levels: {L2: pass}}\n", "profile: strict\n");
  EXPECT_EQ(strict.profile, Profile::kStrict);
  EXPECT_EQ(level(strict, 2), LevelOutcome::kAsk);
  EXPECT_EQ(level(strict, 1), LevelOutcome::kNotice);
  // What the system file does not name stays the user's.
  EXPECT_EQ(level(Settings("hook: {levels: {L3: ask}}\n", "hook: {levels: {L2: ask}}\n"), 3),
            LevelOutcome::kAsk);
  EXPECT_EQ(Settings("hook: {on_error: ask}\n", "hook: {on_error: deny}\n").on_error,
            Permission::kDeny);
  EXPECT_EQ(Settings("hook: {on_error: deny}\n", "hook: {on_error: ask}\n").on_error,
            Permission::kDeny);
}

TEST_F(SystemFile, SettingsFromAnUntrustedFileAreLeftOutAndNamed) {
  const fs::path file = Write("settings.yaml", "hook: {levels: {L2: ask}}\n", 0646);
  util::SettingsLayers loaded = util::LoadSettingsLayers(file);
  for (const util::SettingsLayer& layer : loaded.layers) EXPECT_FALSE(layer.system);
  ASSERT_FALSE(loaded.ignored.empty());
  EXPECT_NE(loaded.ignored.back().find("not used as system policy"), std::string::npos);
  ::chmod(file.c_str(), 0644);
  loaded = util::LoadSettingsLayers(file);
  ASSERT_FALSE(loaded.layers.empty());
  EXPECT_TRUE(loaded.layers.back().system);
  EXPECT_EQ(loaded.layers.back().source, file.string());
}

}  // namespace
}  // namespace togmal::rules
