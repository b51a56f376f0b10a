#pragma once
/// Test-only tools, compiled only into test builds (TOGMAL_BUILD_TESTS, which
/// defines TOGMAL_WITH_TEST_TOOLS) and registered by `togmal serve` only when
/// the environment has TOGMAL_TEST_TOOLS=1:
///  - togmal_test_echo {text}: returns the text, and {text} as structuredContent;
///  - togmal_test_ask {kind: "sampling"|"elicitation", question?, count?}: asks
///    the client `count` times through ToolContext::Ask and returns the answers.

#include "togmal/mcp/tool.h"

namespace togmal::mcp {

#ifdef TOGMAL_WITH_TEST_TOOLS
/// Whether the environment asks for the test tools (TOGMAL_TEST_TOOLS=1).
bool TestToolsRequested();

void RegisterTestTools(ToolRegistry& registry);
#endif

}  // namespace togmal::mcp
