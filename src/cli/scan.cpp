// `togmal scan [PATH…]`: classify the shell commands a repository will run
// (scripts, CI jobs, Dockerfile RUN, Makefile recipes, package.json scripts,
// hooks, devcontainer commands) and report those at L2 and L3.

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "command.h"
#include "togmal/policy/classifier.h"
#include "togmal/scan/catalogue.h"
#include "togmal/scan/report_formats.h"
#include "togmal/scan/scanner.h"
#include "togmal/util/text.h"

namespace togmal::cli {
namespace {

struct ScanOptions {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string fail_on;
};

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
  command.footer(
      "Reads shell scripts, GitHub Actions and GitLab CI files, Dockerfiles, Makefiles,\n"
      "package.json scripts, .pre-commit-config.yaml, git hooks and devcontainer.json, and\n"
      "reports every command the classifier puts at L2 (needs approval) or L3 (blocked).\n"
      "Exit: 0 scanned (findings or not), 1 a finding at --fail-on's level or above,\n"
      "64 usage error, 66 a PATH does not exist.\n"
      "Examples:\n  togmal scan\n  togmal scan --fail-on L3 .\n"
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
    const scan::ScanReport report =
        scan::Scan(paths, policy::Classifier::Default(), scan::Catalogue::Builtin());
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
