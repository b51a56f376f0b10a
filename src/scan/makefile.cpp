// Makefiles: every recipe line (tab-indented, after a rule), with its
// continuation lines. Make removes the `@`, `-` and `+` prefixes and expands
// `$…` before the shell sees the line: `$$` becomes `$`, variables the file
// sets and make's built-ins are replaced by their values, `$(shell CMD)` is a
// command substitution, and what make alone knows (`$@`, functions, unknown
// variables) becomes a shell variable: a value known only when it runs.
#include <cctype>
#include <map>
#include <string>
#include <vector>

#include "command_split.h"
#include "togmal/scan/extractors.h"
#include "togmal/util/text.h"

namespace togmal::scan {
namespace {

bool IsTargetNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-';
}

std::string ShellName(std::string_view name) {
  std::string out = "make_";
  for (const char c : name) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return out;
}

using Variables = std::map<std::string, std::string, std::less<>>;

class Expander {
 public:
  Expander(const Variables& variables, const Catalogue& catalogue)
      : variables_(variables), catalogue_(catalogue) {}

  /// `text` as the shell sees it. Variables that refer to others many times
  /// over would grow exponentially: past kMaxExpansion bytes produced for one
  /// line, what is left stays unexpanded.
  std::string Expand(std::string_view text, int depth) const {
    if (depth == 0) produced_ = 0;
    std::string out;
    std::size_t i = 0;
    while (i < text.size()) {
      if (produced_ > kMaxExpansion) {
        out.append(text.substr(i));
        break;
      }
      const char c = text[i];
      if (c != '$' || i + 1 >= text.size()) {
        out.push_back(c);
        ++i;
        continue;
      }
      const char next = text[i + 1];
      if (next == '$') {
        out.push_back('$');
        i += 2;
      } else if (next == '(' || next == '{') {
        const char close = next == '(' ? ')' : '}';
        std::size_t end = i + 2;
        int open = 1;
        while (end < text.size() && open > 0) {
          if (text[end] == next) ++open;
          if (text[end] == close) --open;
          if (open > 0) ++end;
        }
        const std::string value = Reference(text.substr(i + 2, end - i - 2), depth);
        produced_ += value.size();
        out += value;
        i = end < text.size() ? end + 1 : end;
      } else {
        // `$@`, `$<`, `$X`: one character.
        out += Reference(text.substr(i + 1, 1), depth);
        i += 2;
      }
    }
    return out;
  }

 private:
  std::string Reference(std::string_view inside, int depth) const {
    if (inside.starts_with("shell ")) return "$(" + Expand(inside.substr(6), depth) + ")";
    const std::size_t space = inside.find_first_of(" \t");
    if (space != std::string_view::npos) return "$" + ShellName(inside.substr(0, space));
    static const std::map<char, std::string_view> kAutomatic = {{'@', "target"},
                                                                {'<', "first_prerequisite"},
                                                                {'^', "prerequisites"},
                                                                {'+', "prerequisites"},
                                                                {'*', "stem"},
                                                                {'?', "newer_prerequisites"},
                                                                {'|', "order_only_prerequisites"},
                                                                {'%', "archive_member"}};
    if (!inside.empty()) {
      if (auto it = kAutomatic.find(inside.front()); it != kAutomatic.end()) {
        return "$" + ShellName(it->second);
      }
    }
    if (depth < 8) {
      if (auto it = variables_.find(inside); it != variables_.end()) {
        return Expand(it->second, depth + 1);
      }
      if (auto it = catalogue_.make_builtins.find(std::string(inside));
          it != catalogue_.make_builtins.end()) {
        return it->second;
      }
    }
    return "$" + ShellName(inside);
  }

  static constexpr std::size_t kMaxExpansion = 64u << 10;

  const Variables& variables_;
  const Catalogue& catalogue_;
  mutable std::size_t produced_ = 0;
};

// `NAME = value` and its variants; false when `line` sets no variable.
bool ParseAssignment(std::string_view line, Variables& variables) {
  line = util::Trim(line);
  for (const std::string_view keyword : {"export ", "override ", "private "}) {
    if (line.starts_with(keyword)) line = util::Trim(line.substr(keyword.size()));
  }
  std::size_t at = 0;
  while (at < line.size() && IsTargetNameChar(line[at])) ++at;
  if (at == 0) return false;
  const std::string name(line.substr(0, at));
  std::string_view rest = util::Trim(line.substr(at));
  bool append = false;
  if (rest.starts_with("::=") || rest.starts_with(":::=")) {
    rest = rest.substr(rest.find('=') + 1);
  } else if (rest.starts_with(":=") || rest.starts_with("?=") || rest.starts_with("!=")) {
    rest = rest.substr(2);
  } else if (rest.starts_with("+=")) {
    rest = rest.substr(2);
    append = true;
  } else if (rest.starts_with('=')) {
    rest = rest.substr(1);
  } else {
    return false;
  }
  std::string value(util::Trim(rest));
  if (append && variables.contains(name)) {
    variables[name] += " " + value;
  } else if (!variables.contains(name) || !util::Trim(line.substr(at)).starts_with("?=")) {
    variables[name] = value;
  }
  return true;
}

bool IsDirective(std::string_view line) {
  line = util::Trim(line);
  for (const std::string_view word :
       {"ifeq", "ifneq", "ifdef", "ifndef", "else", "endif", "include", "-include", "sinclude",
        "vpath", "unexport", "undefine"}) {
    if (line == word ||
        (line.starts_with(word) && line.size() > word.size() &&
         (line[word.size()] == ' ' || line[word.size()] == '\t' || line[word.size()] == '('))) {
      return true;
    }
  }
  return false;
}

// The rule's targets and the recipe after `;`, if `line` is a rule.
bool ParseRule(std::string_view line, std::string& targets, std::string& inline_recipe,
               std::size_t& recipe_column) {
  // A colon that is not part of `:=`/`::=`, outside `$( )`.
  int parens = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '(' || c == '{') ++parens;
    if (c == ')' || c == '}') --parens;
    if (c == '=' && parens == 0) return false;
    if (c != ':' || parens != 0) continue;
    if (i + 1 < line.size() && line[i + 1] == '=') return false;
    targets = std::string(util::Trim(line.substr(0, i)));
    std::string_view rest = line.substr(i + 1);
    if (rest.starts_with(':')) rest.remove_prefix(1);
    if (const std::size_t semi = rest.find(';'); semi != std::string_view::npos) {
      inline_recipe = std::string(rest.substr(semi + 1));
      recipe_column = static_cast<std::size_t>(rest.data() - line.data()) + semi + 1;
    }
    return !targets.empty();
  }
  return false;
}

// Removes make's `@`, `-` and `+` prefixes (and blanks around them).
std::string_view StripPrefixes(std::string_view recipe) {
  for (;;) {
    const std::string_view trimmed = util::Trim(recipe);
    if (trimmed.empty() ||
        (trimmed.front() != '@' && trimmed.front() != '-' && trimmed.front() != '+')) {
      return trimmed.empty() ? trimmed : recipe.substr(recipe.find(trimmed.front()));
    }
    recipe = trimmed.substr(1);
  }
}

}  // namespace

Extraction ExtractMakefile(std::string_view text, const Catalogue& catalogue) {
  Extraction out;
  const std::vector<std::string_view> lines = Lines(text);
  Variables variables;
  // First pass: the variables the file sets (make reads the whole file before
  // running a recipe, so a variable set below a rule still applies).
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].starts_with('\t')) continue;
    std::string logical(lines[i]);
    while (util::Trim(logical).ends_with('\\') && i + 1 < lines.size()) {
      logical.resize(logical.rfind('\\'));
      logical += " ";
      logical += util::Trim(lines[++i]);
    }
    ParseAssignment(logical, variables);
  }
  const Expander expander(variables, catalogue);

  std::string targets;
  bool in_rule = false;
  bool in_define = false;
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string_view line = lines[i];
    const std::string_view trimmed = util::Trim(line);
    if (in_define) {
      in_define = trimmed != "endef";
      ++i;
      continue;
    }
    if (line.starts_with('\t') && in_rule) {
      // A recipe line and its continuations, each run by its own shell.
      ScriptSource source;
      source.line = static_cast<int>(i) + 1;
      source.origin = "Makefile target " + targets + " recipe";
      std::string shell;
      bool first = true;
      for (;;) {
        std::string_view part = lines[i];
        if (part.starts_with('\t')) part.remove_prefix(1);
        if (first) part = StripPrefixes(part);
        if (!first) {
          source.text.push_back('\n');
          shell.push_back('\n');
        }
        source.text += lines[i];
        shell += expander.Expand(part, 0);
        first = false;
        if (!util::Trim(lines[i]).ends_with('\\') || i + 1 >= lines.size()) break;
        ++i;
      }
      source.shell = std::move(shell);
      out.scripts.push_back(std::move(source));
      ++i;
      continue;
    }
    ++i;
    if (trimmed.empty() || trimmed.starts_with('#')) continue;
    if (trimmed.starts_with("define ") || trimmed == "define") {
      in_define = true;
      continue;
    }
    if (IsDirective(trimmed)) continue;
    std::string inline_recipe;
    std::size_t recipe_column = 0;
    std::string new_targets;
    if (!line.starts_with('\t') && ParseRule(line, new_targets, inline_recipe, recipe_column)) {
      in_rule = true;
      targets = new_targets;
      if (!util::Trim(inline_recipe).empty()) {
        ScriptSource source;
        source.line = static_cast<int>(i);
        const std::string_view recipe = StripPrefixes(inline_recipe);
        source.column =
            static_cast<int>(recipe_column +
                             static_cast<std::size_t>(recipe.data() - inline_recipe.data())) +
            1;
        source.text = std::string(recipe);
        source.shell = expander.Expand(source.text, 0);
        source.origin = "Makefile target " + targets + " recipe";
        out.scripts.push_back(std::move(source));
      }
      continue;
    }
    in_rule = false;
  }
  return out;
}

}  // namespace togmal::scan
