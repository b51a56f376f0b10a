#include "togmal/scan/scanner.h"

#include <algorithm>
#include <exception>
#include <set>
#include <system_error>

#include "ci_files.h"
#include "command_split.h"
#include "ignore_comments.h"
#include "local_functions.h"
#include "temp_folders.h"
#include "togmal/scan/extractors.h"
#include "togmal/scan/file_walk.h"
#include "togmal/util/config_file.h"
#include "togmal/util/text.h"

namespace togmal::scan {
namespace {

namespace fs = std::filesystem;

// A file with more commands than any real script stops being classified
// there (a 2 MiB file of one-word lines would otherwise take minutes).
constexpr std::size_t kMaxCommandsPerFile = 20'000;

// The longest command shown in a finding.
constexpr std::size_t kMaxShownCommand = 240;

std::string_view FirstLine(std::string_view text) { return text.substr(0, text.find('\n')); }

std::string_view BaseName(std::string_view relative) {
  const std::size_t slash = relative.rfind('/');
  return slash == std::string_view::npos ? relative : relative.substr(slash + 1);
}

// The origin of a shell script: a git hook (a hook name in a hooks folder)
// says which.
std::string ShellOrigin(std::string_view relative, const Catalogue& catalogue) {
  const std::string_view base = BaseName(relative);
  std::string_view folder;
  if (base.size() < relative.size()) {
    folder = BaseName(relative.substr(0, relative.size() - base.size() - 1));
  }
  const bool hook_folder = folder.find("hook") != std::string_view::npos || folder == ".husky";
  const bool hook_name = std::find(catalogue.git_hooks.begin(), catalogue.git_hooks.end(), base) !=
                         catalogue.git_hooks.end();
  if (base == ".pre-commit" || (hook_folder && hook_name)) return "git hook " + std::string(base);
  return "shell script";
}

// One classified chunk at L2 or above, placed on its line and column.
Finding Place(const ScriptSource& source, const CommandChunk& chunk,
              const std::vector<std::string_view>& text_lines,
              const std::vector<std::string_view>& file_lines, const policy::Finding& deciding) {
  Finding out;
  out.level = deciding.level;
  out.reason = deciding.why;
  out.origin = source.origin;
  // Which line of the chunk the deciding command starts on.
  const std::string_view key = util::Trim(FirstLine(deciding.segment), " \t\r");
  std::size_t at = key.empty() ? std::string::npos : chunk.text.find(key);
  std::size_t line_in_chunk = 0;
  if (at != std::string::npos) {
    line_in_chunk = static_cast<std::size_t>(
        std::count(chunk.text.begin(), chunk.text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  }
  if (source.mapping == LineMapping::kKept) {
    const std::size_t line_in_source = chunk.first_line + line_in_chunk;
    out.line = source.line + static_cast<int>(line_in_source);
    const std::string_view shown = line_in_source < text_lines.size()
                                       ? util::Trim(text_lines[line_in_source], " \t\r")
                                       : util::Trim(FirstLine(chunk.text), " \t\r");
    out.command = util::OneLine(shown, kMaxShownCommand);
    if (out.line >= 1 && static_cast<std::size_t>(out.line) <= file_lines.size()) {
      const std::string_view file_line = file_lines[static_cast<std::size_t>(out.line) - 1];
      const std::size_t from = line_in_source == 0 && source.column > 0
                                   ? static_cast<std::size_t>(source.column) - 1
                                   : 0;
      std::size_t column = key.empty() ? std::string::npos : file_line.find(key, from);
      if (column == std::string::npos && !shown.empty()) column = file_line.find(shown, from);
      if (column != std::string::npos) out.column = static_cast<int>(column) + 1;
    }
  } else {
    out.line = source.line;
    out.command = util::OneLine(util::Trim(chunk.text, " \t\r"), kMaxShownCommand);
    if (source.column > 0 && chunk.first_line == 0 && line_in_chunk == 0) {
      out.column = source.column;
      if (at != std::string::npos && source.text == source.ShellText()) {
        out.column += static_cast<int>(at);
      }
    }
  }
  return out;
}

// Where the file's commands run: npm, make, pre-commit and GitLab jobs in
// the file's own folder (so `npm test` is read from that package.json); CI
// workflows, devcontainers and scripts from the scanned root.
std::string WorkingFolder(const ScanFile& file, const std::string& root) {
  switch (file.kind) {
    case FileKind::kPackageJson:
    case FileKind::kMakefile:
    case FileKind::kPreCommitConfig:
    case FileKind::kGitlabCi: {
      std::error_code error;
      const fs::path folder = fs::absolute(file.path, error).lexically_normal().parent_path();
      return error ? root : folder.string();
    }
    default:
      return root;
  }
}

// The names among `names` that the classifier does not know as commands: a
// function another script of the repository defines may stand for them, but
// never for `rm` or `git` (a script's own `git()` wrapper is judged in that
// script only). A name is unknown when it is judged exactly as a name that
// cannot be a command is.
std::set<std::string, std::less<>> UnknownToClassifier(
    const std::set<std::string, std::less<>>& names, const policy::Classifier& classifier) {
  std::set<std::string, std::less<>> unknown;
  constexpr std::string_view kProbe = "togmal-no-such-command";
  const policy::Classification probe = classifier.ClassifyCommand(kProbe);
  const std::string probe_why = probe.Deciding().why;
  for (const std::string& name : names) {
    std::string expected = probe_why;
    for (std::size_t at = expected.find(kProbe); at != std::string::npos;
         at = expected.find(kProbe, at + name.size())) {
      expected.replace(at, kProbe.size(), name);
    }
    const policy::Classification judged = classifier.ClassifyCommand(name);
    if (judged.level == probe.level && judged.Deciding().why == expected) unknown.insert(name);
  }
  return unknown;
}

// Whether a finding is reported: at the minimum level or above, and not
// under a `togmal: ignore REASON` comment. An ignore without a reason keeps
// the finding and is a problem (once per comment).
class Admission {
 public:
  Admission(const std::vector<std::string_view>& file_lines, std::string_view relative,
            const ScanOptions& options, ScanReport& report)
      : file_lines_(file_lines), relative_(relative), options_(options), report_(report) {}

  bool Admit(const Finding& finding) {
    if (finding.level < options_.min_level) return false;
    const auto ignore = IgnoreFor(file_lines_, finding.line);
    if (!ignore) return true;
    if (!ignore->reason.empty()) {
      ++report_.ignored;
      return false;
    }
    if (unreasoned_.insert(ignore->line).second) {
      report_.problems.push_back(
          {std::string(relative_), ignore->line,
           "`togmal: ignore` needs a reason (`togmal: ignore REASON`): the finding is reported"});
    }
    return true;
  }

 private:
  const std::vector<std::string_view>& file_lines_;
  std::string_view relative_;
  const ScanOptions& options_;
  ScanReport& report_;
  std::set<int> unreasoned_;
};

}  // namespace

void ScanText(std::string_view text, FileKind kind, std::string_view relative,
              const std::string& cwd, const policy::Classifier& classifier,
              const Catalogue& catalogue, ScanReport& report, const ScanOptions& options) {
  Extraction extraction;
  try {
    extraction = kind == FileKind::kShellScript
                     ? ExtractShellScript(text, ShellOrigin(relative, catalogue))
                     : Extract(kind, text, catalogue);
  } catch (const std::exception& e) {
    // A shape no extractor expected (yaml-cpp throws on some): the file is a
    // problem, the scan goes on.
    report.problems.push_back(
        {std::string(relative), 0, std::string("cannot be read: ") + e.what()});
    return;
  }
  for (const SourceProblem& problem : extraction.problems) {
    report.problems.push_back({std::string(relative), problem.line, problem.why});
  }
  const std::vector<std::string_view> file_lines = Lines(text);
  Admission admission(file_lines, relative, options, report);
  for (const FormatFinding& finding : extraction.findings) {
    int column = finding.column;
    const std::string_view command = util::Trim(finding.command, " \t\r");
    if (column == 0 && finding.line >= 1 && !command.empty() &&
        static_cast<std::size_t>(finding.line) <= file_lines.size()) {
      const std::size_t at = file_lines[static_cast<std::size_t>(finding.line) - 1].find(command);
      if (at != std::string_view::npos) column = static_cast<int>(at) + 1;
    }
    Finding found{finding.level, finding.reason, std::string(relative),
                  finding.line,  column,         util::OneLine(command, kMaxShownCommand),
                  finding.origin};
    if (admission.Admit(found)) report.findings.push_back(std::move(found));
  }
  std::size_t classified = 0;
  for (const ScriptSource& source : extraction.scripts) {
    const std::vector<std::string_view> text_lines = Lines(source.text);
    auto functions = DefinedFunctions(source.ShellText());
    functions.insert(options.repository_functions.begin(), options.repository_functions.end());
    const auto temp_variables = TempVariables(source.ShellText());
    // One more than the budget left, so that going over it is seen.
    const std::size_t left = kMaxCommandsPerFile + 1 - std::min(classified, kMaxCommandsPerFile);
    for (CommandChunk& chunk : SplitCommands(source.ShellText(), left)) {
      if (++classified > kMaxCommandsPerFile) {
        report.problems.push_back({std::string(relative),
                                   source.line + static_cast<int>(chunk.first_line),
                                   "more than " + std::to_string(kMaxCommandsPerFile) +
                                       " commands: the rest of the file is not classified"});
        return;
      }
      ++report.commands;
      // What only a scan knows, from the whole script: its own functions,
      // the temp folders it made, the CI runner's output files.
      chunk.text = WithoutLocalFunctions(chunk.text, functions);
      chunk.text = WithoutTempRemovals(chunk.text, temp_variables);
      chunk.text = WithoutCiFileWrites(chunk.text, catalogue.ci_output_files);
      const policy::Classification classification = classifier.ClassifyCommand(chunk.text, cwd);
      if (classification.level < options.min_level) continue;
      Finding finding = Place(source, chunk, text_lines, file_lines, classification.Deciding());
      finding.file = std::string(relative);
      if (admission.Admit(finding)) report.findings.push_back(std::move(finding));
    }
  }
}

ScanReport Scan(const std::vector<fs::path>& paths, const policy::Classifier& classifier,
                const Catalogue& catalogue, const ScanOptions& options) {
  ScanReport report;
  report.min_level = options.min_level;
  std::error_code error;
  const bool one_folder = paths.size() == 1 && fs::is_directory(paths.front(), error);
  report.root = one_folder ? paths.front() : fs::path(".");
  const std::string cwd = fs::absolute(report.root, error).lexically_normal().string();
  // Every file is read first: the functions one script defines (a test
  // library every test sources) are known when another script calls them.
  struct Read {
    ScanFile file;
    std::string text;
  };
  std::vector<Read> files;
  std::set<std::string> seen;
  for (const fs::path& path : paths) {
    if (!fs::exists(fs::symlink_status(path, error))) {
      report.problems.push_back({path.generic_string(), 0, "no such file or folder"});
      continue;
    }
    WalkResult walk = FindScanFiles(path, report.root, catalogue);
    for (const WalkProblem& problem : walk.problems) {
      report.problems.push_back({problem.relative, 0, problem.why});
    }
    if (walk.files.empty() && !fs::is_directory(path, error)) {
      report.problems.push_back(
          {path.generic_string(), 0, "not a kind of file togmal scan reads (docs/scan.md)"});
    }
    for (ScanFile& file : walk.files) {
      if (!seen.insert(file.relative).second) continue;
      auto text = util::ReadConfigFile(file.path, options.max_file_bytes);
      if (!text || !*text) {
        report.problems.push_back(
            {file.relative, 0, text ? std::string("vanished while scanning") : text.error()});
        continue;
      }
      files.push_back({std::move(file), std::move(**text)});
    }
  }
  ScanOptions with_functions = options;
  std::set<std::string, std::less<>> defined;
  for (const Read& read : files) {
    if (read.file.kind == FileKind::kShellScript) defined.merge(DefinedFunctions(read.text));
  }
  with_functions.repository_functions = UnknownToClassifier(defined, classifier);
  for (const Read& read : files) {
    ++report.files;
    ScanText(read.text, read.file.kind, read.file.relative, WorkingFolder(read.file, cwd),
             classifier, catalogue, report, with_functions);
  }
  return report;
}

Result<policy::Classifier> ScanClassifier(const policy::Classifier& base,
                                          const Catalogue& catalogue) {
  if (catalogue.classifier_settings.empty()) return base;
  std::string yaml = "settings:\n";
  for (const auto& [name, level] : catalogue.classifier_settings) {
    yaml += "  " + name + ": " + level + "\n";
  }
  auto layered = policy::Classifier::FromYaml(yaml, "scan.yaml classifier_settings", &base);
  if (!layered) return Fail(layered.error());
  return std::move(*layered);
}

policy::Level HighestLevel(const ScanReport& report) {
  policy::Level highest = policy::Level::kL0;
  for (const Finding& finding : report.findings) highest = policy::Max(highest, finding.level);
  return highest;
}

}  // namespace togmal::scan
