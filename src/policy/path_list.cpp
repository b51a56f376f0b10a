#include "path_list.h"

#include "togmal/util/glob.h"

namespace togmal::policy {

namespace {

std::string_view FileName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool IsWildcard(char c) { return c == '*' || c == '?' || c == '[' || c == '\\'; }

/// One glob against one spelling of a path, with the literal parts every
/// match has: a text without them is ruled out before the glob runs.
struct Check {
  std::string glob;
  bool literal = true;  ///< no wildcard: the text must equal the glob
  bool anchored = true;
  std::string head;   ///< anchored: every match starts with it
  std::string tail;   ///< every match ends with it
  std::string inner;  ///< not anchored (`**/x/*`): every match contains it

  explicit Check(std::string pattern, bool is_anchored)
      : glob(std::move(pattern)), anchored(is_anchored) {
    std::size_t first = 0;
    while (first < glob.size() && !IsWildcard(glob[first])) ++first;
    if (first == glob.size()) return;
    literal = false;
    std::size_t last = glob.size();
    while (last > 0 && !IsWildcard(glob[last - 1]) && glob[last - 1] != ']') --last;
    tail = glob.substr(last);
    if (!tail.empty() && tail.front() == '/') tail.erase(0, 1);  // `**/x` matches `x`
    if (anchored) {
      head = glob.substr(0, first);
      if (!head.empty() && head.back() == '/') head.pop_back();  // `/etc/**` matches `/etc`
    } else if (glob.starts_with("**/")) {
      // `**/.ssh/**` needs `.ssh` somewhere in the text.
      std::size_t end = 3;
      while (end < glob.size() && !IsWildcard(glob[end])) ++end;
      inner = glob.substr(3, end - 3);
      if (!inner.empty() && inner.back() == '/') inner.pop_back();
    }
  }

  bool Matches(std::string_view text) const {
    if (literal) return text == glob;
    if (!text.ends_with(tail)) return false;
    if (anchored ? !text.starts_with(head) : text.find(inner) == std::string_view::npos) {
      return false;
    }
    return util::GlobMatches(glob, text);
  }
};

struct Entry {
  bool by_name = false;  ///< the pattern has no '/': it matches the file name
  Check check;
  std::unique_ptr<Check> any_depth;  ///< relative: also `**/` + the pattern
};

}  // namespace

struct PathList::Index {
  std::once_flag once;
  std::vector<Entry> entries;
};

PathList::PathList()
    : owned_(std::make_shared<const std::vector<std::string>>()),
      index_(std::make_shared<Index>()) {}

PathList::PathList(std::vector<std::string> patterns)
    : owned_(std::make_shared<const std::vector<std::string>>(std::move(patterns))),
      index_(std::make_shared<Index>()) {}

PathList::PathList(util::RawStrings compiled) : PathList() { compiled_ = compiled; }

std::vector<std::string> PathList::Patterns() const {
  std::vector<std::string> patterns(owned_->begin(), owned_->end());
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
    entries.reserve(owned_->size() + compiled_.size);
    const auto add = [&entries](std::string_view pattern) {
      if (pattern.empty()) return;
      const bool has_slash = pattern.find('/') != std::string_view::npos;
      const bool rooted = pattern.front() == '/' || pattern.front() == '~';
      Entry entry{
          .by_name = !has_slash, .check = Check(std::string(pattern), true), .any_depth = nullptr};
      if (has_slash && !rooted) {
        entry.any_depth = std::make_unique<Check>("**/" + std::string(pattern), false);
      }
      entries.push_back(std::move(entry));
    };
    for (const std::string& pattern : *owned_) add(pattern);
    for (const char* pattern : compiled_) add(pattern);
  });
  return *index_;
}

bool PathList::Matches(std::string_view normalized_path) const {
  if (empty()) return false;
  const std::string_view name = FileName(normalized_path);
  for (const Entry& entry : Indexed().entries) {
    if (entry.by_name) {
      if (entry.check.Matches(name)) return true;
    } else if (entry.check.Matches(normalized_path) ||
               (entry.any_depth && entry.any_depth->Matches(normalized_path))) {
      return true;
    }
  }
  return false;
}

}  // namespace togmal::policy
