// Paths a command reads or writes, judged against the path tables
// (sensitive, system, config, scratch) and the project directory.
#include <cstdlib>
#include <filesystem>

#include "walker.h"

namespace togmal::policy {

bool Walker::InsideProject(std::string_view path) const {
  if (path.empty()) return true;
  namespace fs = std::filesystem;
  std::string expanded(path);
  if (expanded.front() == '~') {
    const char* home = std::getenv("HOME");
    if (home == nullptr || (expanded.size() > 1 && expanded[1] != '/')) return false;
    expanded = std::string(home) + expanded.substr(1);
  }
  if (expanded.front() == '$') return false;
  fs::path candidate(expanded);
  if (candidate.is_absolute()) {
    if (cwd_.empty()) return false;
  } else {
    if (cwd_.empty()) {
      const fs::path normal = candidate.lexically_normal();
      return normal.empty() || *normal.begin() != "..";
    }
    candidate = fs::path(cwd_) / candidate;
  }
  const fs::path relative =
      candidate.lexically_normal().lexically_relative(fs::path(cwd_).lexically_normal());
  return !relative.empty() && *relative.begin() != "..";
}

void Walker::CheckReadPath(std::string_view path, Level base, std::string_view segment) {
  if (path.empty() || path.size() > 4096 || path.find_first_of(" \t\n") != std::string_view::npos) {
    return;  // text, not a path
  }
  const std::string normalized = NormalizePath(path);
  if (!PathListMatches(tables_.sensitive, normalized)) return;
  if (PathListMatches(tables_.not_sensitive, normalized)) return;
  Add(Max(Raise(base), tables_.settings.sensitive_minimum),
      "'" + Shorten(path, 80) + "' is a sensitive file (secrets, keys or credentials).", segment);
}

void Walker::CheckWritePath(std::string_view path, Level inside_level, Level outside_level,
                            std::string_view segment, std::string_view what) {
  if (path.empty() || path.size() > 4096) return;
  const std::string normalized = NormalizePath(path);
  const std::string shown = "'" + Shorten(path, 80) + "'";
  if (PathListMatches(tables_.scratch, normalized)) {
    if (normalized.rfind("/dev/", 0) != 0) {
      Add(inside_level, std::string(what) + " " + shown + ", a scratch location.", segment);
    }
    return;
  }
  Level level = inside_level;
  std::string why;
  if (PathListMatches(tables_.system, normalized)) {
    level = Level::kL3;
    why = std::string(what) + " " + shown + ", a system or shell start-up file.";
  } else if (!InsideProject(normalized)) {
    level = outside_level;
    why = std::string(what) + " " + shown + ", outside the project.";
  } else {
    why = std::string(what) + " " + shown + " inside the project.";
  }
  if (PathListMatches(tables_.config, normalized) && level < Level::kL2) {
    level = Level::kL2;
    why = std::string(what) + " " + shown +
          ", a file that controls how the project builds, runs or deploys.";
  }
  if (PathListMatches(tables_.sensitive, normalized) &&
      !PathListMatches(tables_.not_sensitive, normalized)) {
    level = Max(Raise(level), tables_.settings.sensitive_minimum);
    why = std::string(what) + " " + shown + ", a sensitive file (secrets, keys or credentials).";
  }
  Add(level, std::move(why), segment);
}

}  // namespace togmal::policy
