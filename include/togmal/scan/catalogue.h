#pragma once
/// The scan catalogue (config/scan.yaml, embedded): which extractor reads
/// which file, the folders never entered, git hook names, make's built-in
/// variables and the GitHub contexts an outsider controls.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "togmal/util/result.h"

namespace togmal::scan {

/// The file formats `togmal scan` reads; each has one extractor.
enum class FileKind {
  kNone,
  kShellScript,
  kGithubActions,
  kGitlabCi,
  kDockerfile,
  kMakefile,
  kPackageJson,
  kPreCommitConfig,
  kDevcontainer,
};

/// The kind's name as written in config/scan.yaml and in reports ("github_actions").
std::string_view FileKindName(FileKind kind);

struct Catalogue {
  /// Globs on the path relative to the scanned root, in the order tried.
  std::vector<std::pair<FileKind, std::string>> file_globs;
  std::vector<std::string> git_hooks;
  std::vector<std::string> skip_folders;  ///< globs on a folder's base name
  std::map<std::string, std::string> make_builtins;
  std::vector<std::string> github_untrusted_contexts;  ///< globs
  /// Variables naming a file a CI runner reads back ($GITHUB_OUTPUT, …):
  /// writes to them are not findings.
  std::vector<std::string> ci_output_files;
  /// Classifier settings in force during a scan (name → level), layered on
  /// the classifier's own.
  std::map<std::string, std::string> classifier_settings;

  /// The built-in catalogue, parsed once (a broken embedded file is a build
  /// error caught by the tests, so this never fails at run time).
  static const Catalogue& Builtin();
  /// Parses a catalogue; errors name "source:line".
  static Result<Catalogue> FromYaml(std::string_view yaml, std::string_view source);
};

}  // namespace togmal::scan
