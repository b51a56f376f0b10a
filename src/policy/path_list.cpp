#include "path_list.h"

#include "togmal/util/glob.h"

namespace togmal::policy {

namespace {

std::string_view FileName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool IsWildcard(char c) { return c == '*' || c == '?' || c == '[' || c == '\\'; }

/// One pattern against one spelling of a path, with the literal parts every
/// match has: a text without them is ruled out before the glob runs. Views
/// into the pattern, which outlives the index (constant data, or the list's
/// own strings): a Write call checks one path, so building the index must
/// cost less than matching every pattern once the plain way.
struct Check {
  std::string_view pattern;
  bool literal = true;     ///< no wildcard: the text must equal the pattern
  bool any_depth = false;  ///< matched as `**/` + the pattern (a relative one's tail)
  std::string_view head;   ///< anchored: every match starts with it
  std::string_view tail;   ///< every match ends with it
  std::string_view inner;  ///< any depth: every match contains it

  Check(std::string_view glob, bool at_any_depth) : pattern(glob), any_depth(at_any_depth) {
    std::size_t first = 0;
    while (first < glob.size() && !IsWildcard(glob[first])) ++first;
    if (first == glob.size() && !any_depth) return;
    literal = false;
    std::size_t last = glob.size();
    while (last > 0 && !IsWildcard(glob[last - 1]) && glob[last - 1] != ']') --last;
    // `**/x` matches `x`: for a pattern without a wildcard, matched at any
    // depth, the whole pattern is the tail.
    tail = glob.substr(last);
    if (!tail.empty() && tail.front() == '/') tail.remove_prefix(1);
    if (!any_depth) {
      head = glob.substr(0, first);
      if (!head.empty() && head.back() == '/') head.remove_suffix(1);  // `/etc/**` matches `/etc`
    } else {
      // `.ssh/**` at any depth needs `.ssh` somewhere in the text.
      inner = glob.substr(0, first);
      if (!inner.empty() && inner.back() == '/') inner.remove_suffix(1);
    }
  }

  bool Matches(std::string_view text) const {
    if (literal) return text == pattern;
    if (!text.ends_with(tail)) return false;
    if (any_depth) {
      if (text.find(inner) == std::string_view::npos) return false;
      // Rare (the literal parts are there): the glob itself, compiled once.
      return util::GlobMatches("**/" + std::string(pattern), text);
    }
    if (!text.starts_with(head)) return false;
    return util::GlobMatches(pattern, text);
  }
};

struct Entry {
  bool by_name = false;   ///< the pattern has no '/': it matches the file name
  bool relative = false;  ///< has '/' but not anchored at / or ~: also at any depth
  Check anchored;
  Check anywhere;
};

}  // namespace

struct PathList::Index {
  std::once_flag once;
  std::vector<Entry> entries;
};

// An empty list allocates nothing: every Tables starts with ten of them.
PathList::PathList() = default;

PathList::PathList(std::vector<std::string> patterns)
    : owned_(std::make_shared<const std::vector<std::string>>(std::move(patterns))),
      index_(std::make_shared<Index>()) {}

PathList::PathList(util::RawStrings compiled)
    : compiled_(compiled), index_(std::make_shared<Index>()) {}

std::vector<std::string> PathList::Patterns() const {
  std::vector<std::string> patterns;
  if (owned_) patterns.assign(owned_->begin(), owned_->end());
  patterns.insert(patterns.end(), compiled_.begin(), compiled_.end());
  return patterns;
}

void PathList::Append(const std::vector<std::string>& more) {
  std::vector<std::string> patterns = Patterns();
  patterns.insert(patterns.end(), more.begin(), more.end());
  *this = PathList(std::move(patterns));
}

const PathList::Index& PathList::Indexed() const {
  std::call_once(index_->once, [this] {
    std::vector<Entry>& entries = index_->entries;
    entries.reserve((owned_ ? owned_->size() : 0) + compiled_.size);
    const auto add = [&entries](std::string_view pattern) {
      if (pattern.empty()) return;
      const bool has_slash = pattern.find('/') != std::string_view::npos;
      const bool rooted = pattern.front() == '/' || pattern.front() == '~';
      entries.push_back(Entry{.by_name = !has_slash,
                              .relative = has_slash && !rooted,
                              .anchored = Check(pattern, false),
                              .anywhere = Check(has_slash && !rooted ? pattern : "", true)});
    };
    if (owned_) {
      for (const std::string& pattern : *owned_) add(pattern);
    }
    for (const char* pattern : compiled_) add(pattern);
  });
  return *index_;
}

bool PathList::Matches(std::string_view normalized_path) const {
  if (empty()) return false;
  const std::string_view name = FileName(normalized_path);
  for (const Entry& entry : Indexed().entries) {
    if (entry.by_name) {
      if (entry.anchored.Matches(name)) return true;
    } else if (entry.anchored.Matches(normalized_path) ||
               (entry.relative && entry.anywhere.Matches(normalized_path))) {
      return true;
    }
  }
  return false;
}

bool PathList::MayMatch(std::string_view normalized_glob) const {
  if (empty()) return false;
  const std::string_view name = FileName(normalized_glob);
  for (const Entry& entry : Indexed().entries) {
    const std::string_view pattern = entry.anchored.pattern;
    if (entry.by_name ? util::GlobsIntersect(name, pattern)
                      : util::GlobsIntersect(normalized_glob, pattern) ||
                            (entry.relative &&
                             util::GlobsIntersect(normalized_glob, "**/" + std::string(pattern)))) {
      return true;
    }
  }
  return false;
}

}  // namespace togmal::policy
