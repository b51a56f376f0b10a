#pragma once
/// Which audit entries a reader wants (`audit tail`, `audit export`): every
/// field that is set must hold. Times are compared as stored
/// ("YYYY-MM-DDTHH:MM:SS.ffffffZ", UTC), so a date prefix works as a bound.

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/util/result.h"

namespace togmal::store {

struct AuditFilter {
  std::string since;                   ///< entries at or after this time
  std::string until;                   ///< entries before this time
  std::vector<std::string> decisions;  ///< allow, pass, ask, deny (any of them)
  std::vector<std::string> levels;     ///< L0..L3 (any of them)
  std::string project;                 ///< the call ran in this directory or below it
  std::string tool;                    ///< the tool's name, exactly
  std::string session;                 ///< the host's session id, exactly

  bool Empty() const {
    return since.empty() && until.empty() && decisions.empty() && levels.empty() &&
           project.empty() && tool.empty() && session.empty();
  }
};

/// A time bound as a person writes it, as a stored time: a duration back
/// from `now` (`30m`, `12h`, `7d`, `2w`) or a UTC date or date and time
/// (`2026-11-27`, `2026-11-27T14:00`, `2026-11-27 14:00:05`).
Result<std::string> ParseTimeBound(std::string_view text,
                                   std::chrono::system_clock::time_point now);

/// The start of today on this machine's clock (local midnight), as a stored time.
std::string StartOfLocalDay(std::chrono::system_clock::time_point now);

}  // namespace togmal::store
