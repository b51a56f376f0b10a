#include "togmal/rules/rule.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>

#include "regex_prefilter.h"
#include "togmal/util/text.h"

namespace togmal::rules {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return util::AsciiLower(x) == util::AsciiLower(y);
         });
}

}  // namespace

std::string_view ActionName(Action action) {
  switch (action) {
    case Action::kAllow:
      return "ALLOW";
    case Action::kDeny:
      return "DENY";
    case Action::kAsk:
      return "ASK";
    case Action::kSample:
      return "SAMPLE";
    case Action::kPass:
      return "PASS";
  }
  return "ASK";
}

std::optional<Action> ParseAction(std::string_view name) {
  for (Action action :
       {Action::kAllow, Action::kDeny, Action::kAsk, Action::kSample, Action::kPass}) {
    if (EqualsIgnoreCase(name, ActionName(action))) return action;
  }
  return std::nullopt;
}

std::string_view LayerName(Layer layer) {
  switch (layer) {
    case Layer::kBuiltin:
      return "builtin";
    case Layer::kUser:
      return "user";
    case Layer::kProject:
      return "project";
    case Layer::kSystem:
      return "system";
  }
  return "builtin";
}

LazyRegex::LazyRegex(std::string pattern) : pattern_(std::move(pattern)) {
  if (auto prefilter = RegexPrefilter::For(pattern_)) {
    prefilter_ = std::make_unique<const RegexPrefilter>(std::move(*prefilter));
  }
}
LazyRegex::~LazyRegex() = default;

Result<void> LazyRegex::Compile() const {
  std::call_once(once_, [this] {
    RE2::Options options;
    options.set_log_errors(false);
    // Rule patterns are short; 8 MB keeps even a generous one off the
    // "out of memory" path when it meets a 1 MB command.
    options.set_max_mem(8 << 20);
    re_ = std::make_unique<RE2>(pattern_, options);
  });
  if (!re_->ok()) return Fail("invalid regex \"" + pattern_ + "\": " + re_->error());
  return {};
}

Result<bool> LazyRegex::Search(std::string_view text) const {
  // Safe before any compilation: a pattern the prefilter accepts is valid.
  if (prefilter_ && !prefilter_->MayMatch(text)) return false;
  if (auto compiled = Compile(); !compiled) return Fail(compiled.error());
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

std::string Pattern::Describe() const {
  if (regex) return "regex \"" + regex->pattern() + "\"";
  if (glob) return "glob \"" + glob->pattern() + "\"";
  return "pattern";
}

int Condition::Cost() const {
  switch (kind) {
    case Kind::kToolName:
    case Kind::kLevel:
    case Kind::kAgentId:
    case Kind::kAgentType:
      return 0;
    case Kind::kCwd:
    case Kind::kParameter: {
      bool any_regex = std::any_of(patterns.begin(), patterns.end(),
                                   [](const Pattern& p) { return p.regex != nullptr; });
      return any_regex ? 2 : 1;
    }
    case Kind::kCommand:
      return 2;
    case Kind::kAll:
    case Kind::kAny:
    case Kind::kNot: {
      int cost = 0;
      for (const Condition& child : children) cost = std::max(cost, child.Cost());
      return cost;
    }
  }
  return 2;
}

std::string Rule::Where() const { return file + ":" + std::to_string(line); }

}  // namespace togmal::rules
