#pragma once
// A literal pre-check for rule regexes: most rule patterns are a word or two
// (`\btogmal\.db\b`), and most commands do not contain them. When a pattern is
// plain enough that every match must contain certain literal pieces, a
// command without one of them cannot match, and the regex need never be
// compiled — which in a hook process is most of what a rule costs.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace togmal::rules {

class RegexPrefilter {
 public:
  /// The pieces every match of `pattern` contains, or nullopt when the
  /// pattern uses anything but literals, escaped punctuation, `\b`, `\B`,
  /// `^`, `$` and a leading `(?i)` (then no shortcut is taken).
  static std::optional<RegexPrefilter> For(std::string_view pattern);

  /// False only when `text` certainly has no match.
  bool MayMatch(std::string_view text) const;

  const std::vector<std::string>& pieces() const { return pieces_; }
  bool case_insensitive() const { return case_insensitive_; }

 private:
  std::vector<std::string> pieces_;  ///< lower-case when case-insensitive
  bool case_insensitive_ = false;
};

}  // namespace togmal::rules
