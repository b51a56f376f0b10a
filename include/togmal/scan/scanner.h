#pragma once
/// `togmal scan`: the shell commands a repository will run, classified by
/// the L0–L3 classifier. Commands at the minimum level (L2 unless asked) and
/// above are findings, unless an ignore comment or a baseline accepts them.

#include <cstddef>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "togmal/policy/classifier.h"
#include "togmal/policy/level.h"
#include "togmal/scan/catalogue.h"
#include "togmal/util/result.h"

namespace togmal::scan {

/// One command at the minimum level or above.
struct Finding {
  policy::Level level = policy::Level::kL2;
  std::string reason;   ///< the classifier's deciding reason
  std::string file;     ///< relative to the scanned root, '/'-separated
  int line = 1;         ///< 1-based
  int column = 0;       ///< 1-based; 0 when unknown
  std::string command;  ///< the command as written (one line)
  std::string origin;   ///< what runs it
};

/// A file, or a place in it, that could not be read.
struct Problem {
  std::string file;
  int line = 0;  ///< 0: the whole file
  std::string why;
};

struct ScanReport {
  /// What file paths are relative to, as given (`.` for the current folder).
  std::filesystem::path root;
  std::vector<Finding> findings;
  std::vector<Problem> problems;
  std::size_t files = 0;                         ///< files read
  std::size_t commands = 0;                      ///< commands classified
  policy::Level min_level = policy::Level::kL2;  ///< findings below it were not reported
  std::size_t ignored = 0;    ///< findings a `togmal: ignore REASON` comment kept out
  std::size_t baselined = 0;  ///< findings the baseline kept out (ApplyBaseline)
};

struct ScanOptions {
  std::size_t max_file_bytes = 2u << 20;         ///< larger files are a problem, not read
  policy::Level min_level = policy::Level::kL2;  ///< commands below it are not findings
  /// Functions other scripts of the scanned repository define, none of them
  /// a command the classifier knows: a call to one is not an unknown command
  /// (Scan fills it in; its body is classified where it is written).
  std::set<std::string, std::less<>> repository_functions;
};

/// Scans `paths` (folders or files). With one folder, paths are relative to
/// it; otherwise to the current folder.
ScanReport Scan(const std::vector<std::filesystem::path>& paths,
                const policy::Classifier& classifier, const Catalogue& catalogue,
                const ScanOptions& options = {});

/// Classifies the scripts of one file's text (what Scan does per file).
void ScanText(std::string_view text, FileKind kind, std::string_view relative,
              const std::string& cwd, const policy::Classifier& classifier,
              const Catalogue& catalogue, ScanReport& report, const ScanOptions& options = {});

/// `base` with the catalogue's `classifier_settings` on top: what a scan
/// judges with (a command substitution alone is not a finding in a script a
/// person reads whole; the hook keeps judging it as configured).
Result<policy::Classifier> ScanClassifier(const policy::Classifier& base,
                                          const Catalogue& catalogue);

/// The highest level of any finding (L0 when there are none).
policy::Level HighestLevel(const ScanReport& report);

}  // namespace togmal::scan
