#include "togmal/hook/tool_call.h"

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
                      BadInput{"not json", "{tool_name: Bash", "not JSON"},
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

TEST(ParseCheckArguments, AcceptsToolInputObject) {
  auto call = ParseCheckArguments(
      {{"tool_name", "Write"}, {"tool_input", {{"file_path", "/p/a"}}}, {"cwd", "/p"}});
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->tool_input, json({{"file_path", "/p/a"}}));
  EXPECT_EQ(call->cwd, "/p");
}

TEST(ParseCheckArguments, CollectsFlatFieldsAsAnMcpToolHookSendsThem) {
  auto call = ParseCheckArguments({{"tool_name", "Bash"},
                                   {"command", "git push"},
                                   {"file_path", ""},  // ${tool_input.file_path} of a Bash call
                                   {"cwd", "/p"},
                                   {"session_id", "s1"},
                                   {"response_format", "hook"}});
  ASSERT_TRUE(call.ok());
  EXPECT_EQ(call->tool_input, json({{"command", "git push"}}));
  EXPECT_EQ(call->session_id, "s1");
}

TEST(ParseCheckArguments, AcceptsToolInputAsJsonTextAndParamsWrapper) {
  auto call = ParseCheckArguments(
      {{"params", {{"tool_name", "Read"}, {"tool_input", R"({"file_path": ".env"})"}}}});
  ASSERT_TRUE(call.ok()) << call.error();
  EXPECT_EQ(call->tool_name, "Read");
  EXPECT_EQ(call->tool_input["file_path"], ".env");
  EXPECT_FALSE(ParseCheckArguments({{"tool_name", "Read"}, {"tool_input", "not json"}}).ok());
  EXPECT_FALSE(ParseCheckArguments({{"tool_input", json::object()}}).ok());
}

}  // namespace
}  // namespace togmal::hook
