#include "togmal/scan/file_walk.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "togmal/util/glob.h"

namespace togmal::scan {
namespace {

namespace fs = std::filesystem;

// A folder deeper than this is not entered (a generated tree, or a trap).
constexpr int kMaxDepth = 40;

std::string_view BaseName(std::string_view relative) {
  const std::size_t slash = relative.rfind('/');
  return slash == std::string_view::npos ? relative : relative.substr(slash + 1);
}

std::string_view ParentName(std::string_view relative) {
  const std::size_t slash = relative.rfind('/');
  if (slash == std::string_view::npos) return {};
  return BaseName(relative.substr(0, slash));
}

// The program a `#!` line runs ("bash" for `#!/usr/bin/env bash`); "" if none.
std::string_view ShebangProgram(std::string_view first_line) {
  if (!first_line.starts_with("#!")) return {};
  std::string_view rest = first_line.substr(2);
  auto next_word = [&rest]() {
    while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
    const std::size_t end = std::min(rest.find_first_of(" \t\r"), rest.size());
    const std::string_view word = rest.substr(0, end);
    rest.remove_prefix(end);
    return word;
  };
  std::string_view program = BaseName(next_word());
  if (program == "env") {
    program = next_word();
    while (program.starts_with('-')) program = next_word();  // env -S bash
  }
  return BaseName(program);
}

bool IsShellProgram(std::string_view program) {
  return program == "sh" || program == "bash" || program == "dash";
}

// The first line (at most 256 bytes) of a regular file; "" for anything else.
// O_NONBLOCK: a FIFO must not block the scan.
std::string FirstLine(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return {};
  struct stat info {};
  char buffer[256] = {};
  ssize_t got = 0;
  if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) got = ::read(fd, buffer, sizeof buffer);
  ::close(fd);
  if (got <= 0) return {};
  const std::string_view head(buffer, static_cast<std::size_t>(got));
  return std::string(head.substr(0, head.find('\n')));
}

bool Skipped(std::string_view folder, const Catalogue& catalogue) {
  return std::any_of(catalogue.skip_folders.begin(), catalogue.skip_folders.end(),
                     [folder](const std::string& glob) { return util::GlobMatches(glob, folder); });
}

bool Inside(const fs::path& path, const fs::path& folder) {
  const fs::path relative = path.lexically_relative(folder);
  return !relative.empty() && *relative.begin() != "..";
}

// Adds `path` if some extractor reads it.
void Consider(const fs::path& path, const fs::path& root, const Catalogue& catalogue,
              WalkResult& out) {
  fs::path relative_path = fs::absolute(path).lexically_normal().lexically_relative(root);
  std::string relative = relative_path.generic_string();
  if (relative.empty() || relative.starts_with("..")) {
    relative = fs::absolute(path).lexically_normal().generic_string();
  }
  std::string first_line;
  // Only files no glob claims need their first bytes.
  const bool claimed =
      std::any_of(catalogue.file_globs.begin(), catalogue.file_globs.end(),
                  [&](const auto& entry) { return util::GlobMatches(entry.second, relative); });
  if (!claimed && BaseName(relative).find('.') == std::string_view::npos) {
    first_line = FirstLine(path);
  }
  const FileKind kind = KindOf(relative, first_line, catalogue);
  if (kind != FileKind::kNone) out.files.push_back({path, std::move(relative), kind});
}

}  // namespace

FileKind KindOf(std::string_view relative, std::string_view first_line,
                const Catalogue& catalogue) {
  for (const auto& [kind, glob] : catalogue.file_globs) {
    if (util::GlobMatches(glob, relative)) return kind;
  }
  const std::string_view base = BaseName(relative);
  const std::string_view program = ShebangProgram(first_line);
  const std::string_view parent = ParentName(relative);
  const bool hook_folder = parent.find("hook") != std::string_view::npos || parent == ".husky";
  const bool hook =
      base == ".pre-commit" ||
      (hook_folder && std::find(catalogue.git_hooks.begin(), catalogue.git_hooks.end(), base) !=
                          catalogue.git_hooks.end());
  if (hook)
    return program.empty() || IsShellProgram(program) ? FileKind::kShellScript : FileKind::kNone;
  if (base.find('.') == std::string_view::npos && IsShellProgram(program)) {
    return FileKind::kShellScript;
  }
  return FileKind::kNone;
}

WalkResult FindScanFiles(const fs::path& start, const fs::path& root_folder,
                         const Catalogue& catalogue) {
  WalkResult out;
  std::error_code error;
  const fs::path root = fs::absolute(root_folder, error).lexically_normal();
  const fs::path real_root = fs::weakly_canonical(root, error);
  const fs::file_status status = fs::symlink_status(start, error);
  if (!fs::is_directory(status)) {
    // A file named on the command line is read whatever links it (the person chose it).
    if (fs::exists(fs::status(start, error))) Consider(start, root, catalogue, out);
    return out;
  }
  fs::recursive_directory_iterator it(start, fs::directory_options::skip_permission_denied, error);
  if (error) {
    out.problems.push_back({start.generic_string(), "cannot read the folder: " + error.message()});
    return out;
  }
  for (; it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (error) {
      out.problems.push_back({it->path().generic_string(), error.message()});
      error.clear();
      continue;
    }
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    const bool link = entry.is_symlink(error);
    if (!link && entry.is_directory(error)) {
      if (it.depth() >= kMaxDepth) {
        it.disable_recursion_pending();
      } else if (name == ".git") {
        // Of git's own folder only the hooks run anything.
        it.disable_recursion_pending();
        const fs::path hooks = entry.path() / "hooks";
        if (fs::is_directory(fs::symlink_status(hooks, error))) {
          for (const auto& hook : fs::directory_iterator(hooks, error)) {
            if (hook.is_regular_file(error) && !hook.is_symlink(error)) {
              Consider(hook.path(), root, catalogue, out);
            }
          }
        }
      } else if (Skipped(name, catalogue)) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (link) {
      // Linked folders are never entered; a linked file only inside the tree.
      const fs::path target = fs::weakly_canonical(entry.path(), error);
      if (error || fs::is_directory(target, error)) {
        error.clear();
        continue;
      }
      if (!Inside(target, real_root)) continue;
    }
    if (entry.is_regular_file(error)) Consider(entry.path(), root, catalogue, out);
    error.clear();
  }
  std::sort(out.files.begin(), out.files.end(),
            [](const ScanFile& a, const ScanFile& b) { return a.relative < b.relative; });
  return out;
}

}  // namespace togmal::scan
