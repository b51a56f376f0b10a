#pragma once
/// SAMPLE rules in `serve`: the question put to the client's model through MCP
/// `sampling/createMessage`, and the strict reading of its answer. Anything
/// but a clear ALLOW or DENY with a reason is no verdict (the call is then
/// asked of the person).

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "togmal/check/tool_call.h"
#include "togmal/rules/decision.h"
#include "togmal/util/result.h"

namespace togmal::tools {

/// The `sampling/createMessage` params for a SAMPLE decision on `call`: the
/// tool call, the rule's guidance, the classifier's findings, and the demand
/// to answer `ALLOW: <reason>` or `DENY: <reason>` on the first line.
nlohmann::json SamplingRequest(const policy::ToolCall& call, const rules::Decision& decision);

/// The model's verdict: allow or deny and its reason. Fails for anything
/// else (no text, another first word, no reason).
Result<std::pair<rules::Permission, std::string>> ParseSamplingVerdict(
    const nlohmann::json& result);

}  // namespace togmal::tools
