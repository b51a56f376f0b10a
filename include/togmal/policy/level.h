#pragma once
/// The four risk levels and their names: one type for the
/// classifier, the rules' `level` conditions and every decision.

#include <optional>
#include <string_view>

namespace togmal::policy {

/// L0 auto-approve, L1 notify, L2 require approval, L3 block. Ordered: a
/// higher value is riskier.
enum class Level { kL0 = 0, kL1 = 1, kL2 = 2, kL3 = 3 };

/// "L0".."L3".
std::string_view LevelName(Level level);

/// Parses "L0".."L3" (case-insensitive); nullopt otherwise.
std::optional<Level> ParseLevel(std::string_view text);

/// The level's index 0..3 (tables indexed by level).
constexpr int Index(Level level) { return static_cast<int>(level); }

/// Which table of levels applies (`profile:` in settings.yaml). kStandard is
/// for coding agents; kStrict is the seed's table (classifier.yaml rules
/// marked `profile: strict`, and the `profiles: strict:` settings).
enum class Profile { kStandard, kStrict };

/// The riskier of two levels.
constexpr Level Max(Level a, Level b) { return a < b ? b : a; }

/// One level up, at most L3.
constexpr Level Raise(Level level) {
  return level == Level::kL3 ? Level::kL3 : static_cast<Level>(static_cast<int>(level) + 1);
}

}  // namespace togmal::policy
