// Whether two globs can match one text: a shell word with wildcards
// (`~/.ss[h]/id_*`, what the shell expands at run time) against a pattern of
// the classifier's path lists (`**/.ssh/**`). Both are read as automata and
// walked together; a character set is stood in for by the characters the two
// patterns name plus one they do not, which is enough to decide whether some
// character takes both steps.
#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "togmal/util/glob.h"

namespace togmal::util {
namespace {

struct Step {
  enum class Kind {
    kChar,      ///< one given character
    kAny,       ///< `?`: one character but '/'
    kSet,       ///< `[…]`: one character of (or not of) a set, never '/'
    kStar,      ///< `*`: any run without '/'
    kGlobStar,  ///< `**`: any run
    kSkip,      ///< no character: on to the next step, or past `skip` steps
  };
  Kind kind = Kind::kChar;
  char ch = 0;
  std::size_t skip = 0;
  std::string set;
  bool negated = false;
};

std::vector<Step> Steps(std::string_view pattern) {
  std::vector<Step> steps;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    Step step;
    if (c == '\\' && i + 1 < pattern.size()) {
      step.ch = pattern[++i];
    } else if (c == '*') {
      if (i + 1 < pattern.size() && pattern[i + 1] == '*') {
        ++i;
        while (i + 1 < pattern.size() && pattern[i + 1] == '*') ++i;
        const bool whole = (i == 1 || pattern[i - 2] == '/');
        if (whole && i + 1 < pattern.size() && pattern[i + 1] == '/') {
          // `**/`: nothing, or `**` then '/' (`**/.env` matches `.env`).
          ++i;
          Step skip;
          skip.kind = Step::Kind::kSkip;
          skip.skip = 3;
          steps.push_back(skip);
          Step any;
          any.kind = Step::Kind::kGlobStar;
          steps.push_back(any);
          step.ch = '/';
        } else {
          step.kind = Step::Kind::kGlobStar;
        }
      } else {
        step.kind = Step::Kind::kStar;
      }
    } else if (c == '?') {
      step.kind = Step::Kind::kAny;
    } else if (c == '[') {
      std::size_t j = i + 1;
      bool negated = false;
      if (j < pattern.size() && (pattern[j] == '!' || pattern[j] == '^')) {
        negated = true;
        ++j;
      }
      std::string set;
      std::size_t k = j;
      for (; k < pattern.size() && (pattern[k] != ']' || k == j); ++k) {
        if (k + 2 < pattern.size() && pattern[k + 1] == '-' && pattern[k + 2] != ']') {
          for (int x = static_cast<unsigned char>(pattern[k]);
               x <= static_cast<unsigned char>(pattern[k + 2]); ++x) {
            set.push_back(static_cast<char>(x));
          }
          k += 2;
        } else {
          set.push_back(pattern[k]);
        }
      }
      if (k >= pattern.size()) {
        step.ch = c;  // `[abc` without its `]`: literal, as shells take it
      } else {
        step.kind = Step::Kind::kSet;
        step.set = std::move(set);
        step.negated = negated;
        i = k;
      }
    } else {
      step.ch = c;
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

/// Where `steps[at]` goes on character `c` (none, or the next step index; a
/// star stays). A shell wildcard takes no '.' that starts a name (`dots`).
void Next(const std::vector<Step>& steps, std::size_t at, char c, bool name_start, bool dots,
          std::vector<std::size_t>& out) {
  if (at >= steps.size()) return;
  const Step& step = steps[at];
  const bool hidden = dots && name_start && c == '.';
  switch (step.kind) {
    case Step::Kind::kChar:
      if (step.ch == c) out.push_back(at + 1);
      break;
    case Step::Kind::kAny:
      if (c != '/' && !hidden) out.push_back(at + 1);
      break;
    case Step::Kind::kSet:
      if (c != '/' && !hidden && (step.set.find(c) != std::string::npos) != step.negated) {
        out.push_back(at + 1);
      }
      break;
    case Step::Kind::kStar:
      if (c != '/' && !hidden) out.push_back(at);
      break;
    case Step::Kind::kGlobStar:
      if (!hidden) out.push_back(at);
      break;
    case Step::Kind::kSkip:
      break;
  }
}

/// The steps reachable without a character (stars and `**/` may match nothing).
void Close(const std::vector<Step>& steps, std::vector<std::size_t>& states) {
  const auto add = [&states](std::size_t at) {
    if (std::find(states.begin(), states.end(), at) == states.end()) states.push_back(at);
  };
  for (std::size_t k = 0; k < states.size(); ++k) {
    const std::size_t at = states[k];
    if (at >= steps.size()) continue;
    const Step::Kind kind = steps[at].kind;
    if (kind == Step::Kind::kStar || kind == Step::Kind::kGlobStar) add(at + 1);
    if (kind == Step::Kind::kSkip) {
      add(at + 1);
      add(at + steps[at].skip);
    }
  }
}

bool Intersect(const std::vector<Step>& word, const std::vector<Step>& pattern) {
  // The characters either names, and one neither does: a stand-in for the rest.
  std::string alphabet = "/.";
  for (const std::vector<Step>* steps : {&word, &pattern}) {
    for (const Step& step : *steps) {
      if (step.kind == Step::Kind::kChar) alphabet.push_back(step.ch);
      if (step.kind == Step::Kind::kSet) alphabet += step.set;
    }
  }
  for (char c : std::string_view("abcdefghijklmnopqrstuvwxyz0123456789_-~")) {
    if (alphabet.find(c) == std::string::npos) {
      alphabet.push_back(c);
      break;
    }
  }
  std::sort(alphabet.begin(), alphabet.end());
  alphabet.erase(std::unique(alphabet.begin(), alphabet.end()), alphabet.end());

  using State = std::tuple<std::size_t, std::size_t, bool>;  // word step, pattern step, name start
  std::set<State> seen;
  std::vector<State> todo;
  const auto visit = [&](std::size_t w, std::size_t p, bool start) {
    std::vector<std::size_t> ws{w}, ps{p};
    Close(word, ws);
    Close(pattern, ps);
    for (std::size_t a : ws) {
      for (std::size_t b : ps) {
        if (seen.insert({a, b, start}).second) todo.emplace_back(a, b, start);
      }
    }
  };
  visit(0, 0, true);
  std::vector<std::size_t> from_word, from_pattern;
  while (!todo.empty()) {
    const auto [w, p, start] = todo.back();
    todo.pop_back();
    if (w == word.size() && p == pattern.size()) return true;
    if (seen.size() > 100'000) return true;  // bounded: undecided counts as a match
    for (char c : alphabet) {
      from_word.clear();
      from_pattern.clear();
      Next(word, w, c, start, true, from_word);
      if (from_word.empty()) continue;
      Next(pattern, p, c, start, false, from_pattern);
      for (std::size_t a : from_word) {
        for (std::size_t b : from_pattern) visit(a, b, c == '/');
      }
    }
  }
  return false;
}

}  // namespace

bool HasGlobChars(std::string_view text) {
  return text.find_first_of("*?[") != std::string_view::npos;
}

bool GlobsIntersect(std::string_view shell_word, std::string_view pattern) {
  const std::vector<Step> word = Steps(shell_word);
  if (Intersect(word, Steps(pattern))) return true;
  // A trailing `/**` also matches the folder itself (Glob's rule).
  if (pattern.size() > 3 && pattern.ends_with("/**")) {
    return Intersect(word, Steps(pattern.substr(0, pattern.size() - 3)));
  }
  return false;
}

}  // namespace togmal::util
