#pragma once
/// Renderings of an Analysis: the JSON shape of the analysis tools (README) and a readable
/// markdown report (risk level, what was detected and which words triggered
/// it, interventions).

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "togmal/analysis/analysis.h"

namespace togmal::analysis {

/// `{type, risk_level, risk_score, detections, interventions, similar_evidence}`.
/// `similar_evidence` must be an array (possibly empty).
nlohmann::json ToJson(const Analysis& analysis, std::string_view type,
                      nlohmann::json similar_evidence = nlohmann::json::array());

/// A markdown report of a ToJson() result (works on the JSON so that what is
/// shown and what is returned as structured content cannot drift apart).
std::string RenderMarkdown(const nlohmann::json& result);

}  // namespace togmal::analysis
