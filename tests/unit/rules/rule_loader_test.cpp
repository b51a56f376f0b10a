#include "togmal/rules/rule_loader.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "process.h"
#include "rules_raw.h"
#include "togmal/util/embedded.h"

namespace togmal::rules {

// every_condition_kind.yaml, compiled at build time (see CMakeLists.txt).
extern const util::RawList<RawRule> kEveryConditionKindRules;

namespace {

namespace fs = std::filesystem;

// Everything a rule says, as JSON, so two rule lists compare in one
// EXPECT_EQ that prints the difference.
nlohmann::json Describe(const Condition& condition) {
  nlohmann::json out = {{"kind", static_cast<int>(condition.kind)},
                        {"line", condition.line},
                        {"key", condition.key},
                        {"comparison", static_cast<int>(condition.comparison)},
                        {"level", policy::Index(condition.level)},
                        {"patterns", nlohmann::json::array()},
                        {"children", nlohmann::json::array()}};
  for (const Pattern& pattern : condition.patterns) {
    out["patterns"].push_back(pattern.regex
                                  ? nlohmann::json{{"regex", pattern.regex->pattern()}}
                                  : nlohmann::json{{"glob", pattern.glob->pattern()},
                                                   {"ci", pattern.glob->case_insensitive()}});
  }
  for (const Condition& child : condition.children) out["children"].push_back(Describe(child));
  return out;
}

nlohmann::json Describe(const std::vector<Rule>& rules) {
  nlohmann::json out = nlohmann::json::array();
  for (const Rule& rule : rules) {
    out.push_back({{"id", rule.id},
                   {"priority", rule.priority},
                   {"enabled", rule.enabled},
                   {"conditions", Describe(rule.conditions)},
                   {"action", static_cast<int>(rule.action)},
                   {"reason", rule.reason},
                   {"sampling_guidance", rule.sampling_guidance},
                   {"where", rule.Where()},
                   {"layer", static_cast<int>(rule.layer)},
                   {"order", rule.order}});
  }
  return out;
}

void WriteFile(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

struct ErrorCase {
  const char* name;
  const char* yaml;
  const char* expected;  // substring of the error, including file:line
};

class ParseErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ParseErrors, NameFileAndLine) {
  auto file = ParseRuleFile(GetParam().yaml, "rules.yaml", Layer::kUser, true);
  ASSERT_FALSE(file.ok()) << GetParam().name;
  EXPECT_NE(file.error().find(GetParam().expected), std::string::npos)
      << GetParam().name << ": " << file.error();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseErrors,
    ::testing::Values(
        ErrorCase{"yaml syntax", "rules:\n  - id: [unclosed\n", "rules.yaml:"},
        ErrorCase{"not a map", "- a\n", "rules.yaml:1: a rule file is a map"},
        ErrorCase{"unknown top key", "rulez: []\n", "rules.yaml:1: unknown top-level key"},
        ErrorCase{"rules not a list", "rules: {a: 1}\n", "rules.yaml:1: `rules` must be a list"},
        ErrorCase{"no id", "rules:\n  - action: DENY\n    conditions: {}\n",
                  "rules.yaml:2: rule without an id"},
        ErrorCase{"bad action", "rules:\n  - id: x\n    conditions: {}\n    action: BLOCK\n",
                  "rules.yaml:4: rule x: action must be ALLOW, PASS, ASK, DENY or SAMPLE"},
        ErrorCase{"no action", "rules:\n  - id: x\n    conditions: {}\n", "rule x: no action"},
        ErrorCase{"no conditions", "rules:\n  - id: x\n    action: ASK\n", "rule x: no conditions"},
        ErrorCase{"unknown rule key", "rules:\n  - id: x\n    condition: {}\n    action: ASK\n",
                  "rules.yaml:3: unknown rule key \"condition\""},
        ErrorCase{"unknown condition",
                  "rules:\n  - id: x\n    conditions:\n      tool: Bash\n    action: ASK\n",
                  "rules.yaml:4: unknown condition \"tool\""},
        ErrorCase{"bad regex",
                  "rules:\n  - id: x\n    conditions:\n      command: '(a'\n    action: ASK\n",
                  "rules.yaml:4: command: invalid regex"},
        ErrorCase{"bad level",
                  "rules:\n  - id: x\n    conditions: {level: '>= L7'}\n    action: ASK\n",
                  "rules.yaml:3: level: expected L0..L3"},
        ErrorCase{"bad priority",
                  "rules:\n  - id: x\n    priority: high\n    conditions: {}\n    action: ASK\n",
                  "rules.yaml:3: rule x: priority must be an integer"},
        ErrorCase{"duplicate id",
                  "rules:\n  - {id: x, conditions: {}, action: ASK}\n"
                  "  - {id: x, conditions: {}, action: DENY}\n",
                  "rules.yaml:3: duplicate rule id x (first at line 2)"},
        ErrorCase{"nested error line",
                  "rules:\n  - id: x\n    conditions:\n      any:\n        - tool_name: Bash\n"
                  "        - not: {bogus: 1}\n    action: ASK\n",
                  "rules.yaml:6: unknown condition \"bogus\""},
        ErrorCase{
            "bad pattern kind",
            "rules:\n  - id: x\n    conditions: {parameters: {a: {re: x}}}\n    action: ASK\n",
            "rules.yaml:3: parameters.a: expected a string, {glob: …} or {regex: …}"}));

TEST(RuleLoader, EmptyFileHasNoRules) {
  auto file = ParseRuleFile("", "e.yaml", Layer::kUser);
  ASSERT_TRUE(file.ok());
  EXPECT_TRUE(file->rules.empty());
}

TEST(RuleLoader, BuiltinRulesParseAndCompile) {
  auto builtin = BuiltinRuleFile(/*compile_regexes=*/true);
  ASSERT_TRUE(builtin.ok()) << builtin.error();
  EXPECT_FALSE(builtin->rules.empty());
  for (const Rule& rule : builtin->rules) {
    EXPECT_NE(rule.action, Action::kAllow) << rule.id << ": built-in rules only protect";
    EXPECT_FALSE(rule.reason.empty()) << rule.id;
  }
}

TEST(RuleLoader, CompiledBuiltinRulesAreTheEmbeddedYaml) {
  // The hook reads the built-in rules as the constant data compiled at build
  // time; it must say exactly what config/rules.yaml says, down to the lines.
  auto compiled = BuiltinRuleFile();
  auto parsed = ParseRuleFile(*util::FindEmbeddedFile("rules.yaml"), std::string(kBuiltinRulesName),
                              Layer::kBuiltin);
  ASSERT_TRUE(compiled.ok()) << compiled.error();
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_FALSE(compiled->rules.empty());
  EXPECT_EQ(Describe(compiled->rules), Describe(parsed->rules));
}

TEST(RuleLoader, CompiledRulesKeepEveryConditionKind) {
  const fs::path fixture =
      fs::path(TOGMAL_SOURCE_DIR) / "tests/unit/rules/every_condition_kind.yaml";
  auto parsed = ReadRuleFile(fixture, Layer::kUser, /*compile_regexes=*/true);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  const std::vector<Rule> compiled =
      RulesFromRaw(kEveryConditionKindRules, fixture.string(), Layer::kUser);
  const nlohmann::json expected = Describe(parsed->rules);
  EXPECT_EQ(Describe(compiled), expected);
  ASSERT_EQ(compiled.size(), 2u);
  EXPECT_FALSE(compiled[0].enabled);
  EXPECT_EQ(compiled[0].action, Action::kSample);
  EXPECT_EQ(compiled[0].reason, "why \"quoted\" \\ back\tslash, naïve");
  // The fixture holds every kind: all, any, not, tool_name, parameter,
  // command, cwd, agent_id, agent_type, level.
  std::set<int> kinds;
  auto collect = [&kinds](const Condition& condition, auto& self) -> void {
    kinds.insert(static_cast<int>(condition.kind));
    for (const Condition& child : condition.children) self(child, self);
  };
  collect(compiled[0].conditions, collect);
  EXPECT_EQ(kinds.size(), 10u);
  EXPECT_NE(expected.dump().find("\"ci\":true"), std::string::npos);
  EXPECT_NE(expected.dump().find("\"regex\""), std::string::npos);
}

TEST(RuleLoader, ActionsAreCaseInsensitive) {
  auto file =
      ParseRuleFile("rules:\n  - {id: x, conditions: {}, action: sample}\n", "f", Layer::kUser);
  ASSERT_TRUE(file.ok()) << file.error();
  EXPECT_EQ(file->rules[0].action, Action::kSample);
}

RuleFile Must(const std::string& yaml, const std::string& name, Layer layer) {
  auto file = ParseRuleFile(yaml, name, layer, true);
  EXPECT_TRUE(file.ok()) << (file.ok() ? "" : file.error());
  return file.ok() ? std::move(*file) : RuleFile{};
}

TEST(Layering, UserRuleWithSameIdReplacesBuiltin) {
  std::vector<RuleFile> files;
  files.push_back(
      Must("rules:\n  - {id: a, priority: 5, conditions: {}, action: DENY}\n"
           "  - {id: b, priority: 6, conditions: {}, action: DENY}\n",
           "builtin", Layer::kBuiltin));
  files.push_back(Must("rules:\n  - {id: a, enabled: false}\n", "user", Layer::kUser));
  RuleSet set = CombineRuleFiles(std::move(files));
  ASSERT_EQ(set.rules.size(), 2u);
  for (const Rule& rule : set.rules) {
    if (rule.id == "a") {
      EXPECT_FALSE(rule.enabled);
      EXPECT_EQ(rule.layer, Layer::kUser);
    }
  }
  EXPECT_TRUE(set.warnings.empty());
}

TEST(Layering, AtEqualPriorityHigherLayerFirst) {
  std::vector<RuleFile> files;
  files.push_back(Must("rules:\n  - {id: b, priority: 5, conditions: {}, action: ASK}\n", "builtin",
                       Layer::kBuiltin));
  files.push_back(Must("rules:\n  - {id: u, priority: 5, conditions: {}, action: ALLOW}\n", "user",
                       Layer::kUser));
  files.push_back(Must("rules:\n  - {id: p, priority: 5, conditions: {}, action: DENY}\n",
                       "project", Layer::kProject));
  RuleSet set = CombineRuleFiles(std::move(files));
  ASSERT_EQ(set.rules.size(), 3u);
  EXPECT_EQ(set.rules[0].id, "p");
  EXPECT_EQ(set.rules[1].id, "u");
  EXPECT_EQ(set.rules[2].id, "b");
}

TEST(Layering, ProjectMayOnlyTighten) {
  std::vector<RuleFile> files;
  files.push_back(Must("rules:\n  - {id: guard, priority: 5, conditions: {}, action: DENY}\n",
                       "user.yaml", Layer::kUser));
  files.push_back(
      Must("rules:\n"
           "  - {id: loosen, priority: 1, conditions: {}, action: ALLOW}\n"
           "  - {id: guard, enabled: false}\n"
           "  - {id: tighten, priority: 2, conditions: {}, action: ASK}\n"
           "  - {id: review, priority: 3, conditions: {}, action: SAMPLE}\n",
           "proj.yaml", Layer::kProject));
  RuleSet set = CombineRuleFiles(std::move(files));
  std::vector<std::string> ids;
  for (const Rule& rule : set.rules) ids.push_back(rule.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"tighten", "review", "guard"}));
  ASSERT_EQ(set.warnings.size(), 2u);
  EXPECT_NE(set.warnings[0].find("proj.yaml:2: rule loosen ignored"), std::string::npos)
      << set.warnings[0];
  EXPECT_NE(set.warnings[1].find("proj.yaml:3: rule guard ignored"), std::string::npos)
      << set.warnings[1];
}

TEST(Layering, LoadRulesFindsProjectFileFromCwdUpward) {
  testing::TempDir dir;
  fs::path root = dir.path();
  WriteFile(root / "repo/.togmal/rules.yaml",
            "rules:\n  - {id: proj, conditions: {tool_name: Bash}, action: ASK}\n");
  WriteFile(root / "config/rules.yaml",
            "rules:\n  - {id: mine, conditions: {tool_name: Read}, action: ALLOW}\n");
  fs::create_directories(root / "repo/src/deep");
  auto set = LoadRules({.cwd = root / "repo/src/deep", .user_file = root / "config/rules.yaml"});
  ASSERT_TRUE(set.ok()) << set.error();
  bool proj = false, mine = false, builtin = false;
  for (const Rule& rule : set->rules) {
    proj |= rule.id == "proj" && rule.layer == Layer::kProject;
    mine |= rule.id == "mine" && rule.layer == Layer::kUser;
    builtin |= rule.layer == Layer::kBuiltin;
  }
  EXPECT_TRUE(proj);
  EXPECT_TRUE(mine);
  EXPECT_TRUE(builtin);
  ASSERT_EQ(set->files.size(), 3u);
  EXPECT_EQ(set->files[0], kBuiltinRulesName);

  auto elsewhere = LoadRules({.cwd = root / "config", .user_file = root / "none.yaml"});
  ASSERT_TRUE(elsewhere.ok()) << elsewhere.error();
  EXPECT_EQ(elsewhere->files.size(), 1u);
}

// Changes the working directory for one scope.
class ScopedCwd {
 public:
  explicit ScopedCwd(const fs::path& to) : before_(fs::current_path()) { fs::current_path(to); }
  ~ScopedCwd() { fs::current_path(before_); }
  ScopedCwd(const ScopedCwd&) = delete;
  ScopedCwd& operator=(const ScopedCwd&) = delete;

 private:
  fs::path before_;
};

TEST(Layering, ProjectFilesAreFoundUpToTheRepositoryRootOutermostFirst) {
  testing::TempDir dir;
  const fs::path root = fs::path(dir.path());
  WriteFile(root / "outside/.togmal/rules.yaml", "rules: []\n");
  WriteFile(root / "outside/repo/.togmal/rules.yaml", "rules: []\n");
  WriteFile(root / "outside/repo/pkg/.togmal/rules.yaml", "rules: []\n");
  fs::create_directories(root / "outside/repo/.git");
  fs::create_directories(root / "outside/repo/pkg/src");
  const std::vector<fs::path> expected = {root / "outside/repo/.togmal/rules.yaml",
                                          root / "outside/repo/pkg/.togmal/rules.yaml"};
  // The walk stops at the folder holding .git; a trailing slash, a `..` and a
  // relative cwd find the same files.
  EXPECT_EQ(FindProjectRuleFiles(root / "outside/repo/pkg/src"), expected);
  EXPECT_EQ(FindProjectRuleFiles(root / "outside/repo/pkg/src/"), expected);
  EXPECT_EQ(FindProjectRuleFiles(root / "outside/repo/pkg/src/../src"), expected);
  {
    ScopedCwd in(root / "outside/repo");
    EXPECT_EQ(FindProjectRuleFiles("pkg/src"), expected);
  }
  // Without a repository the walk goes on to the root, and a dangling link
  // counts (the call then says why the file was left out).
  fs::remove_all(root / "outside/repo/.git");
  fs::remove(root / "outside/repo/.togmal/rules.yaml");
  fs::create_symlink(root / "missing.yaml", root / "outside/repo/.togmal/rules.yaml");
  const std::vector<fs::path> all = FindProjectRuleFiles(root / "outside/repo/pkg/src");
  ASSERT_GE(all.size(), 3u);
  EXPECT_EQ(all[all.size() - 3], root / "outside/.togmal/rules.yaml");
  EXPECT_EQ(all[all.size() - 2], root / "outside/repo/.togmal/rules.yaml");
  EXPECT_EQ(all[all.size() - 1], root / "outside/repo/pkg/.togmal/rules.yaml");
  EXPECT_TRUE(FindProjectRuleFiles("").empty());
}

TEST(Layering, BrokenUserFileIsLeftOutAndNamed) {
  testing::TempDir dir;
  fs::path user = fs::path(dir.path()) / "rules.yaml";
  WriteFile(user, "rules:\n  - {id: x, action: NOPE, conditions: {}}\n");
  auto set = LoadRules({.cwd = {}, .user_file = user});
  ASSERT_TRUE(set.ok()) << set.error();
  ASSERT_EQ(set->ignored.size(), 1u);
  EXPECT_NE(set->ignored[0].find(user.string() + ":2:"), std::string::npos) << set->ignored[0];
  EXPECT_FALSE(set->rules.empty()) << "the built-in rules stay";
}

}  // namespace
}  // namespace togmal::rules
