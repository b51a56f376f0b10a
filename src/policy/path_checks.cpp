// Paths a command reads or writes, judged against the path tables
// (sensitive, system, runs_later, scratch, the guard's own files) and the
// project directory; `cd` and `ln -s` earlier in the line move where a
// relative path or a link points.
#include <glob.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "togmal/util/config_file.h"
#include "togmal/util/glob.h"
#include "togmal/util/paths.h"
#include "togmal/util/text.h"
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

/// Where an absolute path leads on this machine: `.`, `..` and repeated
/// slashes resolved, and every symbolic link among its existing components
/// followed, dangling ones included (a write through a link to a file that
/// does not exist yet creates the target). Components after the first one
/// that does not exist are taken as written. A path too long or with too
/// many links (a loop: the system refuses it) stays as written, normalised.
std::string RealLocation(std::string_view absolute) {
  if (absolute.size() > 4096) return Normal(std::string(absolute));
  std::vector<std::string> pending;  // components still to walk, last one first
  auto push_components = [&pending](std::string_view text) {
    std::vector<std::string> parts;
    std::size_t from = 0;
    while (from <= text.size()) {
      const std::size_t slash = std::min(text.find('/', from), text.size());
      if (slash > from) parts.emplace_back(text.substr(from, slash - from));
      from = slash + 1;
    }
    pending.insert(pending.end(), parts.rbegin(), parts.rend());
  };
  push_components(absolute);
  std::string done;  // resolved so far; "" is the root
  bool exists = true;
  int links = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == ".") continue;
    if (part == "..") {
      done.resize(done.rfind('/') == std::string::npos ? 0 : done.rfind('/'));
      continue;
    }
    std::string candidate = done + "/" + part;
    // These name the descriptors of whichever process opens them: at run
    // time the command's, not togmal's own (the hook's stdout is a pipe to
    // its host). What follows them is taken as written.
    if (exists && util::NameIn(candidate, {"/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/fd",
                                           "/proc/self", "/proc/thread-self"})) {
      exists = false;
    }
    if (exists) {
      std::error_code error;
      const fs::file_status status = fs::symlink_status(candidate, error);
      if (error || status.type() == fs::file_type::not_found) {
        exists = false;
      } else if (status.type() == fs::file_type::symlink) {
        const fs::path target = fs::read_symlink(candidate, error);
        if (error || ++links > 40) return Normal(std::string(absolute));
        if (target.is_absolute()) done.clear();
        push_components(target.string());
        continue;
      }
    }
    done = std::move(candidate);
  }
  return done.empty() ? "/" : done;
}

/// `~`, `~/x`, `$HOME/x`, `${HOME}/x` with the home directory; other words as written.
std::string ExpandHome(std::string_view path) {
  const std::string_view home = util::Home();
  if (home.empty()) return std::string(path);
  for (std::string_view prefix : {"~", "$HOME", "${HOME}"}) {
    if (path.substr(0, prefix.size()) == prefix &&
        (path.size() == prefix.size() || path[prefix.size()] == '/')) {
      return std::string(home) + std::string(path.substr(prefix.size()));
    }
  }
  return std::string(path);
}

}  // namespace

std::string Walker::RealProject(std::string_view cwd) {
  if (cwd.empty() || cwd.front() != '/') return Normal(std::string(cwd));
  return RealLocation(cwd);
}

std::string Walker::Resolve(std::string_view path) const {
  if (path.empty()) return {};
  // Valid while cwd and the line's links are what they were (a new link
  // changes the count; a replaced one clears the memo in TrackDirectory).
  ResolvedPath& last = last_resolved_;
  if (last.path == path && last.cwd == line_.cwd && last.cwd_unknown == line_.cwd_unknown &&
      last.links == line_.links.size() && !last.result.empty()) {
    return last.result;
  }
  last.result = ResolveUncached(path);
  last.path = std::string(path);
  last.cwd = line_.cwd;
  last.cwd_unknown = line_.cwd_unknown;
  last.links = line_.links.size();
  return last.result;
}

std::string Walker::ResolveUncached(std::string_view path) const {
  std::string expanded = ExpandHome(path);
  std::string resolved;
  if (expanded.front() == '/') {
    resolved = RealLocation(expanded);
  } else if (expanded.front() == '~' || expanded.front() == '$' || line_.cwd_unknown ||
             line_.cwd.empty()) {
    return Normal(expanded);  // `~user`, `$DIR/x`, or no known directory: as written
  } else {
    resolved = RealLocation(line_.cwd + "/" + expanded);
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

std::string Walker::Shown(std::string_view path) const {
  std::string shown = "'" + util::OneLine(path, 80) + "'";
  const std::string real = Resolve(path);
  if (real.empty() || real.front() != '/' || path.empty()) return shown;
  const std::string expanded = ExpandHome(path);
  const std::string written =
      expanded.front() == '/' ? Normal(expanded) : Normal(fs::path(line_.cwd) / expanded);
  if (real != written) shown += " (it leads to '" + util::OneLine(real, 80) + "')";
  return shown;
}

std::string Walker::JudgedPath(std::string_view path) const {
  const std::string real = Resolve(path);
  if (real.empty() || real.front() != '/') return NormalizePath(path);
  // Inside the project a file is judged by its place in the project
  // (`package.json`, `.github/workflows/x.yml`), whatever the project's own
  // place on the machine (a project under /usr/local/src is not a system file).
  if (!project_real_.empty()) {
    const fs::path relative = fs::path(real).lexically_relative(project_real_);
    if (!relative.empty() && *relative.begin() != "..") {
      return relative == "." ? std::string(".") : relative.string();
    }
  }
  return NormalizePath(real);
}

void Walker::TrackDirectory(std::string_view name, const std::vector<Word>& words,
                            std::size_t start) {
  std::vector<const Word*> operands;
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    if (!IsOptionWord(words[i].text)) operands.push_back(&words[i]);
  }
  if (name == "cd" || name == "pushd") {
    if (operands.empty()) {
      if (const std::string_view home = util::Home(); !home.empty()) line_.cwd = home;
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
      last_resolved_ = {};  // a link replaced under the same name
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
  const fs::path relative = fs::path(resolved).lexically_relative(project_real_);
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
  // Text, not a path: a line break, or blanks in a word that names no folder
  // (`grep 'login data' f`) or reads as code (`open("/x")`, `a; b`). A path
  // may hold blanks (`~/.config/google-chrome/Default/Login\ Data`).
  if (path.empty() || path.size() > 4096 || path.find('\n') != std::string_view::npos ||
      (path.find_first_of(" \t") != std::string_view::npos &&
       (path.find('/') == std::string_view::npos ||
        path.find_first_of("()\"';={}<>|&$`") != std::string_view::npos))) {
    return;
  }
  // Case-insensitive file systems open `~/.SSH/ID_RSA` as the key itself.
  const std::string normalized = FoldPath(NormalizePath(path));
  // As written (`**/.env`) and where it leads (`/tmp/../etc/shadow`, a link).
  const std::string judged = FoldPath(JudgedPath(path));
  const bool sensitive =
      PathListMatches(tables_.sensitive, normalized) || PathListMatches(tables_.sensitive, judged);
  // `cat ~/.ss[h]/id_*`, `cat /etc/shado?`: the shell expands the pattern at
  // run time; what it can name is judged, not the pattern's own spelling.
  if (!sensitive && util::HasGlobChars(path) &&
      (tables_.sensitive.MayMatch(normalized) || tables_.sensitive.MayMatch(judged)) &&
      ExpandsToSensitive(path)) {
    Add(Max(Raise(base), tables_.settings.sensitive_minimum),
        Shown(path) +
            " is a pattern that can name a sensitive file (secrets, keys or credentials).",
        segment);
    return;
  }
  if (!sensitive) {
    // `cat ~/.config/*/token`: a file where credentials live, named as one.
    if (tables_.settings.secrets_output > Level::kL0 && SecretLookingFile(path)) {
      Add(Max(base, tables_.settings.secrets_output),
          "'" + util::OneLine(path, 80) +
              "' looks like a credential file: its secret is shown to the agent.",
          segment);
    }
    return;
  }
  if (PathListMatches(tables_.not_sensitive, normalized) &&
      PathListMatches(tables_.not_sensitive, judged)) {
    return;
  }
  Add(Max(Raise(base), tables_.settings.sensitive_minimum),
      Shown(path) + " is a sensitive file (secrets, keys or credentials).", segment);
}

bool Walker::ExpandsToSensitive(std::string_view pattern) const {
  // A pattern whose spelling can name a listed file (`src/*` can name
  // `src/credentials.json`): what decides is what it names on this machine,
  // where the command will run. Bounded: a pattern that names more than
  // kMaxNamed files, or that glob(3) cannot expand, counts as naming one.
  // With no working directory to expand a relative one in, the pattern is
  // judged as written (as before patterns were expanded).
  constexpr std::size_t kMaxNamed = 512;
  const std::string resolved = Resolve(pattern);
  if (resolved.empty() || resolved.front() != '/') return false;  // where, unknown: as written
  glob_t found{};
  const int status = ::glob(resolved.c_str(), GLOB_NOSORT, nullptr, &found);
  bool named = status != 0 && status != GLOB_NOMATCH;
  for (std::size_t i = 0; !named && status == 0 && i < found.gl_pathc; ++i) {
    if (i >= kMaxNamed) {
      named = true;
      break;
    }
    const std::string folded = FoldPath(NormalizePath(found.gl_pathv[i]));
    named = PathListMatches(tables_.sensitive, folded) &&
            !PathListMatches(tables_.not_sensitive, folded);
  }
  ::globfree(&found);
  return named;
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

namespace {

/// Code as planted_code compares it: lower case, each run of white space one
/// space, no space inside brackets or around `:`, `,`, `=` and after `>`, so that
/// `json_encode( $_ENV )` and `env:process.env` read as the tables write them.
std::string FoldCode(std::string_view code) {
  static constexpr std::string_view kNoSpaceAfter = "([{:,=>";
  static constexpr std::string_view kNoSpaceBefore = "([{)]}:,=";
  std::string out;
  out.reserve(code.size());
  bool pending_space = false;
  for (char c : code) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
      pending_space = true;
      continue;
    }
    if (pending_space &&
        (out.empty() || kNoSpaceAfter.find(out.back()) == std::string_view::npos) &&
        kNoSpaceBefore.find(c) == std::string_view::npos) {
      out.push_back(' ');
    }
    pending_space = false;
    out.push_back(util::AsciiLower(c));
  }
  // A trailing space is part of an alternative ("curl "): keep one.
  if (pending_space && (out.empty() || kNoSpaceAfter.find(out.back()) == std::string_view::npos))
    out.push_back(' ');
  return out;
}

// The span of folded `text` that planted_code's `pattern` matches (empty
// when the pattern matches the empty string), or nullopt when it does not
// match. Each pattern is compiled once per process, on the first write that
// reaches it (a hook that judges a command compiles none).
std::optional<std::string_view> PatternMatch(const std::string& pattern, std::string_view text) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const RE2>, std::less<>> compiled;
  const RE2* re = nullptr;
  {
    std::lock_guard lock(mutex);
    auto& slot = compiled[pattern];
    if (!slot) {
      RE2::Options options;
      options.set_log_errors(false);
      slot = std::make_unique<const RE2>(pattern, options);
    }
    re = slot.get();
  }
  if (!re->ok()) return std::nullopt;  // refused when the tables were read
  re2::StringPiece match;
  if (!re->Match(text, 0, text.size(), RE2::UNANCHORED, &match, 1)) return std::nullopt;
  return std::string_view(match.data(), match.size());
}

}  // namespace

std::optional<std::pair<Level, std::string>> Walker::PlantedIn(const WriteContent& content) const {
  if (tables_.planted_code.empty()) return std::nullopt;
  std::string text = content.whole.value_or("");
  for (const TextEdit& edit : content.edits) text += "\n" + edit.new_text;
  if (text.empty()) return std::nullopt;
  text = FoldCode(text);
  // The first alternative of `group` found in the text, or an empty view.
  const auto found_in_text = [&text](std::string_view group) {
    while (!group.empty()) {
      const std::size_t end = std::min(group.find(PlantedCode::kSeparator), group.size());
      const std::string_view alternative = group.substr(0, end);
      if (!alternative.empty() && text.find(FoldCode(alternative)) != std::string::npos)
        return alternative;
      group.remove_prefix(std::min(end + 1, group.size()));
    }
    return std::string_view{};
  };
  for (const PlantedCode& shape : tables_.planted_code) {
    std::string_view first;
    bool all = true;
    for (const std::string& group : shape.groups) {
      const std::string_view found = found_in_text(group);
      if (found.empty()) {
        all = false;
        break;
      }
      if (first.empty()) first = found;
    }
    if (all && !shape.pattern.empty()) {
      const std::optional<std::string_view> matched = PatternMatch(shape.pattern, text);
      all = matched.has_value();
      // What the pattern matched shows more than the words that let it run.
      if (all && !matched->empty()) first = *matched;
    }
    if (all) {
      // A pattern alone that matched the empty string shows no text.
      return std::pair{shape.level, first.empty()
                                        ? shape.why
                                        : shape.why + " ('" + util::OneLine(first, 40) + "')"};
    }
  }
  return std::nullopt;
}

void Walker::CheckWritePath(std::string_view path, Level inside_level, Level outside_level,
                            std::string_view segment, std::string_view what,
                            const WriteContent* content) {
  if (path.empty() || path.size() > 4096) return;
  // Judged where the write lands, not where the word says: `..`, links on
  // disk or made earlier in the line, `cd`.
  const std::string normalized = JudgedPath(path);
  // System, config and credential files as a case-insensitive file system
  // opens them (`~/.BASHRC` is `~/.bashrc` on macOS); scratch places only as written.
  const std::string folded = FoldPath(normalized);
  const std::string shown = Shown(path);
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
  } else if (const std::string real = Resolve(path);
             !real.empty() && real.front() == '/' &&
             PathListMatches(tables_.system, FoldPath(NormalizePath(real)))) {
    // The project itself is a system place (an agent started in /etc, or in
    // a link to it): inside it is no reason to approve.
    level = Max(level, Level::kL2);
    why = std::string(what) + " '" + util::OneLine(real, 80) +
          "', a system location (the project directory is one).";
  } else {
    why = std::string(what) + " " + shown + " inside the project.";
    // Logs, notes and tar archives are not code a later build or test would load.
    static constexpr std::string_view kData[] = {".log", ".txt", ".md", ".out", ".csv", ".tmp",
                                                 ".tar", ".tgz", ".gz", ".bz2", ".xz",  ".zst"};
    bool data = false;
    for (std::string_view suffix : kData) data = data || normalized.ends_with(suffix);
    // … unless a build or test tool reads them (CMakeLists.txt, requirements.txt).
    line_.wrote_file = line_.wrote_file || !data || runs_later;
  }
  if (runs_later && level < Level::kL2) {
    // Where the content decides (a manifest's scripts, a JS config's
    // imports), a change that holds no code stays an ordinary write.
    const ContentJudge* judge = content != nullptr && content->exact ? JudgeFor(folded) : nullptr;
    const std::string found = judge != nullptr ? FindCode(*judge, FileText(path), *content) : "";
    if (judge != nullptr && found.empty()) {
      why = std::string(what) + " " + shown +
            " inside the project; the change holds no script, import or other code.";
    } else {
      level = Level::kL2;
      why = std::string(what) + " " + shown +
            ", a file an everyday tool later loads and runs (build file, tool or editor config, "
            "test bootstrap, start-up file, hook, manifest scripts, registry setting, agent "
            "instructions)" +
            (found.empty() ? "." : ": the change " + found + ".");
    }
  }
  if (!runs_later && level < Level::kL2 && content != nullptr && content->exact) {
    // Source whose comment lines a tool runs (`//go:generate sh -c …`): only
    // a change that adds such a line is more than an ordinary write.
    if (const ContentJudge* judge = JudgeFor(folded);
        judge != nullptr && judge->format == ContentFormat::kDirectives) {
      if (const std::string found = FindCode(*judge, FileText(path), *content); !found.empty()) {
        level = Level::kL2;
        why = std::string(what) + " " + shown + ": the change " + found + ".";
      }
    }
  }
  // Exfiltration, download-and-run or a sudo grant is no ordinary change to
  // any file (a test's setup, an initializer, a notebook cell), whether a
  // tool or a shell command (`echo … > f`, `cat > f <<EOF`, `| tee f`) writes it.
  static constexpr std::string_view kDocuments[] = {".md", ".txt", ".rst", ".log", ".csv", ".out"};
  const bool document =
      std::any_of(std::begin(kDocuments), std::end(kDocuments),
                  [&](std::string_view suffix) { return folded.ends_with(suffix); });
  if (content != nullptr && level < Level::kL3 && !document) {
    if (const auto planted = PlantedIn(*content); planted && planted->first > level) {
      level = planted->first;
      why = std::string(what) + " " + shown + ": the new text " + planted->second + ".";
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
