#pragma once
/// The `response_format` argument that the analysis and taxonomy tools share.

#include <nlohmann/json.hpp>

namespace togmal::tools {

/// JSON Schema of `response_format`: markdown (the default) or json.
inline nlohmann::json ResponseFormatSchema() {
  return {{"type", "string"},
          {"enum", nlohmann::json::array({"markdown", "json"})},
          {"default", "markdown"},
          {"description", "Text content format: markdown for people (default), json for programs"}};
}

}  // namespace togmal::tools
