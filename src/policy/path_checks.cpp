// Paths a command reads or writes, judged against the path tables
// (sensitive, system, runs_later, scratch, the guard's own files) and the
// project directory; `cd` and `ln -s` earlier in the line move where a
// relative path or a link points.
#include <cstdlib>
#include <filesystem>

#include "togmal/util/config_file.h"
#include "walker.h"
#include "write_content.h"

namespace togmal::policy {
namespace {

namespace fs = std::filesystem;

/// `cd "$TMPDIR"`, `cd $TMPDIR/work`, `cd "$(mktemp -d)"`: a scratch
/// directory whose path is known only at run time (never with `..`).
bool FreshScratch(std::string_view dir) {
  if (dir.find("..") != std::string_view::npos) return false;
  for (std::string_view prefix : {"$TMPDIR", "${TMPDIR}"}) {
    if (dir.starts_with(prefix) && (dir.size() == prefix.size() || dir[prefix.size()] == '/')) {
      return dir.find_first_of("$`", 1) == std::string_view::npos ||
             dir.find_first_of("$`", 1) >= prefix.size();
    }
  }
  return dir == "$(mktemp -d)" || dir == "`mktemp -d`";
}

std::string Normal(const fs::path& path) {
  std::string out = path.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

/// `~`, `~/x`, `$HOME/x`, `${HOME}/x` with the home directory; other words as written.
std::string ExpandHome(std::string_view path) {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return std::string(path);
  for (std::string_view prefix : {"~", "$HOME", "${HOME}"}) {
    if (path.substr(0, prefix.size()) == prefix &&
        (path.size() == prefix.size() || path[prefix.size()] == '/')) {
      return std::string(home) + std::string(path.substr(prefix.size()));
    }
  }
  return std::string(path);
}

}  // namespace

std::string Walker::Resolve(std::string_view path) const {
  if (path.empty()) return {};
  std::string expanded = ExpandHome(path);
  std::string resolved;
  if (expanded.front() == '/') {
    resolved = Normal(expanded);
  } else if (expanded.front() == '~' || expanded.front() == '$' || line_.cwd_unknown ||
             line_.cwd.empty()) {
    return Normal(expanded);  // `~user`, `$DIR/x`, or no known directory: as written
  } else {
    resolved = Normal(fs::path(line_.cwd) / expanded);
  }
  // A link made earlier in this line (`ln -s ~/.config/togmal cfg`) points elsewhere.
  for (const auto& [link, target] : line_.links) {
    if (resolved == link) return target;
    if (resolved.size() > link.size() && resolved.compare(0, link.size(), link) == 0 &&
        resolved[link.size()] == '/') {
      return target + resolved.substr(link.size());
    }
  }
  return resolved;
}

void Walker::TrackDirectory(std::string_view name, const std::vector<Word>& words,
                            std::size_t start) {
  std::vector<const Word*> operands;
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    if (!IsOptionWord(words[i].text)) operands.push_back(&words[i]);
  }
  if (name == "cd" || name == "pushd") {
    if (operands.empty()) {
      if (const char* home = std::getenv("HOME")) line_.cwd = home;
      line_.cwd_in_project = line_.cwd == project_ || InsideProject(line_.cwd);
      return;
    }
    const Word& target = *operands.front();
    line_.cwd_scratch = false;
    if (FreshScratch(target.text)) {
      line_.cwd_unknown = true;  // where exactly is known only at run time …
      line_.cwd_in_project = false;
      line_.cwd_scratch = true;  // … but it is a scratch directory
      return;
    }
    if (target.substitutes || target.text == "-" ||
        (target.expands && target.text.rfind("$HOME", 0) != 0 &&
         target.text.rfind("${HOME}", 0) != 0)) {
      line_.cwd_unknown = true;  // `cd "$DIR"`, `cd -`: relative paths now point anywhere
      line_.cwd_in_project = false;
      return;
    }
    const std::string resolved = Resolve(target.text);
    if (!resolved.empty() && resolved.front() == '/' && resolved.size() <= 1024) {
      line_.cwd = resolved;
      line_.cwd_unknown = false;
      line_.cwd_in_project = line_.cwd == project_ || InsideProject(line_.cwd);
    } else {
      line_.cwd_unknown = true;
      line_.cwd_in_project = false;
    }
    return;
  }
  // ln [-s] TARGET LINK: later writes through LINK reach TARGET.
  line_.made_link = true;
  if (operands.size() >= 2 && !operands.back()->expands && !operands.back()->substitutes) {
    std::string target = operands.front()->text;
    const std::string link = Resolve(operands.back()->text);
    if (!target.empty() && target.front() != '/' && target.front() != '~' &&
        target.front() != '$') {
      // A relative symlink target is relative to the link's directory.
      target = Normal(fs::path(link).parent_path() / target);
    }
    const std::string resolved_target = Resolve(target);
    if (!link.empty() && link.front() == '/' && line_.links.size() < 64) {
      line_.links[link] = resolved_target;
    }
  }
}

bool Walker::InsideProject(std::string_view path) const {
  if (path.empty()) return true;
  if (path.front() == '$') return false;
  if (project_.empty()) {
    if (path.front() == '/' || path.front() == '~') return false;
    const fs::path normal = fs::path(path).lexically_normal();
    return normal.empty() || *normal.begin() != "..";
  }
  if (line_.cwd_unknown && path.front() != '/' && path.front() != '~') return false;
  const std::string resolved = Resolve(path);
  if (resolved.empty() || resolved.front() != '/') return false;
  const fs::path relative =
      fs::path(resolved).lexically_relative(fs::path(project_).lexically_normal());
  return !relative.empty() && *relative.begin() != "..";
}

bool Walker::CopiesExample(std::string_view source, std::string_view destination) const {
  if (source.empty() || destination.empty() || !line_.links.empty() || line_.cwd_unknown ||
      source.find_first_of("$`*?[") != std::string_view::npos ||
      destination.find_first_of("$`*?[") != std::string_view::npos) {
    return false;
  }
  const std::string from = FoldPath(NormalizePath(source));
  const std::string to = FoldPath(NormalizePath(destination));
  if (!PathListMatches(tables_.sensitive, from) || !PathListMatches(tables_.not_sensitive, from) ||
      !PathListMatches(tables_.sensitive, to) || PathListMatches(tables_.not_sensitive, to)) {
    return false;
  }
  if (!InsideProject(source) || !InsideProject(destination) ||
      PathListMatches(tables_.runs_later, to) || PathListMatches(tables_.system, to) ||
      GuardedPath(destination) != Guarded::kNo) {
    return false;
  }
  // An existing file may hold the real secrets the copy would overwrite.
  const std::string resolved = Resolve(destination);
  std::error_code error;
  return !resolved.empty() && resolved.front() == '/' &&
         fs::symlink_status(resolved, error).type() == fs::file_type::not_found;
}

void Walker::CheckReadPath(std::string_view path, Level base, std::string_view segment) {
  if (path.empty() || path.size() > 4096 || path.find_first_of(" \t\n") != std::string_view::npos) {
    return;  // text, not a path
  }
  // Case-insensitive file systems open `~/.SSH/ID_RSA` as the key itself.
  const std::string normalized = FoldPath(NormalizePath(path));
  const bool sensitive =
      PathListMatches(tables_.sensitive, normalized) ||
      (line_.cwd != project_ && !line_.cwd_unknown &&
       PathListMatches(tables_.sensitive, FoldPath(NormalizePath(Resolve(path)))));
  if (!sensitive) {
    // `cat ~/.config/*/token`: a file where credentials live, named as one.
    if (tables_.settings.secrets_output > Level::kL0 && SecretLookingFile(path)) {
      Add(Max(base, tables_.settings.secrets_output),
          "'" + Shorten(path, 80) +
              "' looks like a credential file: its secret is shown to the agent.",
          segment);
    }
    return;
  }
  if (PathListMatches(tables_.not_sensitive, normalized)) return;
  Add(Max(Raise(base), tables_.settings.sensitive_minimum),
      "'" + Shorten(path, 80) + "' is a sensitive file (secrets, keys or credentials).", segment);
}

const ContentJudge* Walker::JudgeFor(std::string_view folded_path) const {
  for (const ContentJudge& judge : tables_.runs_later_content) {
    if (PathListMatches(judge.files, folded_path)) return &judge;
  }
  return nullptr;
}

std::optional<std::string> Walker::FileText(std::string_view path) const {
  const std::string resolved = Resolve(path);
  if (resolved.empty() || resolved.front() != '/') return std::nullopt;
  // Bounded, and a FIFO or device is not opened (ReadConfigFile).
  auto text = util::ReadConfigFile(resolved, 1u << 20);
  if (!text || !*text) return std::nullopt;
  return std::move(**text);
}

void Walker::CheckWritePath(std::string_view path, Level inside_level, Level outside_level,
                            std::string_view segment, std::string_view what,
                            const WriteContent* content) {
  if (path.empty() || path.size() > 4096) return;
  // Where the write lands: after `cd` or through a link made earlier in the
  // line that is not where the word says.
  const bool moved = line_.cwd != project_ || line_.cwd_unknown || !line_.links.empty();
  const std::string normalized = NormalizePath(moved ? Resolve(path) : std::string(path));
  // System, config and credential files as a case-insensitive file system
  // opens them (`~/.BASHRC` is `~/.bashrc` on macOS); scratch places only as written.
  const std::string folded = FoldPath(normalized);
  const std::string shown = "'" + Shorten(path, 80) + "'";
  const Guarded guarded = GuardedPath(path);
  if (guarded == Guarded::kAuditDatabase) {
    Add(Level::kL3,
        std::string(what) + " " + shown + ": it would edit or destroy togmal's audit trail.",
        segment);
    return;
  }
  // A scratch place is harmless only outside the project: a project that
  // lives under /tmp still has CI files, build files and Python start-up
  // files whose writes must be seen.
  if (PathListMatches(tables_.scratch, normalized) && guarded == Guarded::kNo &&
      !InsideProject(path)) {
    if (normalized.rfind("/dev/", 0) != 0) {
      Add(inside_level, std::string(what) + " " + shown + ", a scratch location.", segment);
    }
    return;
  }
  Level level = inside_level;
  std::string why;
  const bool runs_later = PathListMatches(tables_.runs_later, folded);
  if (PathListMatches(tables_.system, folded)) {
    level = Level::kL3;
    why = std::string(what) + " " + shown + ", a system or shell start-up file.";
  } else if (!InsideProject(path)) {
    level = outside_level;
    why = std::string(what) + " " + shown + ", outside the project.";
  } else {
    why = std::string(what) + " " + shown + " inside the project.";
    // Logs and notes are not code a later build or test would load.
    static constexpr std::string_view kData[] = {".log", ".txt", ".md", ".out", ".csv", ".tmp"};
    bool data = false;
    for (std::string_view suffix : kData) data = data || normalized.ends_with(suffix);
    // … unless a build or test tool reads them (CMakeLists.txt, requirements.txt).
    line_.wrote_file = line_.wrote_file || !data || runs_later;
  }
  if (runs_later && level < Level::kL2) {
    // Where the content decides (a manifest's scripts, a JS config's
    // imports), a change that holds no code stays an ordinary write.
    const ContentJudge* judge = content != nullptr ? JudgeFor(folded) : nullptr;
    const std::string found = judge != nullptr ? FindCode(*judge, FileText(path), *content) : "";
    if (judge != nullptr && found.empty()) {
      why = std::string(what) + " " + shown +
            " inside the project; the change holds no script, import or other code.";
    } else {
      level = Level::kL2;
      why = std::string(what) + " " + shown +
            ", a file an everyday tool later loads and runs (build file, tool or editor config, "
            "test bootstrap, start-up file, hook, manifest scripts, registry setting)" +
            (found.empty() ? "." : ": the change " + found + ".");
    }
  }
  if (guarded == Guarded::kGuardFile && level < Level::kL2) {
    level = Level::kL2;
    why = std::string(what) + " " + shown +
          ", one of togmal's own files or the agent settings that register it.";
  }
  if (PathListMatches(tables_.sensitive, folded) &&
      !PathListMatches(tables_.not_sensitive, folded)) {
    level = Max(Raise(level), tables_.settings.sensitive_minimum);
    why = std::string(what) + " " + shown + ", a sensitive file (secrets, keys or credentials).";
  }
  Add(level, std::move(why), segment);
}

}  // namespace togmal::policy
