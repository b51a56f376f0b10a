// The content judgement of writes that run later (write_content.h): the
// change is computed as whole texts where the file can be read (a JSON
// manifest's keys compared; other files' changed lines), and from the
// fragments alone, strictly, where it cannot.
#include "write_content.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "togmal/util/text.h"

namespace togmal::policy {
namespace {

bool IdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$';
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

/// A line or value as shown in a reason: trimmed, cut after `limit` bytes.
std::string Clip(std::string_view text, std::size_t limit = 60) {
  return util::Shorten(Trim(text), limit);
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find('\n'), text.size());
    std::string_view line = text.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return lines;
}

/// Where `key` (lower case) is in `lower_text`: a word (identifier characters
/// at both ends) only between non-identifier characters, anything else as a
/// substring.
std::size_t FindKey(std::string_view lower_text, std::string_view key) {
  if (key.empty()) return std::string_view::npos;
  const bool word = IdentifierChar(key.front()) && IdentifierChar(key.back());
  for (std::size_t at = lower_text.find(key); at != std::string_view::npos;
       at = lower_text.find(key, at + 1)) {
    if (!word) return at;
    const bool before_ok = at == 0 || !IdentifierChar(lower_text[at - 1]);
    const std::size_t end = at + key.size();
    const bool after_ok = end >= lower_text.size() || !IdentifierChar(lower_text[end]);
    if (before_ok && after_ok) return at;
  }
  return std::string_view::npos;
}

/// A key entry against a name: the name itself, one of its dotted or colon
/// parts (`scripts` in `tool.pdm.scripts`), a dotted prefix (`tool.poe` of
/// `tool.poe.tasks`), or a prefix when the entry ends in punctuation (`-`).
bool NameMatches(std::string_view entry, std::string_view name) {
  if (entry.empty() || name.empty()) return false;
  if (name == entry) return true;
  if (!IdentifierChar(entry.back()) && entry.back() != '-') return false;
  if (entry.back() == '-') return name.starts_with(entry);
  if (name.starts_with(entry) && name.size() > entry.size() && name[entry.size()] == '.') {
    return true;
  }
  std::size_t from = 0;
  while (from <= name.size()) {
    std::size_t end = name.find_first_of(".:", from);
    if (end == std::string_view::npos) end = name.size();
    if (name.substr(from, end - from) == entry) return true;
    from = end + 1;
  }
  return false;
}

/// The text after the edits, or nullopt when one cannot be applied (its old
/// text is not in the file, or the file is absent and the edit does not create it).
std::optional<std::string> Apply(std::string text, const std::vector<TextEdit>& edits) {
  for (const TextEdit& edit : edits) {
    if (edit.old_text.empty()) {
      if (!text.empty()) return std::nullopt;
      text = edit.new_text;  // Edit with an empty old_string creates the file
      continue;
    }
    std::size_t at = text.find(edit.old_text);
    if (at == std::string::npos) return std::nullopt;
    do {
      text.replace(at, edit.old_text.size(), edit.new_text);
      at = edit.replace_all ? text.find(edit.old_text, at + edit.new_text.size())
                            : std::string::npos;
    } while (at != std::string::npos);
  }
  return text;
}

bool Listed(const ContentJudge& judge, std::string_view lower_name) {
  return std::any_of(judge.keys.begin(), judge.keys.end(),
                     [&](const std::string& key) { return key == lower_name; });
}

// ---- JSON manifests --------------------------------------------------------

nlohmann::json ParseObject(std::string_view text) {
  auto parsed = nlohmann::json::parse(text, nullptr, false, /*ignore_comments=*/true);
  return parsed.is_object() ? parsed : nlohmann::json();
}

std::string ShowValue(const nlohmann::json& value) {
  return Clip(value.is_string() ? value.get<std::string>() : value.dump());
}

std::string ScriptsChange(const nlohmann::json& before, const nlohmann::json& after) {
  for (const auto& [name, body] : after.items()) {
    const auto old = before.find(name);
    if (old == before.end()) return "adds a '" + Clip(name, 40) + "' script: " + ShowValue(body);
    if (*old != body) return "changes the '" + Clip(name, 40) + "' script to " + ShowValue(body);
  }
  for (const auto& [name, body] : before.items()) {
    if (!after.contains(name)) return "removes the '" + Clip(name, 40) + "' script";
  }
  return {};
}

std::string JsonChange(const ContentJudge& judge, std::string_view before, std::string_view after) {
  nlohmann::json old = before.empty() ? nlohmann::json::object() : ParseObject(before);
  if (old.is_null()) old = nlohmann::json::object();  // unreadable before: all of it is new
  const nlohmann::json now = ParseObject(after);
  if (now.is_null()) return "its new text is not a JSON object togmal can read";
  static const nlohmann::json kAbsent;
  for (const auto& [key, value] : now.items()) {
    if (!Listed(judge, util::AsciiLower(key))) continue;
    const auto found = old.find(key);
    const nlohmann::json& was = found == old.end() ? kAbsent : *found;
    if (was == value) continue;
    if (key == "scripts" && value.is_object()) {
      const std::string change =
          ScriptsChange(was.is_object() ? was : nlohmann::json::object(), value);
      if (!change.empty()) return change;
    }
    return (found == old.end() ? "adds '" : "changes '") + Clip(key, 40) + "'";
  }
  for (const auto& [key, value] : old.items()) {
    if (Listed(judge, util::AsciiLower(key)) && !now.contains(key)) {
      return "removes '" + Clip(key, 40) + "'";
    }
  }
  return {};
}

/// A dependency's version range (`^1.2.0`, `>=2 <3`, `1.x || 2`, `latest`,
/// `workspace:*`, `npm:other@^1`): never a command line.
bool VersionLike(std::string_view value) {
  value = Trim(value);
  if (value.empty() || value == "*" || value == "latest" || value == "next") return true;
  for (std::string_view prefix : {"workspace:", "npm:", "catalog:"}) {
    if (value.starts_with(prefix)) {
      return std::all_of(value.begin(), value.end(), [](char c) {
        return IdentifierChar(c) ||
               std::string_view("@/._^~<>=*+-:").find(c) != std::string_view::npos;
      });
    }
  }
  std::size_t from = 0;
  while (from < value.size()) {
    std::size_t end = value.find(' ', from);
    if (end == std::string_view::npos) end = value.size();
    std::string_view token = value.substr(from, end - from);
    from = end + 1;
    if (token.empty() || token == "||" || token == "-") continue;
    while (!token.empty() &&
           std::string_view("^~<>=v").find(token.front()) != std::string_view::npos) {
      token.remove_prefix(1);
    }
    if (token == "*" || token == "x" || token == "X") continue;
    if (token.empty() || std::isdigit(static_cast<unsigned char>(token.front())) == 0) return false;
    for (char c : token) {
      if (!IdentifierChar(c) && c != '.' && c != '+' && c != '-') return false;
    }
  }
  return true;
}

/// A JSON string token starting at `at` (a '"'); returns the index after it.
std::size_t SkipString(std::string_view text, std::size_t at, std::string* value) {
  for (std::size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\') {
      if (value != nullptr && i + 1 < text.size()) value->push_back(text[i + 1]);
      ++i;
    } else if (text[i] == '"') {
      return i + 1;
    } else if (value != nullptr) {
      value->push_back(text[i]);
    }
  }
  return std::string_view::npos;
}

/// An Edit of a manifest togmal cannot read: every `"key": value` pair the
/// new text changes must be an unlisted key with a version or a non-string
/// value, and nothing else may be left over.
std::string JsonFragmentChange(const ContentJudge& judge, const TextEdit& edit) {
  if (edit.new_text == edit.old_text) return {};
  const std::string_view text = edit.new_text;
  std::string leftover;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '"') {
      leftover.push_back(text[i]);
      ++i;
      continue;
    }
    const std::size_t start = i;
    std::string key;
    std::size_t after = SkipString(text, i, &key);
    if (after == std::string_view::npos) return "changes part of a string togmal cannot place";
    std::size_t colon = after;
    while (colon < text.size() && std::isspace(static_cast<unsigned char>(text[colon]))) ++colon;
    if (colon >= text.size() || text[colon] != ':') {
      leftover.append(text.substr(start, after - start));  // a value alone (in an array)
      i = after;
      continue;
    }
    std::size_t value_at = colon + 1;
    while (value_at < text.size() && std::isspace(static_cast<unsigned char>(text[value_at]))) {
      ++value_at;
    }
    std::string value;
    bool is_string = false;
    std::size_t end = value_at;
    if (value_at < text.size() && text[value_at] == '"') {
      is_string = true;
      end = SkipString(text, value_at, &value);
      if (end == std::string_view::npos) return "changes part of a string togmal cannot place";
    } else if (value_at < text.size() && (text[value_at] == '{' || text[value_at] == '[')) {
      end = value_at + 1;  // an object or array: its own pairs are read next
      value = text.substr(value_at, 1);
    } else {
      while (end < text.size() &&
             std::string_view(",}]\n").find(text[end]) == std::string_view::npos) {
        ++end;
      }
      value = std::string(Trim(text.substr(value_at, end - value_at)));
    }
    i = end;
    const std::string_view pair = text.substr(start, end - start);
    if (edit.old_text.find(pair) != std::string::npos) continue;  // unchanged
    if (Listed(judge, util::AsciiLower(key))) return "adds or changes '" + Clip(key, 40) + "'";
    const bool literal =
        value == "true" || value == "false" || value == "null" || value == "{" || value == "[" ||
        (!value.empty() && value.find_first_not_of("0123456789.eE+-") == std::string::npos);
    if (!is_string && !literal) return "sets '" + Clip(key, 40) + "' to text that is not JSON";
    if (is_string && !VersionLike(value)) {
      return "sets '" + Clip(key, 40) + "' to '" + Clip(value, 40) +
             "', not a version (the file cannot be read to see where the edit lands)";
    }
  }
  for (char c : leftover) {
    if (std::string_view(" \t\r\n,{}[]:").find(c) == std::string_view::npos) {
      return "changes text that is not a whole \"key\": value pair (the file cannot be read to "
             "see where the edit lands)";
    }
  }
  return {};
}

// ---- Line formats (code and keys) ------------------------------------------

struct OwnedLine {
  std::string owner;  ///< section and key the line belongs to (kKeys)
  std::string own;    ///< the key the line itself sets (kKeys)
  std::string text;
};

/// The first key of a line (`addopts` of `addopts = …`, `-e` of `-e ./x`), lower case.
std::string LeadingName(std::string_view trimmed) {
  while (!trimmed.empty() && (trimmed.front() == '"' || trimmed.front() == '\'')) {
    trimmed.remove_prefix(1);
  }
  std::size_t end = 0;
  while (end < trimmed.size() &&
         std::string_view(" \t=:[]{}()<>!~;,\"'").find(trimmed[end]) == std::string_view::npos) {
    ++end;
  }
  return util::AsciiLower(trimmed.substr(0, end));
}

/// How many brackets a line leaves open, outside quotes; toggles a `"""` string.
int OpenBrackets(std::string_view line, bool& in_triple) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line.substr(i, 3) == "\"\"\"" || line.substr(i, 3) == "'''") {
      in_triple = !in_triple;
      i += 2;
      continue;
    }
    if (in_triple) continue;
    const char c = line[i];
    if (quote != 0) {
      if (c == '\\')
        ++i;
      else if (c == quote)
        quote = 0;
      continue;
    }
    if (c == '"' || c == '\'')
      quote = c;
    else if (c == '#')
      break;
    else if (c == '[' || c == '{' || c == '(')
      ++depth;
    else if (c == ']' || c == '}' || c == ')')
      --depth;
  }
  return depth;
}

std::vector<OwnedLine> KeyLines(std::string_view text) {
  std::vector<OwnedLine> out;
  std::string section, key, open_owner;
  int depth = 0;
  bool in_triple = false;
  bool continued = false;  // the line before ended in `\`
  for (std::string_view line : SplitLines(text)) {
    const std::string_view trimmed = Trim(line);
    if (continued) {
      // `requests==2.31 \` then `    --hash=sha256:…`: the same entry.
      continued = !trimmed.empty() && trimmed.back() == '\\';
      if (!trimmed.empty()) out.push_back({open_owner, {}, std::string(line)});
      continue;
    }
    continued = !trimmed.empty() && trimmed.back() == '\\';
    if (depth > 0 || in_triple) {
      if (!trimmed.empty()) out.push_back({open_owner, LeadingName(trimmed), std::string(line)});
      depth = std::max(0, depth + OpenBrackets(line, in_triple));
      continue;
    }
    if (trimmed.empty() || trimmed.front() == '#' || trimmed.front() == ';') continue;
    const bool indented = line.front() == ' ' || line.front() == '\t';
    std::string own;
    if (trimmed.front() == '[') {
      std::string_view name = trimmed;
      while (!name.empty() && name.front() == '[') name.remove_prefix(1);
      name = Trim(name.substr(0, std::min(name.find(']'), name.size())));
      section = util::AsciiLower(name);
      key.clear();
      own = section;
    } else {
      own = LeadingName(trimmed);
      if (!indented) key = own;
    }
    const std::string owner = section + "\x1f" + key;
    out.push_back({owner, own, std::string(line)});
    if (continued) open_owner = owner;
    if (trimmed.front() != '[') {
      depth = std::max(0, OpenBrackets(line, in_triple));
      // What follows until the brackets close belongs to the key that opened them.
      open_owner =
          section + "\x1f" + (indented && line.find('=') == std::string_view::npos ? key : own);
    }
  }
  return out;
}

std::vector<OwnedLine> CodeLines(std::string_view text) {
  std::vector<OwnedLine> out;
  for (std::string_view line : SplitLines(text)) {
    const std::string_view trimmed = Trim(line);
    if (trimmed.empty() || trimmed.starts_with("//")) continue;
    // A one-line block comment (`/** @type {import('vite').UserConfig} */`).
    if (trimmed.starts_with("/*") && trimmed.ends_with("*/") &&
        trimmed.find("*/") == trimmed.size() - 2) {
      continue;
    }
    out.push_back({{}, {}, std::string(line)});
  }
  return out;
}

/// Lines of `after` not in `before` (added) and of `before` not in `after`
/// (removed), each with its owner: a line moved under another key is new there.
std::pair<std::vector<OwnedLine>, std::vector<OwnedLine>> Changed(std::vector<OwnedLine> before,
                                                                  std::vector<OwnedLine> after) {
  std::map<std::pair<std::string, std::string>, int> count;
  for (const OwnedLine& line : before) ++count[{line.owner, line.text}];
  std::vector<OwnedLine> added, removed;
  for (OwnedLine& line : after) {
    int& n = count[{line.owner, line.text}];
    if (n > 0) {
      --n;
    } else {
      added.push_back(std::move(line));
    }
  }
  for (OwnedLine& line : before) {
    int& n = count[{line.owner, line.text}];
    if (n > 0) {
      --n;
      removed.push_back(std::move(line));
    }
  }
  return {std::move(added), std::move(removed)};
}

/// The module a line imports or requires, if it names one in quotes after `at`.
std::string ModuleAfter(std::string_view line, std::size_t at) {
  const std::size_t quote = line.find_first_of("'\"`", at);
  if (quote == std::string_view::npos) return {};
  const std::size_t end = line.find(line[quote], quote + 1);
  if (end == std::string_view::npos) return {};
  return std::string(line.substr(quote + 1, end - quote - 1));
}

std::string CodeFinding(const ContentJudge& judge, const OwnedLine& line, bool removed) {
  const std::string lower = util::AsciiLower(line.text);
  for (const std::string& key : judge.keys) {
    const std::size_t at = FindKey(lower, key);
    if (at == std::string::npos) continue;
    std::string what;
    if (key == "import" || key == "require" || key == "from") {
      const std::string module = ModuleAfter(line.text, at + key.size());
      what = module.empty()
                 ? "uses '" + key + "'"
                 : (key == "require" ? "requires '" : "imports '") + Clip(module, 40) + "'";
    } else if (key == "(") {
      what = "calls a function";
    } else if (key == "=>" || key == "function") {
      what = "defines a function";
    } else if (key == "`") {
      what = "uses a template string";
    } else {
      what = "uses '" + key + "'";
    }
    return (removed ? "removes code that " + what : what) + " (`" + Clip(line.text) + "`)";
  }
  return {};
}

/// The keys of an inline table on a line (`serde = { git = "…", features = […] }`
/// holds git and features), lower case.
std::vector<std::string> InlineKeys(std::string_view text) {
  std::vector<std::string> keys;
  bool in_table = false;  // past a `{` outside quotes
  bool expect_key = false;
  char quote = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{' || (in_table && c == ',')) {
      in_table = true;
      expect_key = true;
    } else if (expect_key && IdentifierChar(c)) {
      std::size_t end = i;
      while (end < text.size() && (IdentifierChar(text[end]) || text[end] == '-')) ++end;
      keys.push_back(util::AsciiLower(text.substr(i, end - i)));
      expect_key = false;
      i = end - 1;
    } else if (c != ' ' && c != '\t') {
      expect_key = false;
    }
  }
  return keys;
}

std::string KeyFinding(const ContentJudge& judge, const OwnedLine& line, bool removed) {
  const std::size_t split = line.owner.find('\x1f');
  const std::string_view section = std::string_view(line.owner).substr(0, split);
  const std::string_view key = split == std::string::npos
                                   ? std::string_view()
                                   : std::string_view(line.owner).substr(split + 1);
  for (const std::string& entry : judge.keys) {
    std::string what;
    if (NameMatches(entry, line.own) && line.own != section) {
      what = "sets '" + Clip(line.own, 40) + "'";
    } else if (NameMatches(entry, key)) {
      what = "changes '" + Clip(key, 40) + "'";
    } else if (NameMatches(entry, section) ||
               (line.own == section && NameMatches(entry, line.own))) {
      what = "changes the [" + Clip(section, 40) + "] section";
    } else if (const std::vector<std::string> inline_keys = InlineKeys(line.text);
               std::any_of(inline_keys.begin(), inline_keys.end(),
                           [&entry](const std::string& name) { return name == entry; })) {
      what = "sets '" + Clip(entry, 40) + "' for '" + Clip(line.own, 40) + "'";
    } else {
      continue;
    }
    return (removed ? "removes a line that " + what : what) + " (`" + Clip(line.text) + "`)";
  }
  return {};
}

/// Every line, trimmed: a directive is found by how its line starts.
std::vector<OwnedLine> TrimmedLines(std::string_view text) {
  std::vector<OwnedLine> out;
  for (std::string_view line : SplitLines(text)) {
    if (const std::string_view trimmed = Trim(line); !trimmed.empty()) {
      out.push_back({{}, {}, std::string(trimmed)});
    }
  }
  return out;
}

/// An added line that starts with a directive key (`//go:generate`).
std::string DirectivesChange(const ContentJudge& judge, std::string_view before,
                             std::string_view after) {
  for (const OwnedLine& line : Changed(TrimmedLines(before), TrimmedLines(after)).first) {
    const std::string lower = util::AsciiLower(line.text);
    for (const std::string& key : judge.keys) {
      if (lower.starts_with(key)) {
        return "adds a directive that a tool runs as a command (`" + Clip(line.text) + "`)";
      }
    }
  }
  return {};
}

std::string LinesChange(const ContentJudge& judge, std::string_view before,
                        std::string_view after) {
  if (judge.format == ContentFormat::kDirectives) return DirectivesChange(judge, before, after);
  const bool keys = judge.format == ContentFormat::kKeys;
  auto [added, removed] = keys ? Changed(KeyLines(before), KeyLines(after))
                               : Changed(CodeLines(before), CodeLines(after));
  for (const OwnedLine& line : added) {
    std::string found = keys ? KeyFinding(judge, line, false) : CodeFinding(judge, line, false);
    if (!found.empty()) return found;
  }
  for (const OwnedLine& line : removed) {
    std::string found = keys ? KeyFinding(judge, line, true) : CodeFinding(judge, line, true);
    if (!found.empty()) return found;
  }
  return {};
}

/// Keys fragments: a changed line whose key is not in the fragment cannot be placed.
std::string KeyFragmentChange(const ContentJudge& judge, const TextEdit& edit) {
  std::string found = LinesChange(judge, edit.old_text, edit.new_text);
  if (!found.empty()) return found;
  const auto [added, removed] = Changed(KeyLines(edit.old_text), KeyLines(edit.new_text));
  for (const std::vector<OwnedLine>* lines : {&added, &removed}) {
    for (const OwnedLine& line : *lines) {
      if (line.owner == "\x1f" + line.own) continue;  // the line names its own key
      return "changes a line whose key is not in the edit (`" + Clip(line.text) +
             "`; the file cannot be read to see where it lands)";
    }
  }
  return {};
}

}  // namespace

std::string FindCode(const ContentJudge& judge, const std::optional<std::string>& before,
                     const WriteContent& content) {
  if (judge.format == ContentFormat::kCommands) return "sets commands the tool runs";
  const std::string base = before.value_or(std::string());
  std::optional<std::string> after = content.whole;
  if (!after) after = Apply(base, content.edits);
  if (after) {
    return judge.format == ContentFormat::kJson ? JsonChange(judge, base, *after)
                                                : LinesChange(judge, base, *after);
  }
  for (const TextEdit& edit : content.edits) {
    std::string found = judge.format == ContentFormat::kJson ? JsonFragmentChange(judge, edit)
                        : judge.format == ContentFormat::kKeys
                            ? KeyFragmentChange(judge, edit)
                            : LinesChange(judge, edit.old_text, edit.new_text);
    if (!found.empty()) return found;
  }
  return {};
}

}  // namespace togmal::policy
