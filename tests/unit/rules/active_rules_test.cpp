#include "togmal/rules/active_rules.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "process.h"
#include "togmal/rules/engine.h"

namespace togmal::rules {
namespace {

namespace fs = std::filesystem;

bool Has(const RuleSet& set, const std::string& id) {
  for (const Rule& rule : set.rules) {
    if (rule.id == id) return true;
  }
  return false;
}

TEST(ActiveRules, BrokenReloadKeepsTheOldRules) {
  testing::TempDir dir;
  fs::path user = fs::path(dir.path()) / "rules.yaml";
  std::ofstream(user) << "rules:\n  - {id: mine, conditions: {}, action: ASK}\n";
  ActiveRules active(user);
  ASSERT_TRUE(active.Reload().ok());
  auto before = active.Base();
  EXPECT_TRUE(Has(*before, "mine"));

  std::ofstream(user) << "rules:\n  - {id: mine, conditions: {command: '(x'}, action: ASK}\n";
  auto reloaded = active.Reload();
  ASSERT_FALSE(reloaded.ok());
  EXPECT_NE(reloaded.error().find(user.string() + ":2:"), std::string::npos) << reloaded.error();
  // The same rules, now naming the broken file (nothing is auto-approved).
  const auto kept = active.Base();
  EXPECT_TRUE(Has(*kept, "mine"));
  EXPECT_EQ(kept->rules.size(), before->rules.size());
  EXPECT_EQ(kept->ignored, std::vector<std::string>{reloaded.error()});
  EXPECT_EQ(active.ForCwd(""), kept);
  EXPECT_TRUE(before->ignored.empty()) << "a reader's old set is not changed";

  std::ofstream(user) << "rules:\n  - {id: theirs, conditions: {}, action: DENY}\n";
  ASSERT_TRUE(active.Reload().ok());
  EXPECT_TRUE(Has(*active.Base(), "theirs"));
  EXPECT_TRUE(active.Base()->ignored.empty());
  EXPECT_FALSE(Has(*active.Base(), "mine"));
  EXPECT_TRUE(Has(*before, "mine")) << "a reader's old set stays valid";
}

TEST(ActiveRules, ABrokenUserFileBeforeAnyLoadLeavesTheBuiltinRules) {
  testing::TempDir dir;
  fs::path user = fs::path(dir.path()) / "rules.yaml";
  std::ofstream(user) << "rules: [oops\n";
  ActiveRules active(user);
  EXPECT_FALSE(active.Reload().ok());
  auto rules = active.ForCwd("/");
  ASSERT_EQ(rules->ignored.size(), 1u);
  EXPECT_NE(rules->ignored[0].find(user.string()), std::string::npos) << rules->ignored[0];
  EXPECT_FALSE(rules->rules.empty()) << "the built-in rules stay in force";
}

TEST(ActiveRules, ProjectFileIsAddedPerCwdAndRereadWhenChanged) {
  testing::TempDir dir;
  fs::path root = dir.path();
  fs::create_directories(root / "repo/.togmal");
  ActiveRules active(root / "none.yaml");
  ASSERT_TRUE(active.Reload().ok());
  std::ofstream(root / "repo/.togmal/rules.yaml")
      << "rules:\n  - {id: p1, conditions: {}, action: ASK}\n";
  auto first = active.ForCwd(root / "repo");
  EXPECT_TRUE(Has(*first, "p1"));
  EXPECT_FALSE(Has(*active.Base(), "p1"));
  EXPECT_EQ(active.ForCwd(root / "repo"), first) << "cached while unchanged";
  std::ofstream(root / "repo/.togmal/rules.yaml")
      << "rules:\n  - {id: p2-longer, conditions: {}, action: DENY}\n";
  auto second = active.ForCwd(root / "repo");
  EXPECT_TRUE(Has(*second, "p2-longer"));
  EXPECT_FALSE(Has(*second, "p1"));
  // A nearer file adds to the repository's; a broken one is left out.
  fs::create_directories(root / "repo/sub/.togmal");
  std::ofstream(root / "repo/sub/.togmal/rules.yaml") << "rules: [broken\n";
  auto nested = active.ForCwd(root / "repo/sub");
  EXPECT_TRUE(Has(*nested, "p2-longer"));
  ASSERT_EQ(nested->ignored.size(), 1u);
}

TEST(ActiveRules, DescribeShowsLayerAndSource) {
  ActiveRules active(fs::path("/nonexistent/rules.yaml"));
  ASSERT_TRUE(active.Reload().ok());
  nlohmann::json described = ActiveRules::Describe(*active.Base());
  ASSERT_FALSE(described["rules"].empty());
  EXPECT_EQ(described["rules"][0]["layer"], "builtin");
  EXPECT_NE(described["rules"][0]["source"].get<std::string>().find("rules.yaml:"),
            std::string::npos);
}

TEST(Facts, SegmentsAreComputedOnlyWhenACommandConditionIsReached) {
  auto file = ParseRuleFile(
      "rules:\n  - {id: c, conditions: {tool_name: Bash, command: '^rm'}, action: DENY}\n", "f",
      Layer::kUser, true);
  ASSERT_TRUE(file.ok());
  std::vector<RuleFile> files;
  files.push_back(std::move(*file));
  RuleSet set = CombineRuleFiles(std::move(files));
  int lexed = 0;
  Facts read;
  read.call.tool_name = "Read";
  read.segment_source = [&lexed] {
    ++lexed;
    return std::vector<std::string>{"rm x"};
  };
  ASSERT_TRUE(FirstMatch(set, read).ok());
  EXPECT_EQ(lexed, 0);
  Facts bash = read;
  bash.call.tool_name = "Bash";
  auto match = FirstMatch(set, bash);
  ASSERT_TRUE(match.ok());
  ASSERT_NE(*match, nullptr);
  EXPECT_EQ(lexed, 1);
  (void)FirstMatch(set, bash);  // a fresh copy computes again; the same Facts would not
}

}  // namespace
}  // namespace togmal::rules
