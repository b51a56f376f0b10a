#include "togmal/store/redaction.h"

#include <re2/re2.h>

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <iterator>
#include <memory>
#include <mutex>
#include <vector>

#include "redaction_tables.h"
#include "togmal/util/text.h"

namespace togmal::store {

namespace {

using redaction::kTables;

// ---------------------------------------------------------------------------
// Shapes: secrets recognised by a pattern around them. Everything known by
// meaning (option, name, prefix) is data in config/redaction.yaml, scanned
// without regular expressions below.

struct SecretPattern {
  const char* pattern;
  const char* rewrite;  // \1 keeps the part that says what the secret was
  // Lower-case substrings, '|'-separated, one of which any match contains.
  // Text without any of them skips the pattern, and the pattern is compiled
  // only when some text has one: a hook call for `git status` compiles none.
  std::string_view triggers;
  // Characters one of which any match contains ("" when none is needed).
  std::string_view needs_one_of = {};
};

constexpr SecretPattern kSecretPatterns[] = {
    // PEM and PGP private key blocks, also cut off before their END line.
    {R"(-----BEGIN[A-Z ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z ]*PRIVATE KEY(?: BLOCK)?-----|\z))",
     "[REDACTED]", "-----begin"},
    {R"(([A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@]*:)[^@\s/]+@)", "\\1[REDACTED]@", "://"},
    {R"((?i)(\bbearer\s+)[A-Za-z0-9._~+/\-]+=*)", "\\1[REDACTED]", "bearer"},
    // JSON Web Tokens: base64url header and payload (both JSON objects), signature.
    {R"(\beyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,})", "[REDACTED]", "eyj"},
    // Slack incoming webhooks: the path is the secret.
    {R"((hooks\.slack\.com/services/)[A-Za-z0-9/]+)", "\\1[REDACTED]", "hooks.slack.com"},
    // curl -u user:X, --user user:X (any tool's user:password operand).
    {R"((\s(?:-u|--user)\s+[^\s:@/]+:)("[^"\n]*"|'[^'\n]*'|[^\s'"]+))", "\\1[REDACTED]",
     "-u |--user ", ":"},
};

RE2::Options Options() {
  RE2::Options options;
  options.set_log_errors(false);
  options.set_max_mem(8 << 20);
  return options;
}

/// One pattern, compiled the first time a text passes its trigger check.
class LazyPattern {
 public:
  explicit LazyPattern(const SecretPattern& source) : source_(source) {}

  const SecretPattern& source() const { return source_; }

  const RE2& Get() const {
    std::call_once(once_,
                   [this] { compiled_ = std::make_unique<RE2>(source_.pattern, Options()); });
    return *compiled_;
  }

 private:
  const SecretPattern& source_;
  mutable std::once_flag once_;
  mutable std::unique_ptr<RE2> compiled_;
};

const std::vector<std::unique_ptr<LazyPattern>>& AllPatterns() {
  // Never destroyed: a short-lived hook process should not pay for tearing
  // down what it is about to drop anyway.
  static const auto* const patterns = [] {
    auto* all = new std::vector<std::unique_ptr<LazyPattern>>;
    for (const SecretPattern& secret : kSecretPatterns) {
      all->push_back(std::make_unique<LazyPattern>(secret));
    }
    return all;
  }();
  return *patterns;
}

// The classes <cctype> gives in the "C" locale, which togmal never leaves,
// without a library call for each byte of each stored text.
bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsWordChar(char c) { return util::IsShellNameChar(c); }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }
bool IsSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Every pattern's triggers, indexed by their first byte: which patterns a text
// may match is found in one pass over it, comparing in ASCII lower case where
// a trigger can start, without a lower-case copy searched once per trigger.
struct Trigger {
  std::string_view text;
  std::size_t pattern;
};

struct TriggerIndex {
  std::vector<Trigger> by_first[256];
};

const TriggerIndex& Triggers() {
  static const TriggerIndex* const index = [] {
    auto* built = new TriggerIndex;
    for (std::size_t p = 0; p < std::size(kSecretPatterns); ++p) {
      std::string_view triggers = kSecretPatterns[p].triggers;
      while (!triggers.empty()) {
        const std::size_t bar = triggers.find('|');
        const std::string_view trigger = triggers.substr(0, bar);
        built->by_first[static_cast<unsigned char>(trigger[0])].push_back({trigger, p});
        if (bar == std::string_view::npos) break;
        triggers.remove_prefix(bar + 1);
      }
    }
    return built;
  }();
  return *index;
}

bool LowerStartsWith(std::string_view text, std::size_t at, std::string_view lower_word) {
  if (text.size() - at < lower_word.size()) return false;
  for (std::size_t i = 0; i < lower_word.size(); ++i) {
    if (util::AsciiLower(text[at + i]) != lower_word[i]) return false;
  }
  return true;
}

// Bit p set: pattern p may match `text` (one of its triggers is there, in any
// case, and one of its needs_one_of bytes).
std::uint32_t PatternsThatMayMatch(std::string_view text) {
  static_assert(std::size(kSecretPatterns) <= 32);
  const TriggerIndex& index = Triggers();
  std::uint32_t may = 0;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const auto first = static_cast<unsigned char>(util::AsciiLower(text[at]));
    for (const Trigger& trigger : index.by_first[first]) {
      if (LowerStartsWith(text, at, trigger.text)) may |= 1u << trigger.pattern;
    }
  }
  for (std::size_t p = 0; p < std::size(kSecretPatterns); ++p) {
    const std::string_view needs = kSecretPatterns[p].needs_one_of;
    if ((may & (1u << p)) == 0 || needs.empty()) continue;
    const bool has_one = std::any_of(text.begin(), text.end(), [needs](char c) {
      return needs.find(util::AsciiLower(c)) != std::string_view::npos;
    });
    if (!has_one) may &= ~(1u << p);
  }
  return may;
}

// ---------------------------------------------------------------------------
// Spans: the scanners below collect what to replace, then it is replaced at once.

struct Span {
  std::size_t begin = 0;
  std::size_t end = 0;
};

class Replacements {
 public:
  void Add(std::size_t begin, std::size_t end) {
    if (end > begin) spans_.push_back({begin, end});
  }

  bool Any() const { return !spans_.empty(); }

  /// `text` with each span (merged where they overlap) replaced by kRedacted;
  /// whether there was any.
  bool ApplyTo(std::string& text) {
    if (spans_.empty()) return false;
    std::sort(spans_.begin(), spans_.end(),
              [](const Span& a, const Span& b) { return a.begin < b.begin; });
    std::string result;
    result.reserve(text.size());
    std::size_t copied = 0;
    for (std::size_t i = 0; i < spans_.size();) {
      const std::size_t begin = spans_[i].begin;
      std::size_t end = spans_[i].end;
      for (++i; i < spans_.size() && spans_[i].begin < end; ++i) end = std::max(end, spans_[i].end);
      result.append(text, copied, begin - copied);
      result += kRedacted;
      copied = end;
    }
    result.append(text, copied);
    text = std::move(result);
    spans_.clear();
    return true;
  }

 private:
  std::vector<Span> spans_;
};

bool IsRedactedAt(std::string_view text, std::size_t at) {
  return text.substr(at, kRedacted.size()) == kRedacted;
}

// ---------------------------------------------------------------------------
// Token prefixes.

bool IsTokenChar(redaction::TokenChars chars, char c) {
  using redaction::TokenChars;
  switch (chars) {
    case TokenChars::kAlnum:
      return IsAlnum(c);
    case TokenChars::kWord:
      return IsWordChar(c);
    case TokenChars::kDashed:
      return IsWordChar(c) || c == '-';
    case TokenChars::kAlnumDash:
      return IsAlnum(c) || c == '-';
    case TokenChars::kUpperDigit:
      return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    case TokenChars::kDotted:
      return IsWordChar(c) || c == '-' || c == '.';
  }
  return false;
}

// The token prefixes grouped by their first byte, each group in the table's
// order (the first prefix that matches wins): a word start is compared only
// with the prefixes that begin with its byte, and most bytes begin none.
// Raw arrays and pointers: this loop sees every byte of every stored text,
// and a debug build calls a function for each operator[].
struct PrefixIndex {
  std::uint16_t first_at[257] = {};  ///< group of byte b: [first_at[b], first_at[b + 1])
  std::vector<const redaction::TokenPrefix*> ordered;
};

const PrefixIndex& Prefixes() {
  static const PrefixIndex* const index = [] {
    auto* built = new PrefixIndex;
    const auto first = [](const redaction::TokenPrefix& token) {
      return static_cast<unsigned char>(token.prefix[0]);
    };
    for (const redaction::TokenPrefix& token : kTables.token_prefixes) {
      ++built->first_at[first(token) + 1];
    }
    for (std::size_t b = 1; b <= 256; ++b) built->first_at[b] += built->first_at[b - 1];
    built->ordered.resize(kTables.token_prefixes.size());
    std::uint16_t next[256];
    std::copy(built->first_at, built->first_at + 256, next);
    for (const redaction::TokenPrefix& token : kTables.token_prefixes) {
      built->ordered[next[first(token)]++] = &token;
    }
    return built;
  }();
  return *index;
}

void FindPrefixedTokens(std::string_view text, Replacements& found) {
  const PrefixIndex& index = Prefixes();
  const std::uint16_t* const first_at = index.first_at;
  const redaction::TokenPrefix* const* const ordered = index.ordered.data();
  const char* const data = text.data();
  const std::size_t size = text.size();
  for (std::size_t at = 0; at < size; ++at) {
    const auto byte = static_cast<unsigned char>(data[at]);
    const std::uint16_t group_end = first_at[byte + 1];
    // A token starts a word: not inside a longer one.
    if (first_at[byte] == group_end || (at > 0 && IsWordChar(data[at - 1]))) continue;
    for (std::uint16_t t = first_at[byte]; t < group_end; ++t) {
      const redaction::TokenPrefix& token = *ordered[t];
      // Its first byte matched already; prefixes are a few bytes, too short
      // to be worth a memcmp call.
      const std::size_t length_of_prefix = token.prefix.size();
      if (size - at < length_of_prefix) continue;
      std::size_t same = 1;
      while (same < length_of_prefix && data[at + same] == token.prefix[same]) ++same;
      if (same < length_of_prefix) continue;
      std::size_t end = at + token.prefix.size();
      while (end < size && IsTokenChar(token.chars, data[end])) ++end;
      const std::size_t length = end - at - token.prefix.size();
      if (length < token.min_length) continue;
      if (token.max_length != 0 &&
          (length > token.max_length || (end < size && IsWordChar(data[end])))) {
        continue;
      }
      found.Add(at, end);
      at = end - 1;
      break;
    }
  }
}

// ---------------------------------------------------------------------------
// Secret names.

/// Whether a value named `name` is a secret (config/redaction.yaml,
/// secret_names); `member`: the name of a JSON member.
bool IsSecretName(std::string_view name, bool member) {
  if (name.empty() || name.size() > 256) return false;
  const std::string lower = util::AsciiLower(name);
  const auto& names = kTables.secret_names;
  for (const std::string_view word : names.contains) {
    if (lower.find(word) != std::string::npos) return true;
  }
  if (member) {
    for (const std::string_view word : names.members) {
      if (lower.find(word) != std::string::npos) return true;
    }
  }
  // The parts of the name, split at non-alphanumerics and where a lower-case
  // letter or digit is followed by an upper-case one (camelCase), checked as
  // they are found: this runs for every member name of every stored entry.
  const auto is_upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  const char* const data = name.data();
  std::string_view previous;
  std::string_view last;
  std::size_t part_count = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    const bool at_end = i == name.size();
    const bool alnum = !at_end && IsAlnum(data[i]);
    const bool boundary =
        at_end || !alnum || (i > begin && is_upper(data[i]) && !is_upper(data[i - 1]));
    if (!boundary) continue;
    if (i > begin) {
      const std::string_view part = std::string_view(lower).substr(begin, i - begin);
      if (util::NameIn(part, names.parts)) return true;
      previous = last;
      last = part;
      ++part_count;
    }
    begin = alnum ? i : i + 1;
  }
  return part_count >= 2 && last == "key" && !util::NameIn(previous, names.key_suffix_except);
}

bool IsNameChar(char c) { return IsWordChar(c) || c == '-' || c == '.' || c == '/'; }

// Where a quoted value that opens at `at` ends (past its closing quote): a
// quote is ", ' or \" (inside JSON text that was itself stored as a string).
// npos when `at` opens no quote.
std::size_t QuotedEnd(std::string_view text, std::size_t at) {
  if (at >= text.size()) return std::string_view::npos;
  std::string_view quote;
  if (text[at] == '"' || text[at] == '\'') {
    quote = text.substr(at, 1);
  } else if (text.substr(at, 2) == "\\\"") {
    quote = "\\\"";
  } else {
    return std::string_view::npos;
  }
  const std::size_t line_end = std::min(text.find('\n', at), text.size());
  std::size_t close = at + quote.size();
  while (true) {
    close = text.find(quote, close);
    if (close == std::string_view::npos || close >= line_end) return line_end;
    // In "…" a backslash escapes the quote; \" as the quote has no escape.
    if (quote == "\"" && text[close - 1] == '\\') {
      ++close;
      continue;
    }
    return close + quote.size();
  }
}

// Where an unquoted value starting at `at` ends.
std::size_t BareEnd(std::string_view text, std::size_t at) {
  std::size_t end = at;
  while (end < text.size()) {
    const char c = text[end];
    if (IsSpace(c) || c == '"' || c == '\'' || c == '#' || c == ';' || c == '&' || c == '|') break;
    if (c == '\\' && end + 1 < text.size() && text[end + 1] == '"') break;
    ++end;
  }
  return end;
}

// The name just before the `=` or `:` at `separator`, or "" when there is none.
std::string_view NameBefore(std::string_view text, std::size_t separator) {
  std::size_t end = separator;
  while (end > 0 && IsBlank(text[end - 1])) --end;
  if (end == 0) return {};
  const char last = text[end - 1];
  if (last == '"' || last == '\'') {  // "name": … or 'name' = …
    const bool escaped = last == '"' && end >= 2 && text[end - 2] == '\\';
    const std::size_t close = end - (escaped ? 2 : 1);
    std::size_t open = close;
    while (open > 0 && IsNameChar(text[open - 1])) --open;
    if (open == 0 || text[open - 1] != last) return {};
    return text.substr(open, close - open);
  }
  std::size_t begin = end;
  while (begin > 0 && IsNameChar(text[begin - 1])) --begin;
  return text.substr(begin, end - begin);
}

// `NAME=value`, `NAME: value`, `"name": "value"`, `name = value` with a secret
// name: the value.
// The next `=` or `:` from `from` on (a loop: find_first_of calls memchr
// once per character).
std::size_t NextSeparator(std::string_view text, std::size_t from) {
  for (std::size_t at = from; at < text.size(); ++at) {
    if (text[at] == '=' || text[at] == ':') return at;
  }
  return std::string_view::npos;
}

void FindSecretAssignments(std::string_view text, Replacements& found) {
  for (std::size_t at = NextSeparator(text, 0); at != std::string_view::npos;
       at = NextSeparator(text, at + 1)) {
    // `==`, `!=`, `<=`, `:=`… are comparisons or other syntax, and `://` a URL.
    if (at + 1 < text.size() && (text[at + 1] == '=' || text[at + 1] == '/')) continue;
    if (at > 0 && (text[at - 1] == '=' || text[at - 1] == '!' || text[at - 1] == '<' ||
                   text[at - 1] == '>')) {
      continue;
    }
    std::string_view name = NameBefore(text, at);
    // A path's folders name no value: `/tmp/aPW/rules.yaml:3:` is a file and
    // a line, and `x/db_password: …` is named by its last part.
    if (const std::size_t slash = name.rfind('/'); slash != std::string_view::npos) {
      name.remove_prefix(slash + 1);
    }
    if (!IsSecretName(name, false)) continue;
    std::size_t value = at + 1;
    while (value < text.size() && IsBlank(text[value])) ++value;
    if (value >= text.size() || IsRedactedAt(text, value)) continue;
    const std::size_t quoted = QuotedEnd(text, value);
    const std::size_t end = quoted != std::string_view::npos ? quoted : BareEnd(text, value);
    if (quoted != std::string_view::npos && end - value <= 2) continue;  // "" or ''
    found.Add(value, end);
  }
}

// ---------------------------------------------------------------------------
// Commands: options and setters that take secrets.

// For each first byte, bit n set when some command name of n bytes (n < 64)
// starts with it: most words are no command's name, and are told so without
// a binary search of string comparisons.
struct CommandNameShapes {
  std::uint64_t lengths_by_first[256] = {};
  bool all = true;  ///< every name has a bit (none is empty or 64 bytes long)
};

const CommandNameShapes& NameShapes() {
  static const CommandNameShapes shapes = [] {
    CommandNameShapes built;
    for (const std::string_view name : kTables.command_names) {
      if (name.empty() || name.size() >= 64) {
        built.all = false;
        continue;
      }
      built.lengths_by_first[static_cast<unsigned char>(name[0])] |= std::uint64_t{1}
                                                                     << name.size();
    }
    return built;
  }();
  return shapes;
}

// `name`'s index in command_names (the first words of the rules' commands,
// sorted), or -1.
int CommandIndex(std::string_view name) {
  const CommandNameShapes& shapes = NameShapes();
  if (shapes.all && (name.empty() || name.size() >= 64 ||
                     (shapes.lengths_by_first[static_cast<unsigned char>(name[0])] &
                      (std::uint64_t{1} << name.size())) == 0)) {
    return -1;
  }
  const std::span<const std::string_view> names = kTables.command_names;
  const auto found = std::lower_bound(names.begin(), names.end(), name);
  return found != names.end() && *found == name ? static_cast<int>(found - names.begin()) : -1;
}

// The CommandIndex() of the first word of each rule's commands, per rule and
// command, computed once.
struct RuleCommandIndices {
  std::vector<std::vector<int>> options;  ///< kTables.secret_options
  std::vector<std::vector<int>> setters;  ///< kTables.setters
};

const RuleCommandIndices& FirstWordIndices() {
  static const RuleCommandIndices* const indices = [] {
    auto* built = new RuleCommandIndices;
    const auto of = [](std::span<const redaction::CommandWords> commands) {
      std::vector<int> firsts;
      for (const redaction::CommandWords command : commands) {
        firsts.push_back(CommandIndex(command[0]));
      }
      return firsts;
    };
    for (const redaction::SecretOptions& rule : kTables.secret_options) {
      built->options.push_back(of(rule.commands));
    }
    for (const redaction::Setters& rule : kTables.setters)
      built->setters.push_back(of(rule.commands));
    return built;
  }();
  return *indices;
}

struct Word {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::string_view text;  ///< unquoted: the text itself, or `unquoted`
  std::string_view name;  ///< `text` without a path: /usr/bin/mysql is mysql
  int command = -1;       ///< `name`'s index in command_names; -1: it names no command
  bool quoted = false;    ///< had quotes or backslashes: `text` is `unquoted`
  std::string unquoted;
};

/// The simple commands of a text: all their words in one vector (one
/// allocation, not one per command and per word), each command a span of it.
struct CommandWords {
  std::vector<Word> words;
  std::vector<std::size_t> ends;  ///< where each command's words end
};

// The simple commands of `text` as words, split the way a shell would at
// blanks, newlines, operators, parentheses and backquotes outside quotes
// (enough to find options and operands; expansions are not performed).
CommandWords Commands(std::string_view text) {
  // Backquotes too: a command is quoted in `…` by our own reasons, and by
  // shells as a substitution.
  const auto ends_word = [](char c) {
    return IsSpace(c) || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '`';
  };
  const char* const data = text.data();
  const std::size_t size = text.size();
  CommandWords commands;
  // Room for a typical command line at once, not regrown word by word.
  commands.words.reserve(16);
  commands.ends.reserve(4);
  const auto end_command = [&commands] {
    if (commands.words.size() > (commands.ends.empty() ? 0 : commands.ends.back())) {
      commands.ends.push_back(commands.words.size());
    }
  };
  std::size_t i = 0;
  while (i < size) {
    const char c = data[i];
    if (IsBlank(c)) {
      ++i;
      continue;
    }
    if (ends_word(c)) {  // a newline or an operator ends the command
      end_command();
      ++i;
      continue;
    }
    Word word;
    word.begin = i;
    // The unquoted text is built only once a quote or a backslash makes it
    // differ from the word as written.
    const auto unquote = [&word, data, &i] {
      if (!word.quoted) word.unquoted.assign(data + word.begin, i - word.begin);
      word.quoted = true;
    };
    while (i < size && !ends_word(data[i])) {
      const char d = data[i];
      if (d == '\'' || d == '"') {
        // A quote that never closes is prose (`npm's settings`), not a
        // string that swallows the rest of the text and the commands in it.
        const std::size_t close = text.find(d, i + 1);
        if (close != std::string_view::npos) {
          unquote();
          word.unquoted.append(data + i + 1, close - i - 1);
          i = close + 1;
          continue;
        }
      }
      if (d == '\\' && i + 1 < size) {
        unquote();
        word.unquoted += data[i + 1];
        i += 2;
        continue;
      }
      // A run of plain characters at once.
      std::size_t run = i + 1;
      while (run < size && !ends_word(data[run]) && data[run] != '\'' && data[run] != '"' &&
             data[run] != '\\') {
        ++run;
      }
      if (word.quoted) word.unquoted.append(data + i, run - i);
      i = run;
    }
    word.end = i;
    commands.words.push_back(std::move(word));
  }
  end_command();
  // Views point into the text or each word's own string, so only once the
  // vector is final. Each word is looked up once; the rules' commands are
  // then found by comparing indices.
  for (Word& word : commands.words) {
    word.text = word.quoted ? std::string_view(word.unquoted)
                            : text.substr(word.begin, word.end - word.begin);
    const std::size_t slash = word.text.rfind('/');
    word.name = word.text;
    if (slash != std::string_view::npos) word.name.remove_prefix(slash + 1);
    word.command = CommandIndex(word.name);
  }
  return commands;
}

// The index just past where `command` is in `words`: its first word (by base
// name, so /usr/bin/mysql is mysql), then its subcommands in order, with
// anything between them (`aws --profile p configure set`). 0 when it is not there.
// `first` is command[0]'s CommandIndex().
std::size_t AfterCommand(std::span<const Word> words, redaction::CommandWords command, int first) {
  for (std::size_t start = 0; start < words.size(); ++start) {
    if (words[start].command != first) continue;
    std::size_t next = start + 1;
    std::size_t matched = 1;
    for (; next < words.size() && matched < command.size(); ++next) {
      if (words[next].text == command[matched]) ++matched;
    }
    if (matched == command.size()) return next;
  }
  return 0;
}

// Which command names the words of one command hold, by CommandIndex().
struct NamedCommands {
  bool any = false;
  std::bitset<128> present;  ///< for names past 128, MayHold() says yes
  bool MayHold(int index) const {
    return static_cast<std::size_t>(index) >= present.size() ||
           present[static_cast<std::size_t>(index)];
  }
};

NamedCommands NamedIn(std::span<const Word> words) {
  NamedCommands named;
  for (const Word& word : words) {
    if (word.command < 0) continue;
    named.any = true;
    if (static_cast<std::size_t>(word.command) < named.present.size()) {
      named.present.set(static_cast<std::size_t>(word.command));
    }
  }
  return named;
}

// Where the words that follow the first of `commands` found begin: npos when
// none is there; 0 (all the words) when the rule names no command. `firsts`:
// the CommandIndex() of each command's first word.
std::size_t AfterAnyCommand(std::span<const Word> words, const NamedCommands& named,
                            std::span<const redaction::CommandWords> commands,
                            const std::vector<int>& firsts) {
  if (commands.empty()) return 0;
  if (!named.any) return std::string_view::npos;
  for (std::size_t c = 0; c < commands.size(); ++c) {
    // A command whose first word is not in the text is not looked for.
    if (firsts[c] < 0 || !named.MayHold(firsts[c])) continue;
    if (const std::size_t after = AfterCommand(words, commands[c], firsts[c]); after != 0) {
      return after;
    }
  }
  return std::string_view::npos;
}

void FindSecretOptions(std::string_view text, std::span<const Word> words,
                       const NamedCommands& named, Replacements& found) {
  using redaction::OptionValue;
  const std::vector<std::vector<int>>& firsts = FirstWordIndices().options;
  for (std::size_t r = 0; r < kTables.secret_options.size(); ++r) {
    const redaction::SecretOptions& rule = kTables.secret_options[r];
    const std::size_t first = AfterAnyCommand(words, named, rule.commands, firsts[r]);
    if (first == std::string_view::npos) continue;
    for (std::size_t i = first; i < words.size(); ++i) {
      if (text[words[i].begin] != '-') continue;  // every option starts with '-'
      const std::string_view word = text.substr(words[i].begin, words[i].end - words[i].begin);
      for (const std::string_view option : rule.options) {
        if (!word.starts_with(option)) continue;
        if (word.size() == option.size()) {
          if (rule.value != OptionValue::kAttached && i + 1 < words.size()) {
            found.Add(words[i + 1].begin, words[i + 1].end);
          }
        } else if (word[option.size()] == '=') {
          found.Add(words[i].begin + option.size() + 1, words[i].end);
        } else if (option.size() == 2 && option[1] != '-' && rule.value != OptionValue::kSeparate) {
          found.Add(words[i].begin + option.size(), words[i].end);  // -pSECRET
        }
      }
    }
  }
}

void FindSetterValues(std::string_view text, std::span<const Word> words,
                      const NamedCommands& commands, Replacements& found) {
  const std::vector<std::vector<int>>& firsts = FirstWordIndices().setters;
  for (std::size_t r = 0; r < kTables.setters.size(); ++r) {
    const redaction::Setters& rule = kTables.setters[r];
    const std::size_t first = AfterAnyCommand(words, commands, rule.commands, firsts[r]);
    if (first == std::string_view::npos) continue;
    bool named = false;  // for any_name: the first operand (the name) is behind us
    for (std::size_t i = first; i < words.size(); ++i) {
      const std::string_view word = words[i].text;
      if (word.starts_with('-')) continue;
      if (rule.any_name) {
        const std::string_view raw = text.substr(words[i].begin, words[i].end - words[i].begin);
        if (const std::size_t equals = raw.find('=');
            equals != std::string_view::npos && raw.find_first_of("'\"") > equals) {
          found.Add(words[i].begin + equals + 1, words[i].end);  // NAME=VALUE, NAME="x y"
        } else if (named) {
          found.Add(words[i].begin, words[i].end);
        }
        named = true;
        continue;
      }
      if (i + 1 < words.size() && word.find('=') == std::string_view::npos &&
          IsSecretName(word, false)) {
        found.Add(words[i + 1].begin, words[i + 1].end);
        ++i;
      }
    }
  }
}

void FindCommandSecrets(std::string_view text, Replacements& found) {
  // Every option and setter starts with '-' or is a known command word; text
  // with no '-' and no blank (a file path, a word) has neither.
  if (text.find_first_of("- \t") == std::string_view::npos) return;
  const CommandWords commands = Commands(text);
  const std::span<const Word> all = commands.words;
  std::size_t begin = 0;
  for (const std::size_t end : commands.ends) {
    const std::span<const Word> words = all.subspan(begin, end - begin);
    begin = end;
    if (words.size() < 2) continue;
    const NamedCommands named = NamedIn(words);
    FindSecretOptions(text, words, named, found);
    FindSetterValues(text, words, named, found);
  }
}

bool IsSecretKey(const std::string& key) { return IsSecretName(key, true); }

}  // namespace

bool RedactSecretsIn(std::string& text) {
  bool changed = false;
  // Replacements only shorten secrets to "[REDACTED]", so a trigger absent
  // from the original text is absent from the result too.
  if (const std::uint32_t may = PatternsThatMayMatch(text); may != 0) {
    const auto& patterns = AllPatterns();
    for (std::size_t p = 0; p < patterns.size(); ++p) {
      if ((may & (1u << p)) == 0) continue;
      const LazyPattern* const lazy = patterns[p].get();
      const RE2& pattern = lazy->Get();
      // A pattern that failed to compile is a programming error the unit tests
      // catch; skipping it here keeps the hook alive.
      if (!pattern.ok()) continue;
      changed = RE2::GlobalReplace(&text, pattern, lazy->source().rewrite) > 0 || changed;
    }
  }
  // Each scan sees what the one before left, so a value already replaced is
  // recognised (IsRedactedAt) and not replaced around again.
  Replacements found;
  FindPrefixedTokens(text, found);
  changed = found.ApplyTo(text) || changed;
  FindCommandSecrets(text, found);
  changed = found.ApplyTo(text) || changed;
  FindSecretAssignments(text, found);
  changed = found.ApplyTo(text) || changed;
  return changed;
}

std::string RedactSecrets(std::string_view text) {
  std::string result(text);
  RedactSecretsIn(result);
  return result;
}

void RedactSecretsIn(nlohmann::json& value) {
  if (value.is_string()) {
    RedactSecretsIn(value.get_ref<std::string&>());
    return;
  }
  if (value.is_array()) {
    for (auto& item : value) RedactSecretsIn(item);
    return;
  }
  if (!value.is_object()) return;
  bool rename = false;
  for (auto& [key, item] : value.items()) {
    if (item.is_string() && !item.get_ref<const std::string&>().empty() && IsSecretKey(key)) {
      item = std::string(kRedacted);
    } else {
      RedactSecretsIn(item);
    }
    // A name can be a secret too (`{"ghp_…": 1}`): only a token by its
    // prefix is looked for, the one kind of secret a name is seen holding.
    Replacements found;
    FindPrefixedTokens(key, found);
    rename = rename || found.Any();
  }
  if (!rename) return;
  nlohmann::json renamed = nlohmann::json::object();
  for (auto& [key, item] : value.items()) {
    std::string name = RedactSecrets(key);
    // Two names can become one; neither value is lost.
    for (int n = 2; renamed.contains(name); ++n)
      name = RedactSecrets(key) + " #" + std::to_string(n);
    renamed[name] = std::move(item);
  }
  value = std::move(renamed);
}

nlohmann::json RedactSecretsInJson(const nlohmann::json& value) {
  nlohmann::json copy = value;
  RedactSecretsIn(copy);
  return copy;
}

}  // namespace togmal::store
