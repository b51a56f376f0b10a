// The call's context read the same way for every front end.
#include "togmal/check/tool_call.h"

#include <gtest/gtest.h>

namespace togmal::check {
namespace {

TEST(ReadCallContext, ReadsTheHookInputsNamesAndLeavesOtherTypesEmpty) {
  const nlohmann::json input = {
      {"cwd", "/home/a/repo"},           {"session_id", "s1"},
      {"agent_id", "agent-7"},           {"agent_type", "general-purpose"},
      {"tool_use_id", "toolu_1"},        {"permission_mode", 42},  // wrong type: read as absent
      {"hook_event_name", "PreToolUse"}, {"tool_name", "Bash"}};
  policy::ToolCall call;
  call.permission_mode = "stale";
  ReadCallContext(input, call);
  EXPECT_EQ(call.cwd, "/home/a/repo");
  EXPECT_EQ(call.session_id, "s1");
  EXPECT_EQ(call.agent_id, "agent-7");
  EXPECT_EQ(call.agent_type, "general-purpose");
  EXPECT_EQ(call.tool_use_id, "toolu_1");
  EXPECT_EQ(call.permission_mode, "");
  EXPECT_EQ(call.hook_event_name, "PreToolUse");
  EXPECT_EQ(call.tool_name, "");  // not context: each front end reads it its own way

  policy::ToolCall from_array;
  ReadCallContext(nlohmann::json::array({"cwd"}), from_array);
  EXPECT_EQ(from_array.cwd, "");
}

}  // namespace
}  // namespace togmal::check
