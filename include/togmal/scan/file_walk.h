#pragma once
/// Which files of a repository `togmal scan` reads. A repository is
/// untrusted input: folders reached through symbolic links are not entered,
/// linked files are read only when they point inside the scanned root, and
/// dependency and build folders are skipped (config/scan.yaml).

#include <filesystem>
#include <string>
#include <vector>

#include "togmal/scan/catalogue.h"

namespace togmal::scan {

struct ScanFile {
  std::filesystem::path path;  ///< as it can be opened
  std::string relative;        ///< relative to the root, '/'-separated
  FileKind kind = FileKind::kNone;
};

struct WalkProblem {
  std::string relative;
  std::string why;
};

struct WalkResult {
  std::vector<ScanFile> files;  ///< sorted by `relative`
  std::vector<WalkProblem> problems;
};

/// The kind of the file at `relative` (its first bytes decide for files with
/// no extension: a sh/bash shebang, or a git hook name).
FileKind KindOf(std::string_view relative, std::string_view first_line, const Catalogue& catalogue);

/// The files under `start` (a folder) or `start` itself (a file), with the
/// extractor that reads each; their paths are made relative to `root`.
WalkResult FindScanFiles(const std::filesystem::path& start, const std::filesystem::path& root,
                         const Catalogue& catalogue);

}  // namespace togmal::scan
