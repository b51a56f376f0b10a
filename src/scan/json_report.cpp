// `--format json`: the report as one JSON object (documented in docs/scan.md).
#include "togmal/scan/report_formats.h"

namespace togmal::scan {

nlohmann::json FormatJson(const ScanReport& report) {
  nlohmann::json findings = nlohmann::json::array();
  std::size_t by_level[4] = {};
  for (const Finding& finding : report.findings) {
    ++by_level[policy::Index(finding.level)];
    nlohmann::json entry = {{"level", policy::LevelName(finding.level)},
                            {"file", finding.file},
                            {"line", finding.line}};
    if (finding.column > 0) entry["column"] = finding.column;
    entry["command"] = finding.command;
    entry["reason"] = finding.reason;
    entry["origin"] = finding.origin;
    findings.push_back(std::move(entry));
  }
  nlohmann::json problems = nlohmann::json::array();
  for (const Problem& problem : report.problems) {
    nlohmann::json entry = {{"file", problem.file}};
    if (problem.line > 0) entry["line"] = problem.line;
    entry["why"] = problem.why;
    problems.push_back(std::move(entry));
  }
  return {{"root", report.root.generic_string()},
          {"findings", std::move(findings)},
          {"problems", std::move(problems)},
          {"summary",
           {{"files", report.files},
            {"commands", report.commands},
            {"findings", report.findings.size()},
            {"L3", by_level[3]},
            {"L2", by_level[2]},
            {"L1", by_level[1]},
            {"L0", by_level[0]},
            {"min_level", policy::LevelName(report.min_level)},
            {"ignored", report.ignored},
            {"baselined", report.baselined},
            {"problems", report.problems.size()},
            {"highest", report.findings.empty()
                            ? nlohmann::json(nullptr)
                            : nlohmann::json(policy::LevelName(HighestLevel(report)))}}}};
}

}  // namespace togmal::scan
