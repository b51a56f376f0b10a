#include "togmal/policy/level.h"

namespace togmal::policy {

std::string_view LevelName(Level level) {
  switch (level) {
    case Level::kL0:
      return "L0";
    case Level::kL1:
      return "L1";
    case Level::kL2:
      return "L2";
    case Level::kL3:
      return "L3";
  }
  return "L2";
}

std::optional<Level> ParseLevel(std::string_view text) {
  if (text.size() != 2 || (text[0] != 'L' && text[0] != 'l')) return std::nullopt;
  switch (text[1]) {
    case '0':
      return Level::kL0;
    case '1':
      return Level::kL1;
    case '2':
      return Level::kL2;
    case '3':
      return Level::kL3;
    default:
      return std::nullopt;
  }
}

}  // namespace togmal::policy
