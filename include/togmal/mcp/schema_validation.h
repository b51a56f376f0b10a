#pragma once
/// Validates tool arguments against a tool's `inputSchema` (the subset of JSON
/// Schema 2020-12 that tool schemas use: type, required, properties,
/// additionalProperties, enum, const, minimum/maximum and their exclusive
/// forms, minLength/maxLength, items, minItems/maxItems, anyOf). The message
/// of a failure names the path of the offending value, e.g.
/// `arguments.limit: must be <= 100, got 500`.

#include <nlohmann/json.hpp>
#include <string>

#include "togmal/util/result.h"

namespace togmal::mcp {

/// Checks `value` against `schema`; `path` names `value` in messages.
Result<void> ValidateAgainstSchema(const nlohmann::json& schema, const nlohmann::json& value,
                                   const std::string& path = "arguments");

}  // namespace togmal::mcp
