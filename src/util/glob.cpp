#include "togmal/util/glob.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <string>
#include <unordered_map>

#include "togmal/util/text.h"

namespace togmal::util {
namespace {

struct TransparentHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const {
    return std::hash<std::string_view>{}(text);
  }
};

}  // namespace

Glob::Glob(std::string_view pattern, bool case_insensitive)
    : pattern_(pattern), case_insensitive_(case_insensitive) {
  using Kind = Token::Kind;
  std::size_t i = 0;
  while (i < pattern.size()) {
    char c = pattern[i];
    if (c == '*') {
      bool double_star = i + 1 < pattern.size() && pattern[i + 1] == '*';
      if (!double_star) {
        tokens_.emplace_back(Kind::kStar);
        ++i;
        continue;
      }
      i += 2;
      while (i < pattern.size() && pattern[i] == '*') ++i;  // `***` is `**`
      Token star(Kind::kGlobStar);
      bool after_slash =
          tokens_.empty() || (tokens_.back().kind == Kind::kChar && tokens_.back().ch == '/');
      if (after_slash && i < pattern.size() && pattern[i] == '/') {
        // `**/x` and `a/**/x`: zero or more directories, so the `/` may be skipped with it.
        star.skip = 2;
        tokens_.push_back(star);
        tokens_.emplace_back(Kind::kChar, '/');
        ++i;
        continue;
      }
      if (i == pattern.size() && !tokens_.empty() && tokens_.back().kind == Kind::kChar &&
          tokens_.back().ch == '/') {
        // `x/**`: the directory itself, or anything below it.
        tokens_.back().skip = 2;
      }
      tokens_.push_back(star);
      continue;
    }
    if (c == '?') {
      tokens_.emplace_back(Kind::kAnyChar);
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < pattern.size()) {
      tokens_.emplace_back(Kind::kChar, pattern[i + 1]);
      i += 2;
      continue;
    }
    if (c == '[') {
      std::size_t j = i + 1;
      Token set(Kind::kSet);
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) {
        set.negated = true;
        ++j;
      }
      std::size_t first = j;
      while (j < pattern.size() && (pattern[j] != ']' || j == first)) {
        if (j + 2 < pattern.size() && pattern[j + 1] == '-' && pattern[j + 2] != ']') {
          for (int x = static_cast<unsigned char>(pattern[j]);
               x <= static_cast<unsigned char>(pattern[j + 2]); ++x) {
            set.set.push_back(static_cast<char>(x));
          }
          j += 3;
        } else {
          set.set.push_back(pattern[j]);
          ++j;
        }
      }
      if (j < pattern.size()) {  // a closing `]`: a real set
        if (case_insensitive_) {
          for (char& s : set.set) s = AsciiLower(s);
        }
        tokens_.push_back(std::move(set));
        i = j + 1;
        continue;
      }
      // No closing `]`: a literal `[`.
    }
    tokens_.emplace_back(Kind::kChar, c);
    ++i;
  }
  if (!case_insensitive_) FindLiteralEnds();
}

// The characters every match starts and ends with: checking them first rules
// out most texts without running the automaton over them (a 1 MB argument
// against a table of patterns). A token that a `skip` edge can jump over is
// optional, so it ends the literal run.
void Glob::FindLiteralEnds() {
  using Kind = Token::Kind;
  std::vector<bool> optional(tokens_.size(), false);
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    for (std::size_t k = i; k < std::min(i + tokens_[i].skip, tokens_.size()); ++k) {
      optional[k] = true;
    }
  }
  auto literal = [&](std::size_t i) { return tokens_[i].kind == Kind::kChar && !optional[i]; };
  std::size_t head = 0;
  while (head < tokens_.size() && literal(head)) prefix_.push_back(tokens_[head++].ch);
  std::size_t tail = tokens_.size();
  while (tail > head && literal(tail - 1)) --tail;
  for (std::size_t i = tail; i < tokens_.size(); ++i) suffix_.push_back(tokens_[i].ch);
}

bool Glob::Accepts(const Token& token, char c) const {
  using Kind = Token::Kind;
  switch (token.kind) {
    case Kind::kChar:
      return case_insensitive_ ? AsciiLower(token.ch) == AsciiLower(c) : token.ch == c;
    case Kind::kAnyChar:
    case Kind::kStar:
      return c != '/';
    case Kind::kGlobStar:
      return true;
    case Kind::kSet: {
      if (c == '/') return false;
      char folded = case_insensitive_ ? AsciiLower(c) : c;
      bool in = token.set.find(folded) != std::string::npos;
      return in != token.negated;
    }
  }
  return false;
}

// Follows the epsilon edges: a star may match nothing, and a token with
// `skip` may be jumped over. Edges only go forward, so one pass suffices.
void Glob::Close(char* states) const {
  using Kind = Token::Kind;
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    if (!states[i]) continue;
    const Token& token = tokens_[i];
    if (token.kind == Kind::kStar || token.kind == Kind::kGlobStar) states[i + 1] = 1;
    if (token.skip > 0) states[std::min(i + token.skip, tokens_.size())] = 1;
  }
}

bool Glob::Matches(std::string_view text) const {
  using Kind = Token::Kind;
  if (!text.starts_with(prefix_) || !text.ends_with(suffix_)) return false;
  // The two state sets live on the stack for the patterns tables and rules
  // hold (a few dozen tokens): the classifier matches paths and arguments
  // against them many times per call, and two allocations per match were a
  // third of the matching's cost.
  const std::size_t count = tokens_.size() + 1;
  constexpr std::size_t kOnStack = 128;
  std::array<char, 2 * kOnStack> small;
  std::vector<char> large;
  char* states = small.data();
  if (count > kOnStack) {
    large.resize(2 * count);
    states = large.data();
  }
  char* next = states + count;
  std::fill(states, states + count, 0);
  states[0] = 1;
  Close(states);
  for (char c : text) {
    std::fill(next, next + count, 0);
    bool any = false;
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      if (!states[i] || !Accepts(tokens_[i], c)) continue;
      bool loops = tokens_[i].kind == Kind::kStar || tokens_[i].kind == Kind::kGlobStar;
      next[loops ? i : i + 1] = 1;
      any = true;
    }
    if (!any) return false;
    Close(next);
    std::swap(states, next);
  }
  return states[tokens_.size()] != 0;
}

bool GlobMatches(std::string_view pattern, std::string_view text) {
  // Most table patterns are rejected by their first characters: compare the
  // literal head (up to the first special character) before hashing the
  // pattern into the cache. A `/` just before a `*` may be optional (`x/**`
  // matches `x`), so a mismatch there is left to the automaton.
  for (std::size_t i = 0;; ++i) {
    if (i == pattern.size()) return text.size() == pattern.size();
    const char c = pattern[i];
    if (c == '*' || c == '?' || c == '[' || c == '\\') break;
    if (i < text.size() && text[i] == c) continue;
    if (c == '/' && i + 1 < pattern.size() && pattern[i + 1] == '*') break;
    return false;
  }
  // Patterns come from configuration (tables, rules), so the cache is bounded
  // by what the files hold; the cap only guards against a pathological file.
  constexpr std::size_t kMaxCached = 4096;
  // Looked up by the view itself: no string built per match.
  thread_local std::unordered_map<std::string, Glob, TransparentHash, std::equal_to<>> compiled;
  auto found = compiled.find(pattern);
  if (found == compiled.end()) {
    if (compiled.size() >= kMaxCached) compiled.clear();
    found = compiled.emplace(std::string(pattern), Glob(pattern)).first;
  }
  return found->second.Matches(text);
}

}  // namespace togmal::util
