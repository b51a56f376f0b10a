#pragma once
/// The four risk levels of geofrey's model and what each means for a tool call.

#include <optional>
#include <string_view>

namespace togmal::policy {

/// L0 auto-approve, L1 notify, L2 require approval, L3 block. Ordered: a
/// higher value is riskier.
enum class Level { kL0 = 0, kL1 = 1, kL2 = 2, kL3 = 3 };

/// What a level means by default (design.md §2.2: L0 allow, L1 allow + notice,
/// L2 ask, L3 deny).
enum class Decision { kAllow, kAllowWithNotice, kAsk, kDeny };

/// "L0".."L3".
std::string_view LevelName(Level level);

/// Parses "L0".."L3" (case-insensitive); nullopt otherwise.
std::optional<Level> ParseLevel(std::string_view text);

/// The default decision for a level.
Decision DefaultDecision(Level level);

/// "allow", "allow" (with notice), "ask", "deny": the hook's permissionDecision.
std::string_view DecisionName(Decision decision);

/// The riskier of two levels.
constexpr Level Max(Level a, Level b) { return a < b ? b : a; }

/// One level up, at most L3.
constexpr Level Raise(Level level) {
  return level == Level::kL3 ? Level::kL3 : static_cast<Level>(static_cast<int>(level) + 1);
}

}  // namespace togmal::policy
