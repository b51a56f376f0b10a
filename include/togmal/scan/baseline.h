#pragma once
/// A scan baseline: the findings a repository has accepted, so that a scan
/// (in CI, in a pre-commit hook) reports only new ones. A finding is matched
/// by its file and a fingerprint of its level and command text, not by its
/// line, so findings survive lines moving. docs/scan.md describes the file.

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "togmal/scan/scanner.h"
#include "togmal/util/result.h"

namespace togmal::scan {

/// The version written to and read from a baseline file.
inline constexpr int kBaselineVersion = 1;

/// 16 hex digits: FNV-1a (64 bits) of the level's name, a newline and the
/// command with runs of blanks made one space and the ends trimmed.
std::string Fingerprint(const Finding& finding);

/// The findings of `report` as a baseline file's JSON.
nlohmann::json BaselineJson(const ScanReport& report);

struct Baseline {
  /// (file, fingerprint) → how many findings of that file have it.
  std::map<std::pair<std::string, std::string>, std::size_t> counts;
};

/// Parses a baseline file; errors name `source`.
Result<Baseline> ParseBaseline(std::string_view text, std::string_view source);

/// Takes the findings the baseline holds out of `report` (each baseline
/// entry covers one finding) and counts them in `report.baselined`.
void ApplyBaseline(const Baseline& baseline, ScanReport& report);

}  // namespace togmal::scan
