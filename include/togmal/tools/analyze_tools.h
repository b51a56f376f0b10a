#pragma once
/// The analysis tools `togmal_analyze_prompt` and `togmal_analyze_response`,
/// bound to the MCP tool registry. They run analysis::AnalyzeText (the RE2
/// evidence and the active model) and return the analysis as
/// structuredContent, with a markdown (default) or JSON text rendering.

#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "togmal/mcp/tool.h"

namespace togmal::tools {

/// Finds stored evidence similar to a text, for the result's
/// `similar_evidence`: a JSON array of `{id, category, description, score}`,
/// best first. The tools keep at most 5 entries; anything but an array (or an
/// exception) counts as none.
using SimilarEvidenceFinder = std::function<nlohmann::json(std::string_view text)>;

/// Input limits of the analysis tools (README), in Unicode characters.
inline constexpr std::size_t kMaxPromptChars = 50000;
inline constexpr std::size_t kMaxResponseChars = 100000;
inline constexpr std::size_t kMaxContextChars = 10000;

/// The two tools, prompt first. `similar_evidence` may be empty (then the
/// result's `similar_evidence` is always `[]`).
std::vector<mcp::Tool> AnalyzeTools(SimilarEvidenceFinder similar_evidence = {});

/// Adds AnalyzeTools() to the registry.
void RegisterAnalyzeTools(mcp::ToolRegistry& registry, SimilarEvidenceFinder similar_evidence = {});

}  // namespace togmal::tools
