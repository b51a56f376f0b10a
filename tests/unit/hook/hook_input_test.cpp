#include "togmal/hook/hook_input.h"

#include <gtest/gtest.h>

namespace togmal::hook {
namespace {

using json = nlohmann::json;

TEST(ParseHookInput, ReadsWhatClaudeCodeSends) {
  auto call = ParseHookInput(R"({
    "session_id": "abc123", "transcript_path": "/home/u/.claude/projects/x.jsonl",
    "cwd": "/home/u/proj", "permission_mode": "default", "hook_event_name": "PreToolUse",
    "tool_name": "Bash", "tool_input": {"command": "ls -la", "description": "List"},
    "tool_use_id": "toolu_01", "agent_id": "a1", "agent_type": "Explore", "future_field": 7})");
  ASSERT_TRUE(call.ok()) << call.error();
  EXPECT_EQ(call->tool_name, "Bash");
  EXPECT_EQ(call->tool_input["command"], "ls -la");
  EXPECT_EQ(call->cwd, "/home/u/proj");
  EXPECT_EQ(call->session_id, "abc123");
  EXPECT_EQ(call->agent_id, "a1");
  EXPECT_EQ(call->agent_type, "Explore");
  EXPECT_EQ(call->tool_use_id, "toolu_01");
  EXPECT_EQ(call->permission_mode, "default");
}

struct BadInput {
  const char* name;
  const char* text;
  const char* error;
};

class ParseHookInputErrors : public ::testing::TestWithParam<BadInput> {};

TEST_P(ParseHookInputErrors, SayWhatIsWrong) {
  auto call = ParseHookInput(GetParam().text);
  ASSERT_FALSE(call.ok()) << GetParam().name;
  EXPECT_NE(call.error().find(GetParam().error), std::string::npos) << call.error();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParseHookInputErrors,
    ::testing::Values(BadInput{"empty", "", "empty"}, BadInput{"blank", " \n\t", "empty"},
                      BadInput{"not json", "{tool_name: Bash", "not valid JSON"},
                      BadInput{"array", "[1,2]", "not a JSON object"},
                      BadInput{"no tool_name", R"({"tool_input": {}})", "no tool_name"},
                      BadInput{"tool_name number", R"({"tool_name": 3, "tool_input": {}})",
                               "no tool_name"},
                      BadInput{"no tool_input", R"({"tool_name": "Bash"})", "no tool_input"},
                      BadInput{"tool_input string", R"({"tool_name": "Bash", "tool_input": "ls"})",
                               "no tool_input"},
                      BadInput{"other event",
                               R"({"hook_event_name": "PostToolUse", "tool_name": "Bash",
                                   "tool_input": {}})",
                               "PreToolUse events only"}));

TEST(ParseHookInput, RefusesNestingThatWouldExhaustTheStack) {
  std::string deep = R"({"tool_name": "Bash", "tool_input": {"command": "ls", "x": )" +
                     std::string(20000, '[') + std::string(20000, ']') + "}}";
  auto call = ParseHookInput(deep);
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.error().find("nested"), std::string::npos) << call.error();
}

TEST(ParseHookInput, RefusesNumbersNoDoubleHolds) {
  auto call =
      ParseHookInput(R"({"tool_name": "Bash", "tool_input": {"command": "ls", "n": 1e400}})");
  ASSERT_FALSE(call.ok());
  EXPECT_NE(call.error().find("out of range"), std::string::npos) << call.error();
}

}  // namespace
}  // namespace togmal::hook
