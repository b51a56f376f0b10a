// `--format text`: one line per finding, as compilers print diagnostics, so
// editors and terminals can jump to them.
#include <sstream>

#include "togmal/scan/report_formats.h"

namespace togmal::scan {
namespace {

std::string Shown(const ScanReport& report, const std::string& file) {
  if (report.root.empty() || report.root == "." || file.starts_with('/')) return file;
  return (report.root / file).lexically_normal().generic_string();
}

}  // namespace

std::string FormatText(const ScanReport& report) {
  std::ostringstream out;
  std::size_t by_level[4] = {};
  for (const Finding& finding : report.findings) {
    ++by_level[policy::Index(finding.level)];
    out << Shown(report, finding.file) << ':' << finding.line;
    if (finding.column > 0) out << ':' << finding.column;
    out << ": " << policy::LevelName(finding.level) << ' ' << finding.reason << " — "
        << finding.command << "  [" << finding.origin << "]\n";
  }
  for (const Problem& problem : report.problems) {
    out << Shown(report, problem.file);
    if (problem.line > 0) out << ':' << problem.line;
    out << ": problem: " << problem.why << '\n';
  }
  out << report.findings.size() << (report.findings.size() == 1 ? " finding" : " findings") << " (";
  // The levels reported, highest first: L3 and L2, and below when asked.
  for (int level = 3; level >= policy::Index(report.min_level) || level >= 2; --level) {
    out << (level == 3 ? "" : ", ") << 'L' << level << ": "
        << by_level[static_cast<std::size_t>(level)];
  }
  out << ") in " << report.files << (report.files == 1 ? " file" : " files") << ", "
      << report.commands << " commands classified";
  if (!report.problems.empty()) {
    out << ", " << report.problems.size()
        << (report.problems.size() == 1 ? " problem" : " problems");
  }
  if (report.ignored > 0 || report.baselined > 0) {
    out << "; not reported: ";
    if (report.ignored > 0) out << report.ignored << " under `togmal: ignore`";
    if (report.ignored > 0 && report.baselined > 0) out << ", ";
    if (report.baselined > 0) out << report.baselined << " in the baseline";
  }
  out << '\n';
  return out.str();
}

}  // namespace togmal::scan
