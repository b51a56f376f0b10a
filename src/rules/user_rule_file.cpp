#include "togmal/rules/user_rule_file.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include "togmal/rules/rule_loader.h"
#include "togmal/util/config_file.h"

namespace togmal::rules {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Lines(std::string_view text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    lines.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

// A top-level key. A list item written at column 0 (`rules:` then `- id: …`,
// which YAML allows) belongs to the key above it.
bool IsTopLevel(const std::string& line) {
  return !line.empty() && line[0] != ' ' && line[0] != '\t' && line[0] != '#' && line[0] != '-';
}

std::size_t Indent(const std::string& line) {
  const std::size_t first = line.find_first_not_of(' ');
  return first == std::string::npos ? line.size() : first;
}

bool IsListItem(const std::string& line) {
  const std::size_t at = Indent(line);
  return at < line.size() && line[at] == '-' && (at + 1 == line.size() || line[at + 1] == ' ');
}

// `item` is written for a list indented by two spaces; the user's list may be
// at another depth, and one list's items must all share theirs.
std::vector<std::string> Reindented(std::string_view item, std::size_t indent) {
  std::vector<std::string> lines = Lines(item);
  for (std::string& line : lines) {
    const std::size_t own = std::min<std::size_t>(Indent(line), 2);
    line = std::string(indent, ' ') + line.substr(own);
  }
  return lines;
}

// Writes through a temporary file and a rename, so a reader (the hook, the
// rules watcher) sees the old file or the new one, never half of one. A
// symbolic link (dotfiles kept elsewhere) is written through, not replaced,
// and an existing file keeps its permissions.
Result<void> Replace(const fs::path& file, const std::string& text) {
  std::error_code error;
  fs::path target = file;
  if (fs::is_symlink(fs::symlink_status(file, error))) {
    target = fs::canonical(file, error);
    if (error) return Fail("cannot follow " + file.string() + ": " + error.message());
  }
  error.clear();
  if (!target.parent_path().empty()) fs::create_directories(target.parent_path(), error);
  const fs::perms mode = fs::exists(target, error) ? fs::status(target, error).permissions()
                                                   : fs::perms::owner_read | fs::perms::owner_write;
  const fs::path temporary = target.string() + ".togmal-tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return Fail("cannot write " + temporary.string());
  }
  fs::permissions(temporary, mode, fs::perm_options::replace, error);
  fs::rename(temporary, target, error);
  if (error) return Fail("cannot replace " + target.string() + ": " + error.message());
  return {};
}

Result<std::string> ReadIfPresent(const fs::path& file) {
  auto text = util::ReadConfigFile(file);
  if (!text) return Fail(text.error());
  return text->value_or(std::string());
}

}  // namespace

Result<void> AppendUserRule(const fs::path& file, std::string_view marker, std::string_view item) {
  auto text = ReadIfPresent(file);
  if (!text) return Fail(text.error());
  std::vector<std::string> lines = Lines(*text);
  // The last top-level line must open the block list the item joins.
  const std::string* last_key = nullptr;
  std::size_t indent = 2;  // of the list's items: the user's, where there are some
  bool seen_item = false;
  for (const std::string& line : lines) {
    if (IsTopLevel(line)) {
      last_key = &line;
      seen_item = false;
      indent = 2;
    } else if (last_key != nullptr && !seen_item && IsListItem(line)) {
      seen_item = true;
      indent = Indent(line);
    }
  }
  if (last_key == nullptr) {
    lines.push_back("rules:");
  } else if (last_key->rfind("rules:", 0) != 0 ||
             last_key->find_first_not_of(' ', 6) != std::string::npos) {
    return Fail(file.string() +
                ": cannot add a rule safely: its last top-level key must be a block list "
                "`rules:` (move `rules:` to the end, or add the rule by hand)");
  }
  while (!lines.empty() && lines.back().find_first_not_of(' ') == std::string::npos) {
    lines.pop_back();
  }
  lines.push_back(std::string(indent, ' ') + "# " + std::string(marker));
  for (std::string& line : Reindented(item, indent)) lines.push_back(std::move(line));
  const std::string updated = Join(lines);
  if (auto parsed = ParseRuleFile(updated, file.string(), Layer::kUser, true); !parsed) {
    return Fail("the rule would not load, " + file.string() + " is unchanged: " + parsed.error());
  }
  return Replace(file, updated);
}

Result<bool> RemoveUserRule(const fs::path& file, std::string_view id) {
  auto text = ReadIfPresent(file);
  if (!text) return Fail(text.error());
  std::vector<std::string> lines = Lines(*text);
  const std::string opening = "- id: " + std::string(id);
  std::size_t begin = 0;
  while (begin < lines.size() && lines[begin].substr(Indent(lines[begin])) != opening) ++begin;
  if (begin == lines.size()) return false;
  const std::size_t indent = Indent(lines[begin]);
  std::size_t end = begin + 1;
  // The item's own lines are indented deeper than its dash.
  while (end < lines.size() && !lines[end].empty() && Indent(lines[end]) > indent) ++end;
  if (begin > 0 && lines[begin - 1].rfind(std::string(indent, ' ') + "# togmal allow ", 0) == 0) {
    --begin;
  }
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(begin),
              lines.begin() + static_cast<std::ptrdiff_t>(end));
  if (auto written = Replace(file, Join(lines)); !written) return Fail(written.error());
  return true;
}

}  // namespace togmal::rules
