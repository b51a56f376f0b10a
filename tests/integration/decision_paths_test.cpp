// One decision path: for the repository's own classifier cases, with a user
// and a project rule file present, `togmal hook`, `togmal check --json`,
// `togmal rules explain --json` and togmal_check_tool_call (through `togmal
// serve`) give the same decision. They all ask check::Judge; this holds them
// to it through the built binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "process.h"
#include "serve_client.h"

namespace togmal::testing {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string tool;
  json input;
  int line = 0;
  std::string file;
};

// tests/unit/policy/classifier_cases.txt and classifier_attack_cases.txt:
// `L2 | command`, `L2 ~ command` (with \n and \t escapes), `L1 @ Tool {json}`.
std::vector<Case> ReadCases(const std::string& file, std::vector<Case>& cases) {
  std::ifstream in(std::string(TOGMAL_SOURCE_DIR) + "/tests/unit/policy/" + file);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.size() < 5 || line[0] != 'L') continue;
    const char kind = line[3];
    std::string rest = line.substr(5);
    if (kind == '|' || kind == '~') {
      if (kind == '~') {
        std::string text;
        for (std::size_t i = 0; i < rest.size(); ++i) {
          if (rest[i] == '\\' && i + 1 < rest.size() &&
              (rest[i + 1] == 'n' || rest[i + 1] == 't')) {
            text.push_back(rest[i + 1] == 'n' ? '\n' : '\t');
            ++i;
          } else {
            text.push_back(rest[i]);
          }
        }
        rest = text;
      }
      cases.push_back({"Bash", {{"command", rest}}, number, file});
    } else if (kind == '@') {
      const std::size_t space = rest.find(' ');
      json input = json::parse(rest.substr(space + 1), nullptr, false);
      if (input.is_object()) cases.push_back({rest.substr(0, space), input, number, file});
    }
  }
  return cases;
}

std::vector<Case> ReadCases() {
  std::vector<Case> cases;
  ReadCases("classifier_cases.txt", cases);
  ReadCases("classifier_attack_cases.txt", cases);
  return cases;
}

TEST(DecisionPaths, HookCheckExplainAndTheMcpToolAgree) {
  TempDir dir;
  const fs::path root = dir.path();
  const fs::path project = root / "home/user/project";
  fs::create_directories(project / ".git");
  fs::create_directories(root / "config/togmal");
  // Rules that move decisions away from the bare level mapping.
  std::ofstream(root / "config/togmal/rules.yaml")
      << "rules:\n"
         "  - {id: no-npm-test, conditions: {command: '^npm\\s+test'}, action: DENY}\n"
         "  - {id: make-ok, conditions: {command: '^make\\b'}, action: ALLOW}\n"
         "  - {id: ask-git-add, conditions: {command: '^git\\s+add'}, action: ASK}\n";
  fs::create_directories(project / ".togmal");
  std::ofstream(project / ".togmal/rules.yaml")
      << "rules:\n"
         "  - {id: no-push, conditions: {command: '^git\\s+push'}, action: DENY}\n"
         "  - {id: loosen, priority: 0, conditions: {command: '^rm'}, action: ASK}\n";
  // The whole minute for the hook's own deadline: this test compares the
  // decision paths, and under a loaded machine (the suite runs in parallel)
  // a hook past its default second answers "ask" by design (hook_faults_test).
  std::ofstream(root / "config/togmal/settings.yaml")
      << "hook:\n  levels: {L1: ask}\n  budget_ms: 60000\n";
  const EnvChanges env = {{"TOGMAL_DB", (root / "togmal.db").string()},
                          {"XDG_CONFIG_HOME", (root / "config").string()},
                          {"XDG_DATA_HOME", (root / "data").string()},
                          {"HOME", "/home/user"},
                          {"TOGMAL_LOG", std::nullopt}};

  std::vector<Case> cases = ReadCases();
  ASSERT_GT(cases.size(), 500u);
  // Each case costs three processes: one case in five here (about 1,700 of
  // the tables' 8,400), fewer under the sanitizers (TOGMAL_DECISION_PATHS_STRIDE;
  // 1 checks them all). The tables' own ctest checks every case's level.
  std::size_t stride = 5;
  if (const char* value = std::getenv("TOGMAL_DECISION_PATHS_STRIDE")) {
    stride = std::max<std::size_t>(1, std::strtoul(value, nullptr, 10));
  }
  // The cases in a fixed shuffled order, so that any prefix of them samples
  // every table; past the deadline the rest are left out rather than the
  // test overrunning its CTest timeout on a slow or loaded machine (a
  // sanitizer build's process costs ten to a hundred times a plain one's).
  // A floor of cases must still have been checked.
  std::vector<std::size_t> order(cases.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::shuffle(order.begin(), order.end(), std::mt19937(20261128));
  order.resize(cases.size() / stride);
  std::chrono::seconds budget(200);
  if (const char* value = std::getenv("TOGMAL_DECISION_PATHS_SECONDS")) {
    budget = std::chrono::seconds(std::max(1L, std::strtol(value, nullptr, 10)));
  }
  const auto deadline = std::chrono::steady_clock::now() + budget;

  ServeClient serve({}, env);
  serve.Initialize("2025-06-18");
  std::size_t checked = 0;
  for (const std::size_t i : order) {
    if (std::chrono::steady_clock::now() > deadline) break;
    const Case& c = cases[i];
    const std::string where = c.file + ":" + std::to_string(c.line);
    const std::string input = c.input.dump();

    json event = {{"session_id", "s"},
                  {"transcript_path", "/tmp/t.jsonl"},
                  {"cwd", project.string()},
                  {"permission_mode", "default"},
                  {"hook_event_name", "PreToolUse"},
                  {"tool_name", c.tool},
                  {"tool_input", c.input},
                  {"tool_use_id", "t"}};
    auto hook = RunProcess({TogmalBinary(), "hook"}, event.dump(), env, std::chrono::seconds(60));
    ASSERT_EQ(hook.exit_code, 0) << where << hook.err;
    // No permissionDecision at all is pass: Claude Code's own gate decides.
    const json answer = json::parse(hook.out);
    const std::string by_hook =
        answer.empty() ? "pass"
                       : answer["hookSpecificOutput"]["permissionDecision"].get<std::string>();

    auto check = RunProcess({TogmalBinary(), "check", "--json", "--cwd", project.string(), "--tool",
                             c.tool, "--input", input},
                            "", env, std::chrono::seconds(60));
    ASSERT_EQ(check.exit_code, 0) << where << check.err;
    EXPECT_EQ(json::parse(check.out)["decision"], by_hook) << where << ": togmal check";

    auto explain = RunProcess({TogmalBinary(), "rules", "explain", "--json", "--cwd",
                               project.string(), "--tool", c.tool, "--input", input},
                              "", env, std::chrono::seconds(60));
    ASSERT_EQ(explain.exit_code, 0) << where << explain.err;
    EXPECT_EQ(json::parse(explain.out)["decision"], by_hook) << where << ": rules explain";

    json response = serve.Call(ToolCall(static_cast<int>(i), "togmal_check_tool_call",
                                        {{"tool_name", c.tool},
                                         {"tool_input", c.input},
                                         {"cwd", project.string()},
                                         {"response_format", "json"}}));
    EXPECT_EQ(response["result"]["structuredContent"]["decision"], by_hook)
        << where << ": togmal_check_tool_call " << response.dump().substr(0, 500);
    ++checked;
  }
  std::printf("checked %zu of %zu cases on all four paths\n", checked, cases.size());
  // Under a sanitizer on a loaded machine a process can take a second or two
  // to start (TOGMAL_DECISION_PATHS_MINIMUM lowers the floor there).
  std::size_t minimum = 150;
  if (const char* value = std::getenv("TOGMAL_DECISION_PATHS_MINIMUM")) {
    minimum = std::strtoul(value, nullptr, 10);
  }
  EXPECT_GE(checked, std::min(order.size(), minimum));
}

}  // namespace
}  // namespace togmal::testing
