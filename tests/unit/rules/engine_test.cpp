#include "togmal/rules/engine.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "togmal/rules/rule_loader.h"

namespace togmal::rules {
namespace {

using json = nlohmann::json;

RuleSet Parse(const std::string& yaml, Layer layer = Layer::kUser) {
  auto file = ParseRuleFile(yaml, "test.yaml", layer, /*compile_regexes=*/true);
  EXPECT_TRUE(file.ok()) << (file.ok() ? "" : file.error());
  std::vector<RuleFile> files;
  if (file.ok()) files.push_back(std::move(*file));
  return CombineRuleFiles(std::move(files));
}

std::string Winner(const RuleSet& set, const Facts& facts) {
  auto match = FirstMatch(set, facts);
  EXPECT_TRUE(match.ok()) << (match.ok() ? "" : match.error());
  return match.ok() && *match != nullptr ? (*match)->id : "";
}

Facts Call(std::string tool, json input = json::object()) {
  Facts facts;
  facts.call.tool_name = std::move(tool);
  facts.call.tool_input = std::move(input);
  facts.call.cwd = "/home/u/proj";
  return facts;
}

// One rule per condition kind, each at its own priority, so the table below
// shows which condition fired.
constexpr const char* kConditionRules = R"(
rules:
  - id: tool-list
    priority: 1
    conditions: {tool_name: [WebFetch, WebSearch]}
    action: ASK
  - id: tool-glob-lowercase
    priority: 2
    conditions: {tool_name: "mcp__github__*"}
    action: DENY
  - id: param-glob
    priority: 3
    conditions: {tool_name: Write, parameters: {file_path: "**/.env"}}
    action: DENY
  - id: param-regex
    priority: 4
    conditions: {parameters: {url: {regex: '^http://'}}}
    action: ASK
  - id: param-nested-array
    priority: 5
    conditions: {parameters: {edits.new_string: {regex: 'password\s*='}}}
    action: DENY
  - id: param-number
    priority: 6
    conditions: {tool_name: Bash, parameters: {timeout: "600000"}}
    action: ASK
  - id: command
    priority: 7
    conditions: {tool_name: Bash, command: '^git\s+push\b'}
    action: ASK
  - id: cwd
    priority: 8
    conditions: {cwd: "/srv/prod/**"}
    action: DENY
  - id: agent-type
    priority: 9
    conditions: {agent_type: "Explore", tool_name: [Write, Edit]}
    action: DENY
  - id: agent-id
    priority: 10
    conditions: {agent_id: "agent-7*"}
    action: ASK
  - id: level-ge
    priority: 11
    conditions: {level: ">= L3"}
    action: DENY
  - id: level-eq
    priority: 12
    conditions: {level: "L2", tool_name: Glob}
    action: ASK
  - id: level-lt
    priority: 13
    conditions: {level: "<L1", tool_name: Read}
    action: ALLOW
)";

struct MatchCase {
  const char* name;
  Facts facts;
  const char* expected;  // "" = no rule
};

Facts With(Facts facts, void (*change)(Facts&)) {
  change(facts);
  return facts;
}

class ConditionTable : public ::testing::TestWithParam<MatchCase> {};

TEST_P(ConditionTable, FirstMatchingRule) {
  static const RuleSet set = Parse(kConditionRules);
  EXPECT_EQ(Winner(set, GetParam().facts), GetParam().expected) << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ConditionTable,
    ::testing::Values(
        MatchCase{"tool list", Call("WebSearch", {{"query", "x"}}), "tool-list"},
        MatchCase{"tool names are case-insensitive", Call("webfetch"), "tool-list"},
        MatchCase{"tool glob", Call("mcp__github__merge_pr"), "tool-glob-lowercase"},
        MatchCase{"tool glob miss", Call("mcp__gitlab__merge"), ""},
        MatchCase{"parameter glob", Call("Write", {{"file_path", "/home/u/proj/.env"}}),
                  "param-glob"},
        MatchCase{"parameter glob other tool", Call("Edit", {{"file_path", "/p/.env"}}), ""},
        MatchCase{"parameter glob miss", Call("Write", {{"file_path", "/p/.env.example"}}), ""},
        MatchCase{"parameter regex", Call("WebFetchX", {{"url", "http://x"}}), "param-regex"},
        MatchCase{"parameter regex miss", Call("WebFetchX", {{"url", "https://x"}}), ""},
        MatchCase{"parameter missing", Call("WebFetchX", {{"uri", "http://x"}}), ""},
        MatchCase{"parameter in array",
                  Call("MultiEdit", {{"file_path", "a"},
                                     {"edits", json::array({{{"new_string", "x"}},
                                                            {{"new_string", "password = 1"}}})}}),
                  "param-nested-array"},
        MatchCase{"parameter number", Call("Bash", {{"command", "ls"}, {"timeout", 600000}}),
                  "param-number"},
        MatchCase{"command segment",
                  With(Call("Bash"),
                       [](Facts& f) {
                         f.executed_segments = {"cd repo", "git push origin main"};
                       }),
                  "command"},
        MatchCase{"command is only executed text",
                  With(Call("Bash", {{"command", "echo git push"}}),
                       [](Facts& f) { f.executed_segments = {"echo git push"}; }),
                  ""},
        MatchCase{"cwd", With(Call("Read"), [](Facts& f) { f.call.cwd = "/srv/prod/app"; }), "cwd"},
        MatchCase{"agent type", With(Call("Edit"), [](Facts& f) { f.call.agent_type = "Explore"; }),
                  "agent-type"},
        MatchCase{"agent type other tool",
                  With(Call("Read"),
                       [](Facts& f) {
                         f.call.agent_type = "Explore";
                         f.level = static_cast<policy::Level>(1);
                       }),
                  ""},
        MatchCase{"agent id", With(Call("Read"), [](Facts& f) { f.call.agent_id = "agent-77"; }),
                  "agent-id"},
        MatchCase{"main agent has no id", Call("Glob"), ""},
        MatchCase{"level >=",
                  With(Call("Anything"), [](Facts& f) { f.level = static_cast<policy::Level>(3); }),
                  "level-ge"},
        MatchCase{"level ==",
                  With(Call("Glob"), [](Facts& f) { f.level = static_cast<policy::Level>(2); }),
                  "level-eq"},
        MatchCase{"level == miss",
                  With(Call("Glob"), [](Facts& f) { f.level = static_cast<policy::Level>(1); }),
                  ""},
        MatchCase{"level <", Call("Read", {{"file_path", "a"}}), "level-lt"},
        MatchCase{"level < miss",
                  With(Call("Read"), [](Facts& f) { f.level = static_cast<policy::Level>(1); }),
                  ""}));

TEST(Engine, LowerPriorityWinsRegardlessOfFileOrder) {
  RuleSet set = Parse(R"(
rules:
  - {id: late, priority: 20, conditions: {tool_name: Bash}, action: ALLOW}
  - {id: early, priority: 5, conditions: {tool_name: Bash}, action: DENY}
)");
  EXPECT_EQ(Winner(set, Call("Bash")), "early");
}

TEST(Engine, TiesGoInFileOrder) {
  RuleSet set = Parse(R"(
rules:
  - {id: first, priority: 7, conditions: {tool_name: Bash}, action: ASK}
  - {id: second, priority: 7, conditions: {tool_name: Bash}, action: DENY}
  - {id: third, priority: 7, conditions: {tool_name: "*"}, action: DENY}
)");
  EXPECT_EQ(Winner(set, Call("Bash")), "first");
  EXPECT_EQ(Winner(set, Call("Read")), "third");
}

TEST(Engine, DisabledRulesNeverMatch) {
  RuleSet set = Parse(R"(
rules:
  - {id: off, priority: 1, enabled: false, conditions: {}, action: DENY}
  - {id: on, priority: 2, conditions: {}, action: ASK}
)");
  EXPECT_EQ(Winner(set, Call("Read")), "on");
}

TEST(Engine, EmptyConditionsMatchEverything) {
  RuleSet set = Parse("rules:\n  - {id: all, conditions: {}, action: ASK}\n");
  EXPECT_EQ(Winner(set, Call("Whatever")), "all");
}

TEST(Engine, AllAnyNotNestAtAnyDepth) {
  RuleSet set = Parse(R"(
rules:
  - id: nested
    conditions:
      any:
        - all:
            - tool_name: Bash
            - not:
                any:
                  - command: '^ls\b'
                  - command: '^pwd$'
        - all:
            - tool_name: [Write, Edit]
            - not: {parameters: {file_path: "/home/u/proj/**"}}
    action: ASK
)");
  auto bash = [](std::vector<std::string> segments) {
    Facts f = Call("Bash");
    f.executed_segments = std::move(segments);
    return f;
  };
  EXPECT_EQ(Winner(set, bash({"rm x"})), "nested");
  EXPECT_EQ(Winner(set, bash({"ls -la"})), "");
  EXPECT_EQ(Winner(set, bash({"pwd"})), "");
  EXPECT_EQ(Winner(set, bash({"pwd", "ls"})), "");
  EXPECT_EQ(Winner(set, Call("Write", {{"file_path", "/etc/hosts"}})), "nested");
  EXPECT_EQ(Winner(set, Call("Write", {{"file_path", "/home/u/proj/a.txt"}})), "");
  EXPECT_EQ(Winner(set, Call("Read", {{"file_path", "/etc/hosts"}})), "");
}

TEST(Engine, KeysOfOneMapAreAnded) {
  RuleSet set = Parse(R"(
rules:
  - id: both
    conditions: {tool_name: Write, parameters: {file_path: "*.md", content: {regex: TODO}}}
    action: ASK
)");
  EXPECT_EQ(Winner(set, Call("Write", {{"file_path", "a.md"}, {"content", "a TODO"}})), "both");
  EXPECT_EQ(Winner(set, Call("Write", {{"file_path", "a.md"}, {"content", "done"}})), "");
  EXPECT_EQ(Winner(set, Call("Write", {{"file_path", "a.txt"}, {"content", "TODO"}})), "");
}

TEST(Engine, RegexIsCompiledOnlyWhenCheaperConditionsMatched) {
  // An invalid regex, loaded lazily as the hook does: harmless until a call
  // gets past the tool_name check, then an error naming the file and line.
  auto file = ParseRuleFile(R"(rules:
  - id: broken
    conditions:
      command: '(unclosed'
      tool_name: Bash
    action: DENY
)",
                            "lazy.yaml", Layer::kUser, /*compile_regexes=*/false);
  ASSERT_TRUE(file.ok()) << file.error();
  std::vector<RuleFile> files;
  files.push_back(std::move(*file));
  RuleSet set = CombineRuleFiles(std::move(files));
  auto read = FirstMatch(set, Call("Read"));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, nullptr);
  Facts bash = Call("Bash");
  bash.executed_segments = {"ls"};
  auto failed = FirstMatch(set, bash);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().find("lazy.yaml:4"), std::string::npos) << failed.error();
}

TEST(Engine, LayerFilterExcludesLayers) {
  RuleSet set = Parse("rules:\n  - {id: p, conditions: {}, action: DENY}\n", Layer::kProject);
  auto without = FirstMatch(set, Call("Read"), LayerFilter{.project = false});
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(*without, nullptr);
  EXPECT_EQ(Winner(set, Call("Read")), "p");
}

}  // namespace
}  // namespace togmal::rules
