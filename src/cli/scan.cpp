// `togmal scan [PATH…]`: classify the shell commands a repository will run
// (scripts, CI jobs, Dockerfile RUN, Makefile recipes, package.json scripts,
// hooks, devcontainer commands) and report those at the minimum level (L2)
// and above that no ignore comment or baseline accepts.

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "command.h"
#include "togmal/policy/classifier.h"
#include "togmal/scan/baseline.h"
#include "togmal/scan/catalogue.h"
#include "togmal/scan/report_formats.h"
#include "togmal/scan/scanner.h"
#include "togmal/util/config_file.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/text.h"

namespace togmal::cli {
namespace {

struct ScanOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string fail_on;
  std::string min_level = "L2";
  std::string baseline;
  std::string write_baseline;
};

const auto kLevels = CLI::IsMember({"L0", "L1", "L2", "L3", "l0", "l1", "l2", "l3"});

}  // namespace

Action DefineScan(CLI::App& command) {
  auto options = std::make_shared<ScanOptions>();
  command.add_option("PATH", options->paths,
                     "Folders or files to scan (default: the current folder)");
  command.add_option("--format", options->format, "text (default), json or sarif (SARIF 2.1.0)")
      ->check(CLI::IsMember({"text", "json", "sarif"}));
  command
      .add_option("--fail-on", options->fail_on,
                  "Exit 1 when a finding is at this level or above (L2 or L3)")
      ->check(CLI::IsMember({"L2", "L3", "l2", "l3"}));
  command
      .add_option("--min-level", options->min_level,
                  "Report findings at this level or above (L0..L3; default L2)")
      ->check(kLevels);
  command.add_option("--baseline", options->baseline,
                     "Do not report the findings this baseline file holds (see --write-baseline)");
  command.add_option("--write-baseline", options->write_baseline,
                     "Write the findings of this scan to FILE as a baseline (before --baseline "
                     "is applied)");
  command.footer(
      "Reads shell scripts, GitHub Actions and GitLab CI files, Dockerfiles, Makefiles,\n"
      "package.json scripts, .pre-commit-config.yaml, git hooks and devcontainer.json, and\n"
      "reports every command the classifier puts at L2 (needs approval) or L3 (blocked).\n"
      "A comment `togmal: ignore REASON` on a finding's line (or alone on the line before)\n"
      "keeps it out; a reason is required.\n"
      "Exit: 0 scanned (findings or not), 1 a finding at --fail-on's level or above,\n"
      "64 usage error, 65 not a baseline file, 66 a PATH or the baseline does not exist,\n"
      "73 the baseline cannot be written.\n"
      "Examples:\n  togmal scan\n  togmal scan --fail-on L3 .\n"
      "  togmal scan --write-baseline .togmal-baseline.json\n"
      "  togmal scan --baseline .togmal-baseline.json --fail-on L2\n"
      "  togmal scan --format sarif > togmal.sarif");
  return [options]() -> int {
    std::vector<std::filesystem::path> paths;
    for (const std::string& path : options->paths) {
      std::error_code error;
      if (!std::filesystem::exists(std::filesystem::symlink_status(path, error))) {
        std::cerr << "togmal scan: " << path << ": no such file or folder\n";
        return kExitNoInput;
      }
      paths.emplace_back(path);
    }
    if (paths.empty()) paths.emplace_back(".");
    std::optional<scan::Baseline> baseline;
    if (!options->baseline.empty()) {
      auto text = util::ReadConfigFile(options->baseline, 64u << 20);
      if (!text || !*text) {
        std::cerr << "togmal scan: " << options->baseline << ": "
                  << (text ? std::string("no such file") : text.error()) << '\n';
        return kExitNoInput;
      }
      auto parsed = scan::ParseBaseline(**text, options->baseline);
      if (!parsed) {
        std::cerr << "togmal scan: " << parsed.error() << '\n';
        return kExitDataErr;
      }
      baseline = std::move(*parsed);
    }
    const scan::Catalogue& catalogue = scan::Catalogue::Builtin();
    auto classifier = scan::ScanClassifier(policy::Classifier::Default(), catalogue);
    if (!classifier) {
      std::cerr << "togmal scan: " << classifier.error() << '\n';
      return kExitConfig;
    }
    scan::ScanOptions scan_options;
    scan_options.min_level = policy::ParseLevel(options->min_level).value_or(policy::Level::kL2);
    scan::ScanReport report = scan::Scan(paths, *classifier, catalogue, scan_options);
    if (!options->write_baseline.empty()) {
      std::ofstream out(options->write_baseline, std::ios::binary | std::ios::trunc);
      out << util::DumpJson(scan::BaselineJson(report), 2) << '\n';
      out.close();
      if (!out) {
        std::cerr << "togmal scan: cannot write " << options->write_baseline << '\n';
        return kExitCantCreat;
      }
      std::cerr << "togmal scan: wrote " << report.findings.size() << " findings to "
                << options->write_baseline << '\n';
    }
    if (baseline) scan::ApplyBaseline(*baseline, report);
    if (options->format == "json") {
      std::cout << util::DumpJson(scan::FormatJson(report), 2) << '\n';
    } else if (options->format == "sarif") {
      std::cout << util::DumpJson(scan::FormatSarif(report), 2) << '\n';
    } else {
      std::cout << scan::FormatText(report);
    }
    if (!options->fail_on.empty()) {
      const auto threshold = policy::ParseLevel(options->fail_on);
      if (threshold && !report.findings.empty() && scan::HighestLevel(report) >= *threshold) {
        return kExitFailure;
      }
    }
    return kExitOk;
  };
}

}  // namespace togmal::cli
