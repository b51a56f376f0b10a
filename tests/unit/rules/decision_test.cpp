#include "togmal/rules/decision.h"

#include <gtest/gtest.h>

#include <string>

#include "scoped_env.h"
#include "togmal/rules/rule_loader.h"

namespace togmal::rules {
namespace {

using json = nlohmann::json;

RuleSet Layers(const std::string& user, const std::string& project) {
  std::vector<RuleFile> files;
  for (auto [yaml, layer] : {std::pair{user, Layer::kUser}, std::pair{project, Layer::kProject}}) {
    auto file = ParseRuleFile(yaml, std::string(LayerName(layer)) + ".yaml", layer, true);
    EXPECT_TRUE(file.ok()) << (file.ok() ? "" : file.error());
    if (file.ok()) files.push_back(std::move(*file));
  }
  return CombineRuleFiles(std::move(files));
}

Facts Bash(int level, std::string segment = "ls") {
  // Levels by number keep the tables short.
  Facts facts;
  facts.call.tool_name = "Bash";
  facts.call.tool_input = {{"command", segment}};
  facts.level = static_cast<policy::Level>(level);
  facts.executed_segments = {segment};
  return facts;
}

struct LevelCase {
  int level;
  Permission permission;
  bool notice;
};

class LevelMapping : public ::testing::TestWithParam<LevelCase> {};

TEST_P(LevelMapping, DefaultMappingWhenNoRuleMatches) {
  RuleSet none;
  auto decision = ApplyRules(none, Bash(GetParam().level),
                             {{static_cast<policy::Level>(GetParam().level), "because", "ls"}},
                             DecisionSettings{});
  ASSERT_TRUE(decision.ok()) << decision.error();
  EXPECT_EQ(decision->permission, GetParam().permission);
  EXPECT_EQ(decision->source, Source::kClassifier);
  EXPECT_EQ(!decision->notice.empty(), GetParam().notice);
  EXPECT_EQ(
      decision->reason.rfind(
          "togmal " + std::string(policy::LevelName(static_cast<policy::Level>(GetParam().level))) +
              ": because",
          0),
      0u)
      << decision->reason;
}

INSTANTIATE_TEST_SUITE_P(Levels, LevelMapping,
                         ::testing::Values(LevelCase{0, Permission::kAllow, false},
                                           LevelCase{1, Permission::kAllow, false},
                                           LevelCase{2, Permission::kPass, false},
                                           LevelCase{3, Permission::kDeny, false}));

TEST(Decision, TheStrictProfileAsksAndNotifiesAsTheSeedDoes) {
  auto settings = ParseDecisionSettings("profile: strict\n", "s.yaml");
  ASSERT_TRUE(settings.ok()) << settings.error();
  EXPECT_EQ(settings->profile, Profile::kStrict);
  EXPECT_EQ(settings->levels[0], LevelOutcome::kAllow);
  EXPECT_EQ(settings->levels[1], LevelOutcome::kNotice);
  EXPECT_EQ(settings->levels[2], LevelOutcome::kAsk);
  EXPECT_EQ(settings->levels[3], LevelOutcome::kDeny);
  auto notice =
      ApplyRules(RuleSet{}, Bash(1), {{policy::Level::kL1, "touch", "touch x"}}, *settings);
  ASSERT_TRUE(notice.ok());
  EXPECT_EQ(notice->permission, Permission::kAllow);
  EXPECT_FALSE(notice->notice.empty()) << "strict keeps the seed's NOTIFY for L1";
}

TEST(Decision, LevelsNamedInAFileSurviveTheProfileWhicheverComesFirst) {
  // hook.levels before profile in the same file, and across two layers.
  auto same_file =
      ParseDecisionSettings("hook:\n  levels: {L2: pass}\nprofile: strict\n", "s.yaml");
  ASSERT_TRUE(same_file.ok()) << same_file.error();
  EXPECT_EQ(same_file->levels[2], LevelOutcome::kPass);
  EXPECT_EQ(same_file->levels[1], LevelOutcome::kNotice);
  auto user = util::ParseSettingsLayer("hook:\n  levels: {L1: notice}\n", "u.yaml");
  auto strict = util::ParseSettingsLayer("profile: standard\n", "p.yaml");
  ASSERT_TRUE(user.ok() && strict.ok());
  std::vector<std::string> ignored;
  DecisionSettings settings = DecisionSettingsFrom({*user, *strict}, ignored);
  EXPECT_TRUE(ignored.empty());
  EXPECT_EQ(settings.levels[1], LevelOutcome::kNotice);
  EXPECT_EQ(settings.levels[2], LevelOutcome::kPass);
}

TEST(Decision, AnUnknownProfileIsAnErrorWithItsLine) {
  auto settings = ParseDecisionSettings("audit: {}\nprofile: paranoid\n", "s.yaml");
  ASSERT_FALSE(settings.ok());
  EXPECT_NE(settings.error().find("s.yaml:2:"), std::string::npos) << settings.error();
  EXPECT_NE(settings.error().find("standard or strict"), std::string::npos) << settings.error();
}

TEST(Decision, PassIsAnAnswerLevelsAndRulesCanGive) {
  auto settings = ParseDecisionSettings("hook:\n  levels: {L3: pass}\n", "s.yaml");
  ASSERT_TRUE(settings.ok()) << settings.error();
  auto decision = ApplyRules(RuleSet{}, Bash(3), {{policy::Level::kL3, "why", "x"}}, *settings);
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(decision->permission, Permission::kPass);
  EXPECT_EQ(DecisionJson(*decision)["decision"], "pass");
  RuleSet set = Layers(
      "rules:\n  - {id: leave-mcp, conditions: {tool_name: 'mcp__github__*'}, action: PASS, "
      "reason: my own Claude Code rules cover github}\n",
      "");
  Facts facts;
  facts.call.tool_name = "mcp__github__create_issue";
  facts.level = policy::Level::kL2;
  auto ruled = ApplyRules(set, facts, {},
                          DecisionSettings{.levels = {LevelOutcome::kAllow, LevelOutcome::kAllow,
                                                      LevelOutcome::kAsk, LevelOutcome::kDeny}});
  ASSERT_TRUE(ruled.ok());
  EXPECT_EQ(ruled->permission, Permission::kPass);
  EXPECT_EQ(ruled->source, Source::kRule);
}

TEST(Decision, AProjectRuleMayNotPass) {
  RuleSet set = Layers("", "rules:\n  - {id: p, conditions: {}, action: PASS}\n");
  EXPECT_TRUE(set.rules.empty());
  ASSERT_FALSE(set.warnings.empty());
  EXPECT_NE(set.warnings.front().find("not PASS"), std::string::npos) << set.warnings.front();
}

TEST(Decision, MappingIsConfigurable) {
  auto settings = ParseDecisionSettings(
      "server: {x: 1}\nhook:\n  levels: {L1: allow, L2: deny}\n  on_error: deny\n", "s.yaml");
  ASSERT_TRUE(settings.ok()) << settings.error();
  EXPECT_EQ(settings->levels[1], LevelOutcome::kAllow);
  EXPECT_EQ(settings->levels[2], LevelOutcome::kDeny);
  EXPECT_EQ(settings->levels[3], LevelOutcome::kDeny);
  EXPECT_EQ(settings->on_error, Permission::kDeny);
  auto decision = ApplyRules(RuleSet{}, Bash(1), {}, *settings);
  ASSERT_TRUE(decision.ok());
  EXPECT_TRUE(decision->notice.empty());
}

TEST(Decision, SettingsErrorsNameFileAndLine) {
  auto allow_on_error = ParseDecisionSettings("hook:\n  on_error: allow\n", "s.yaml");
  ASSERT_FALSE(allow_on_error.ok());
  EXPECT_NE(allow_on_error.error().find("s.yaml:2:"), std::string::npos);
  auto bad_level = ParseDecisionSettings("hook:\n  levels:\n    L2: maybe\n", "s.yaml");
  ASSERT_FALSE(bad_level.ok());
  EXPECT_NE(bad_level.error().find("s.yaml:3:"), std::string::npos) << bad_level.error();
}

TEST(Decision, EmbeddedSettingsHaveTheDefaultMapping) {
  togmal::testing::ScopedEnv config("XDG_CONFIG_HOME", "/nonexistent/togmal-test");
  std::vector<std::string> ignored;
  DecisionSettings settings = DecisionSettingsFrom(util::LoadSettingsLayers().layers, ignored);
  EXPECT_TRUE(ignored.empty());
  EXPECT_EQ(settings.profile, Profile::kStandard);
  EXPECT_EQ(settings.levels[0], LevelOutcome::kAllow);
  EXPECT_EQ(settings.levels[1], LevelOutcome::kAllow);
  EXPECT_EQ(settings.levels[2], LevelOutcome::kPass);
  EXPECT_EQ(settings.levels[3], LevelOutcome::kDeny);
  EXPECT_EQ(settings.budget_ms, 1000);
}

TEST(Decision, AnInvalidHookSectionIsLeftOutNotApplied) {
  auto layer =
      util::ParseSettingsLayer("hook:\n  levels: {L3: allow}\n  on_error: allow\n", "u.yaml");
  ASSERT_TRUE(layer.ok());
  std::vector<std::string> ignored;
  DecisionSettings settings = DecisionSettingsFrom({*layer}, ignored);
  ASSERT_EQ(ignored.size(), 1u);
  EXPECT_NE(ignored[0].find("u.yaml:3"), std::string::npos) << ignored[0];
  EXPECT_EQ(settings.levels[3], LevelOutcome::kDeny) << "no part of a broken section applies";
}

TEST(Decision, RuleOverridesLevel) {
  RuleSet set = Layers(
      "rules:\n  - {id: ok-rm, conditions: {command: '^rm '}, action: ALLOW, "
      "reason: scratch dir}\n",
      "");
  auto decision = ApplyRules(set, Bash(3, "rm -rf build"), {}, DecisionSettings{});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(decision->permission, Permission::kAllow);
  EXPECT_EQ(decision->source, Source::kRule);
  EXPECT_EQ(decision->rule_id, "ok-rm");
  EXPECT_EQ(decision->reason, "togmal L3: rule ok-rm (user): scratch dir");
  json result = DecisionJson(*decision);
  EXPECT_EQ(result["rule_id"], "ok-rm");
  EXPECT_EQ(result["source"], "rule");
  EXPECT_EQ(result["level"], "L3");
}

struct TightenCase {
  const char* name;
  const char* user;
  const char* project;
  int level;
  Permission expected;
  const char* source;
};

class TightenOnly : public ::testing::TestWithParam<TightenCase> {};

TEST_P(TightenOnly, ProjectNeverLoosens) {
  const TightenCase& c = GetParam();
  auto decision = ApplyRules(Layers(c.user, c.project), Bash(c.level), {}, DecisionSettings{});
  ASSERT_TRUE(decision.ok()) << decision.error();
  EXPECT_EQ(decision->permission, c.expected) << c.name << ": " << decision->reason;
  EXPECT_EQ(SourceName(decision->source), c.source) << c.name;
}

constexpr const char* kProjectAsk =
    "rules:\n  - {id: p-ask, priority: 1, conditions: {}, action: ASK}\n";

INSTANTIATE_TEST_SUITE_P(
    Cases, TightenOnly,
    ::testing::Values(
        TightenCase{"ask tightens an L0 allow", "", kProjectAsk, 0, Permission::kAsk, "rule"},
        TightenCase{"ask cannot loosen an L3 deny", "", kProjectAsk, 3, Permission::kDeny,
                    "classifier"},
        TightenCase{"ask cannot loosen a user deny",
                    "rules:\n  - {id: u, priority: 9, conditions: {}, action: DENY}\n", kProjectAsk,
                    0, Permission::kDeny, "rule"},
        TightenCase{"ask tightens a user allow",
                    "rules:\n  - {id: u, priority: 9, conditions: {}, action: ALLOW}\n",
                    kProjectAsk, 3, Permission::kAsk, "rule"},
        TightenCase{"allow in project is ignored", "",
                    "rules:\n  - {id: p, priority: 1, conditions: {}, action: ALLOW}\n", 2,
                    Permission::kPass, "classifier"},
        TightenCase{"sample cannot loosen an L3 deny", "",
                    "rules:\n  - {id: p, priority: 1, conditions: {}, action: SAMPLE}\n", 3,
                    Permission::kDeny, "classifier"},
        TightenCase{"ask tightens an L2 pass", "", kProjectAsk, 2, Permission::kAsk, "rule"},
        TightenCase{"sample may stand in for an L2 pass", "",
                    "rules:\n  - {id: p, priority: 1, conditions: {}, action: SAMPLE}\n", 2,
                    Permission::kAsk, "rule"}));

TEST(Decision, SampleResolvesToAskWithGuidance) {
  RuleSet set = Layers(
      "rules:\n  - {id: review, conditions: {}, action: SAMPLE, "
      "sampling_guidance: Check the diff for secrets}\n",
      "");
  auto decision = ApplyRules(set, Bash(0), {}, DecisionSettings{});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(decision->action, Action::kSample);
  ResolveSampleAsAsk(*decision, "");
  EXPECT_EQ(decision->permission, Permission::kAsk);
  EXPECT_NE(decision->reason.find("Check the diff for secrets"), std::string::npos);
  ResolveSampleByModel(*decision, Permission::kDeny, "it leaks a key");
  EXPECT_EQ(decision->permission, Permission::kDeny);
  EXPECT_EQ(decision->source, Source::kSampling);
  EXPECT_NE(decision->reason.find("it leaks a key"), std::string::npos);
}

TEST(Decision, ErrorsNeverAllow) {
  DecisionSettings settings;
  Decision ask = ErrorDecision(settings, "stdin was empty");
  EXPECT_EQ(ask.permission, Permission::kAsk);
  EXPECT_NE(ask.reason.find("stdin was empty"), std::string::npos);
  settings.on_error = Permission::kDeny;
  EXPECT_EQ(ErrorDecision(settings, "x").permission, Permission::kDeny);
}

TEST(Decision, HugeSegmentsAreShortenedOnACharacterBoundary) {
  std::string segment = "echo " + std::string(100000, 'x') + "\xC3\xA9";
  std::string multibyte;
  for (int i = 0; i < 1000; ++i) multibyte += "\xC3\xA9";  // é
  auto decision = ApplyRules(RuleSet{}, Bash(2, segment),
                             {{policy::Level::kL2, multibyte, segment}}, DecisionSettings{});
  ASSERT_TRUE(decision.ok());
  EXPECT_LE(decision->reason.size(), 1100u);
  // dump() throws on invalid UTF-8: a cut in the middle of é would fail here.
  EXPECT_NO_THROW((void)DecisionJson(*decision).dump());
}

}  // namespace
}  // namespace togmal::rules
