#include "togmal/report/suggestions.h"

#include <gtest/gtest.h>

namespace togmal::report {
namespace {

using nlohmann::json;

TEST(CallGroup, ProgramAndSubcommand) {
  auto bash = [](const std::string& command) {
    return CallGroup("Bash", json{{"command", command}});
  };
  EXPECT_EQ(bash("npm install lodash"), "npm install");
  EXPECT_EQ(bash("git push --force origin main"), "git push");
  EXPECT_EQ(bash("NODE_ENV=test CI=1 npm test"), "npm test");
  EXPECT_EQ(bash("/usr/bin/git status"), "git status");
  EXPECT_EQ(bash("rm -rf build"), "rm");
  EXPECT_EQ(bash("python3 script.py"), "python3");
  EXPECT_EQ(bash("head -n 5 file"), "head");
  EXPECT_EQ(bash("cat dir2"), "cat");
  EXPECT_EQ(bash("   "), "Bash");
  EXPECT_EQ(CallGroup("Write", json{{"file_path", "/x"}}), "Write");
}

store::ActionTally Action(const std::string& command, const std::string& code, int64_t approved,
                          int64_t refused, int64_t unknown = 0) {
  store::ActionTally action;
  action.tool_name = "Bash";
  action.input = {{"command", command}};
  action.allow_code = code;
  action.approved = approved;
  action.refused = refused;
  action.unknown = unknown;
  action.count = approved + refused + unknown;
  return action;
}

TEST(SuggestRules, ApprovedEveryTimeAcrossOneKindOfCall) {
  const std::vector<store::ActionTally> actions = {
      Action("npm install lodash", "AAAA", 2, 0),
      Action("npm install react", "BBBB", 1, 0, 1),
      Action("git push", "CCCC", 5, 1),    // refused once: still a prompt
      Action("make build", "DDDD", 2, 0),  // too few
      Action("cargo build", "", 4, 0),     // no code to allow it by
  };
  const std::vector<Suggestion> suggestions = SuggestRules(actions);
  ASSERT_EQ(suggestions.size(), 1u);
  EXPECT_EQ(suggestions[0].group, "npm install");
  EXPECT_EQ(suggestions[0].approved, 3);
  EXPECT_EQ(suggestions[0].answered, 4);
  EXPECT_EQ(suggestions[0].allow_lines,
            (std::vector<std::string>{"togmal allow AAAA --always", "togmal allow BBBB --always"}));
}

TEST(SuggestRules, AtMostALineCountPerSuggestion) {
  std::vector<store::ActionTally> actions;
  for (int i = 0; i < 8; ++i) {
    actions.push_back(
        Action("cat notes/" + std::to_string(i) + ".txt", "C00" + std::to_string(i), 1, 0));
  }
  const std::vector<Suggestion> suggestions = SuggestRules(actions);
  ASSERT_EQ(suggestions.size(), 1u);
  EXPECT_EQ(suggestions[0].group, "cat");
  EXPECT_EQ(suggestions[0].allow_lines.size(), kMaxLinesPerSuggestion);
  EXPECT_EQ(suggestions[0].more, 8 - kMaxLinesPerSuggestion);
}

}  // namespace
}  // namespace togmal::report
