#pragma once
// The decisions-over-time chart: inline SVG, no script, no library.

#include <map>
#include <string>

#include "togmal/store/decision_summary.h"

namespace togmal::report {

/// The decisions in the fixed stacking and colour order (allow at the bottom).
inline constexpr const char* kDecisionOrder[] = {"allow", "pass", "ask", "deny"};

/// A stacked bar per day from `first_day` to `last_day` (both "YYYY-MM-DD",
/// every day in between, empty ones too) of `by_day`; days outside the
/// range are left out, and so are all but the last 400 days of a longer one. An empty range draws
/// an empty frame with a note.
std::string DecisionChartSvg(const std::map<std::string, store::DecisionCountMap>& by_day,
                             const std::string& first_day, const std::string& last_day);

/// The day after `day` ("YYYY-MM-DD"), by the calendar.
std::string NextDay(const std::string& day);

}  // namespace togmal::report
