// Small text helpers and the matching of a command's words against the
// tables' rules (flags, arguments, subcommands), and ScanOptions: each
// option word checked against the entries' safe_options (ScanOption).
#include <algorithm>
#include <cctype>

#include "togmal/util/glob.h"
#include "walker.h"

namespace togmal::policy {

std::string Join(const std::vector<Word>& words, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < words.size(); ++i) {
    if (!out.empty()) out.push_back(' ');
    out += words[i].text;
  }
  return out;
}

std::string_view GenericPhrase(Level level) {
  switch (level) {
    case Level::kL0:
      return "only reads";
    case Level::kL1:
      return "makes a local, recoverable change";
    case Level::kL2:
      return "has effects a person should approve";
    case Level::kL3:
      return "is destructive or dangerous";
  }
  return "";
}

ArgView ViewArgs(const std::vector<Word>& words, std::size_t from,
                 const std::vector<std::string>& options_with_value, std::size_t to) {
  ArgView view;
  view.with_value = &options_with_value;
  bool only_positionals = false;
  const std::size_t end = std::min(to, words.size());
  for (std::size_t i = from; i < end; ++i) {
    std::string_view text = words[i].text;
    view.all.push_back(text);
    if (only_positionals) {
      view.positionals.push_back(text);
      continue;
    }
    if (text == "--") {
      only_positionals = true;
      view.double_dash = true;
      view.options.push_back(text);
      continue;
    }
    if (IsOptionWord(text) || (text.size() > 1 && text.front() == '+' && text[1] == 'o')) {
      view.options.push_back(text);
      if (util::NameIn(text, options_with_value) && i + 1 < end) {
        ++i;
        view.all.push_back(words[i].text);
      }
      continue;
    }
    view.positionals.push_back(text);
  }
  return view;
}

ShortCluster ReadCluster(std::string_view word,
                         std::initializer_list<const std::vector<std::string>*> with_value) {
  ShortCluster cluster;
  if (word.size() < 2 || word[0] != '-' || word[1] == '-') return cluster;
  std::size_t k = 1;
  for (; k < word.size() && std::isalnum(static_cast<unsigned char>(word[k])) != 0; ++k) {
    const std::string option{'-', word[k]};
    for (const std::vector<std::string>* list : with_value) {
      if (!util::NameIn(option, *list)) continue;
      cluster.letters = word.substr(1, k);
      cluster.takes_value = true;
      cluster.value = word.substr(k + 1);
      return cluster;
    }
  }
  cluster.letters = word.substr(1, k - 1);
  return cluster;
}

bool FlagMatches(std::string_view flag, std::string_view option) {
  if (option == flag) return true;
  if (flag.size() > 2 && flag.substr(0, 2) == "--") {
    return option.size() > flag.size() && option.substr(0, flag.size()) == flag &&
           option[flag.size()] == '=';
  }
  if (flag.size() == 2 && flag[0] == '-' && flag[1] != '-') {
    // A short option with its value attached: -o/etc/x, Go's -o=x.
    if (option.size() > 2 && option[0] == '-' && option[1] == flag[1]) return true;
    // A cluster of short options: -rf has -r and -f.
    if (option.size() > 2 && option[0] == '-' && option[1] != '-') {
      for (std::size_t i = 1; i < option.size(); ++i) {
        if (!std::isalnum(static_cast<unsigned char>(option[i]))) return false;
      }
      return option.find(flag[1], 1) != std::string_view::npos;
    }
  }
  return false;
}

bool AnyFlag(const ArgView& view, const std::vector<std::string>& flags) {
  for (std::string_view option : view.options) {
    // `-uo/etc/x` has `-u` and `-o`: the letters before its value.
    const std::string_view letters =
        view.with_value != nullptr ? ReadCluster(option, {view.with_value}).letters : "";
    for (const std::string& flag : flags) {
      if (FlagMatches(flag, option)) return true;
      const bool short_flag = flag.size() == 2 && flag[0] == '-' && flag[1] != '-';
      if (short_flag && letters.find(flag[1]) != std::string_view::npos) return true;
    }
  }
  return false;
}

bool ArgMatches(const std::vector<std::string>& patterns, std::string_view arg) {
  const std::string normalized = NormalizePath(arg);
  // Most words are already in normal form (`src`, `--short`): their second
  // match would repeat the first, for every pattern of every rule.
  const bool differs = normalized != arg;
  for (const std::string& pattern : patterns) {
    if (pattern == arg || util::GlobMatches(pattern, arg) ||
        (differs && util::GlobMatches(pattern, normalized)))
      return true;
  }
  return false;
}

bool IsLocalUrl(std::string_view url) {
  for (std::string_view scheme : {"http://", "https://"}) {
    if (url.starts_with(scheme)) {
      url.remove_prefix(scheme.size());
      break;
    }
  }
  // The authority ends at the path, query or fragment; a user part
  // (`localhost@evil.com`) names another host.
  const std::string_view authority = url.substr(0, url.find_first_of("/?#"));
  if (authority.find('@') != std::string_view::npos ||
      authority.find('\\') != std::string_view::npos)
    return false;
  std::string_view host = authority;
  std::string_view port;
  if (host.starts_with("[")) {
    const std::size_t close = host.find(']');
    if (close == std::string_view::npos) return false;
    port = host.substr(close + 1);
    host = host.substr(0, close + 1);
  } else if (const std::size_t colon = host.find(':'); colon != std::string_view::npos) {
    port = host.substr(colon);
    host = host.substr(0, colon);
  }
  if (!port.empty()) {
    if (port.size() < 2 || port.size() > 6 || port.front() != ':') return false;
    for (char c : port.substr(1)) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
  }
  const std::string lower = util::AsciiLower(host);
  return lower == "localhost" || lower == "127.0.0.1" || lower == "[::1]" || lower == "0.0.0.0";
}

bool RuleMatches(const ArgRule& rule, const ArgView& view, Profile profile,
                 bool relative_in_project) {
  if (rule.profile && *rule.profile != profile) return false;
  if (rule.local_urls) {
    if (view.positionals.empty()) return false;
    for (std::string_view arg : view.positionals) {
      if (!IsLocalUrl(arg)) return false;
    }
  }
  if (!rule.any_flag.empty() && !AnyFlag(view, rule.any_flag)) return false;
  for (const auto& group : rule.all_flags) {
    if (!AnyFlag(view, group)) return false;
  }
  if (!rule.none_flag.empty() && AnyFlag(view, rule.none_flag)) return false;
  if (!rule.any_arg.empty()) {
    bool found = false;
    for (std::string_view arg : view.positionals) found = found || ArgMatches(rule.any_arg, arg);
    if (!found) return false;
  }
  if (!rule.all_args.empty()) {
    if (view.positionals.empty()) return false;
    for (std::string_view arg : view.positionals) {
      if (arg.find("..") != std::string_view::npos || !ArgMatches(rule.all_args, arg)) return false;
      // After `cd /`, `build` is /build, not the project's build directory
      // (`$TMPDIR/x` names the same place wherever the shell is).
      if (!relative_in_project && !arg.empty() && arg.front() != '/' && arg.front() != '$')
        return false;
    }
  }
  if (!rule.any_word.empty()) {
    bool found = false;
    for (std::string_view word : view.all) found = found || ArgMatches(rule.any_word, word);
    if (!found) return false;
  }
  if (rule.no_args && *rule.no_args != view.positionals.empty()) return false;
  if (rule.min_args > 0 && view.positionals.size() < static_cast<std::size_t>(rule.min_args))
    return false;
  if (rule.max_args >= 0 && view.positionals.size() > static_cast<std::size_t>(rule.max_args))
    return false;
  return true;
}

const CommandNode* FindChild(const CommandNode& node, std::string_view name) {
  if (node.raw != nullptr && node.lazy != nullptr) {
    const auto& children = node.raw->subcommands;
    for (std::size_t i = 0; i < children.size; ++i) {
      if (name == children.data[i].name) return node.lazy->Get(i, children.data[i]);
    }
    for (std::size_t i = 0; i < children.size; ++i) {
      const std::string_view pattern = children.data[i].name;
      if (pattern.find_first_of("*?") != std::string_view::npos &&
          util::GlobMatches(pattern, name)) {
        return node.lazy->Get(i, children.data[i]);
      }
    }
    return nullptr;
  }
  for (const CommandNode& child : node.subcommands) {
    if (child.name == name) return &child;
  }
  for (const CommandNode& child : node.subcommands) {
    if (child.name.find_first_of("*?") != std::string::npos &&
        util::GlobMatches(child.name, name)) {
      return &child;
    }
  }
  return nullptr;
}

HelpRequest OnlyHelp(const std::vector<Word>& words, std::size_t start) {
  bool operands = false;
  for (std::size_t i = start + 1; i + 1 < words.size(); ++i) {
    const Word& word = words[i];
    if (word.text == "--") return HelpRequest::kNo;  // after it, --help is an operand
    // `go run main.go --help` runs main.go: help only where nothing is run.
    if (word.expands || word.substitutes || word.text == "-c" || word.text == "run" ||
        word.text == "exec" || word.text.find('=') != std::string::npos) {
      return HelpRequest::kNo;
    }
    operands = operands || word.text.empty() || word.text.front() != '-';
  }
  // Only as the last word: in `cargo yank --version 1.0.0` the option takes a
  // value and the command runs.
  if (words.size() <= start + 1) return HelpRequest::kNo;
  const std::string& last = words.back().text;
  if (last != "--help" && last != "--version") return HelpRequest::kNo;
  // With operands the program may pass the words on instead of printing help
  // (`ssh host 'rm -rf ~; echo' --help` runs the remote command).
  return operands ? HelpRequest::kWithOperands : HelpRequest::kOnly;
}

namespace {

/// The lists of the entries that hold for a word: the ones named before it.
struct OptionLists {
  const std::vector<PathStep>& path;
  std::size_t depth;  // path[0..depth] hold

  /// `globs`: entries with `*`, `?` or `[` match the whole word (`-std=*`).
  bool Safe(std::string_view option, bool globs = false) const {
    for (std::size_t p = 0; p <= depth; ++p) {
      const CommandNode& node = *path[p].node;
      if (std::binary_search(node.safe_sorted.begin(), node.safe_sorted.end(), option)) return true;
      for (std::string_view safe : node.safe_globs) {
        if (safe == option || (globs && util::GlobMatches(safe, option))) return true;
      }
    }
    return false;
  }
  bool TakesValue(std::string_view option) const {
    for (std::size_t p = 0; p <= depth; ++p) {
      if (util::NameIn(option, path[p].node->options_with_value) ||
          util::NameIn(option, path[p].node->operand_values)) {
        return true;
      }
    }
    return false;
  }
  /// An entry that holds here reads `-abc` as one option named abc.
  bool SingleDashLong() const { return path[depth].single_dash_long; }
  bool Ends(std::string_view option) const {
    for (std::size_t p = 0; p <= depth; ++p) {
      if (util::NameIn(option, path[p].node->options_end)) return true;
    }
    return false;
  }
};

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool IsStopWord(std::string_view text, std::initializer_list<std::string_view> stop_words) {
  for (std::string_view word : stop_words) {
    if (text == word) return true;
  }
  return false;
}

/// The scan ends: the words from `value` on are another program's.
bool EndAt(OptionScan& scan, std::size_t value) {
  scan.ended = true;
  scan.value = value;
  return true;
}

/// One option word of ScanOptions, at index `i` (moved past a value the
/// option takes in the next word). Returns true when the scan ends here: an
/// option no list names (scan.unknown) or one after which the words are
/// another program's (scan.ended).
bool ScanOption(const OptionLists& lists, std::string_view text, std::size_t& i, OptionScan& scan) {
  // As written: `-name`, `--stat`, `-U` with its value in the next word.
  if (lists.Safe(text, true)) {
    if (lists.Ends(text)) return EndAt(scan, i + 1);
    if (lists.TakesValue(text)) ++i;
    return false;
  }
  if (text.starts_with("--")) {
    const std::size_t eq = text.find('=');
    const std::string_view key = text.substr(0, eq);
    if (eq != std::string_view::npos && lists.Safe(key)) {
      return lists.Ends(key) ? EndAt(scan, i) : false;
    }
    scan.unknown = std::string(text);
    return true;
  }
  if (AllDigits(text.substr(1)) && lists.Safe("-#")) return false;  // head -20
  // `-count=1`, `-var=x`, `-o=x` (go, terraform): the option before its value.
  const bool single_dash_long = lists.SingleDashLong();
  if (const std::size_t eq = text.find('=');
      eq != std::string_view::npos && (eq > 2 || (single_dash_long && eq == 2))) {
    const std::string_view key = text.substr(0, eq);
    if (lists.Safe(key)) return lists.Ends(key) ? EndAt(scan, i) : false;
  }
  // Go's flags and their kin have no clusters: `-overlay` is not `-o verlay`,
  // `-cloud-upload` not `-c -l -o …`.
  if (single_dash_long) {
    scan.unknown = std::string(text);
    return true;
  }
  // A cluster of short options; one that takes a value takes the rest.
  for (std::size_t k = 1; k < text.size(); ++k) {
    const std::string option{'-', text[k]};
    if (!lists.Safe(option)) {
      scan.unknown = std::string(text);
      return true;
    }
    if (lists.Ends(option)) return EndAt(scan, k + 1 == text.size() ? i + 1 : i);
    if (lists.TakesValue(option)) {
      if (k + 1 == text.size()) ++i;
      break;
    }
  }
  return false;
}

}  // namespace

OptionScan ScanOptions(const std::vector<Word>& words, const std::vector<PathStep>& path,
                       std::size_t stop, std::initializer_list<std::string_view> stop_words) {
  OptionScan scan;
  OptionLists lists{path, 0};
  bool only_operands = false;
  stop = std::min(stop, words.size());
  for (std::size_t i = path.front().index + 1; i < stop; ++i) {
    if (lists.depth + 1 < path.size() && path[lists.depth + 1].index == i) {
      ++lists.depth;  // the subcommand's own word
      continue;
    }
    const std::string_view text = words[i].text;
    if (only_operands || !IsOptionWord(text)) {
      if (!only_operands) {
        if (IsStopWord(text, stop_words)) return scan;
        // `options_end: ["*"]`: the first operand starts another program's
        // words (`go run main.go --port 8080`). Only the operand of the entry
        // that says so: a subcommand's operands (`php artisan make:model X
        // --opt`) are its own, and its options are still checked.
        if (util::NameIn("*", path[lists.depth].node->options_end)) {
          EndAt(scan, i);
          return scan;
        }
      }
      if (lists.depth + 1 == path.size()) scan.operands.push_back(i);
      continue;
    }
    if (text == "--") {
      only_operands = true;
      continue;
    }
    if (IsStopWord(text, stop_words)) return scan;
    if (ScanOption(lists, text, i, scan)) return scan;
  }
  return scan;
}

}  // namespace togmal::policy
