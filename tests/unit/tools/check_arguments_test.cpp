// The arguments of togmal_check_tool_call, as an mcp_tool hook substitutes them.
#include "togmal/tools/check_arguments.h"

#include <gtest/gtest.h>

namespace togmal::tools {
namespace {

using json = nlohmann::json;

TEST(ParseCheckArguments, AcceptsToolInputObject) {
  auto parsed = ParseCheckArguments(
      {{"tool_name", "Write"}, {"tool_input", {{"file_path", "/p/a"}}}, {"cwd", "/p"}});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->call.tool_input, json({{"file_path", "/p/a"}}));
  EXPECT_EQ(parsed->call.cwd, "/p");
  EXPECT_TRUE(parsed->ignored_flat_fields.empty());
}

TEST(ParseCheckArguments, CollectsFlatFieldsAsAnMcpToolHookSendsThem) {
  auto parsed = ParseCheckArguments({{"tool_name", "Bash"},
                                     {"command", "git push"},
                                     {"file_path", ""},  // ${tool_input.file_path} of a Bash call
                                     {"cwd", "/p"},
                                     {"session_id", "s1"},
                                     {"response_format", "hook"}});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->call.tool_input, json({{"command", "git push"}}));
  EXPECT_EQ(parsed->call.session_id, "s1");
}

TEST(ParseCheckArguments, AcceptsToolInputAsJsonText) {
  auto parsed =
      ParseCheckArguments({{"tool_name", "Read"}, {"tool_input", R"({"file_path": ".env"})"}});
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->call.tool_name, "Read");
  EXPECT_EQ(parsed->call.tool_input["file_path"], ".env");
  EXPECT_FALSE(
      ParseCheckArguments({{"tool_name", "Read"}, {"tool_input", std::string(5000, '[')}}).ok());
  EXPECT_FALSE(ParseCheckArguments({{"tool_name", "Read"}, {"tool_input", "not json"}}).ok());
  EXPECT_FALSE(ParseCheckArguments({{"tool_input", json::object()}}).ok());
}

TEST(ParseCheckArguments, ReportsFlatFieldsThatDisagreeWithToolInput) {
  // Never judge one command and silently drop another.
  auto parsed = ParseCheckArguments({{"tool_name", "Bash"},
                                     {"tool_input", {{"command", "ls"}}},
                                     {"command", "rm -rf /"},
                                     {"description", "List"}});
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->call.tool_input["command"], "ls");
  EXPECT_EQ(parsed->call.tool_input["description"], "List");
  EXPECT_EQ(parsed->ignored_flat_fields, std::vector<std::string>{"command"});
  // The same value given twice is not ambiguous.
  auto same = ParseCheckArguments(
      {{"tool_name", "Bash"}, {"tool_input", {{"command", "ls"}}}, {"command", "ls"}});
  ASSERT_TRUE(same.ok());
  EXPECT_TRUE(same->ignored_flat_fields.empty());
}

}  // namespace
}  // namespace togmal::tools
