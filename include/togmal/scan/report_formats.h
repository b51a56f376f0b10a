#pragma once
/// The outputs of `togmal scan`: text for people, JSON for scripts, SARIF
/// 2.1.0 for code scanning (GitHub and others). docs/scan.md describes each.

#include <nlohmann/json.hpp>
#include <string>

#include "togmal/scan/scanner.h"

namespace togmal::scan {

/// `file:line[:column]: L3 reason — command` per finding, problems, a summary line.
std::string FormatText(const ScanReport& report);

/// {"root", "findings": [...], "problems": [...], "summary": {...}}.
nlohmann::json FormatJson(const ScanReport& report);

/// A SARIF 2.1.0 log with one run.
nlohmann::json FormatSarif(const ScanReport& report);

/// The SARIF rule id of a level ("togmal/L3-deny").
std::string SarifRuleId(policy::Level level);

}  // namespace togmal::scan
