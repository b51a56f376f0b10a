#include "togmal/policy/classifier.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tables.h"
#include "togmal/util/config_file.h"
#include "togmal/util/glob.h"
#include "togmal/util/paths.h"

namespace togmal::policy {
namespace {

/// Code strings inside code strings (`bash -c "bash -c '…'"`) are followed
/// this deep; deeper is itself a finding.
constexpr int kMaxCodeDepth = 6;

/// `sudo nice timeout 5 …`: wrappers inside wrappers are followed this deep.
constexpr int kMaxWrapped = 32;

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Join(const std::vector<Word>& words, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to && i < words.size(); ++i) {
    if (!out.empty()) out.push_back(' ');
    out += words[i].text;
  }
  return out;
}

/// A short text for a reason: long segments are cut.
std::string Shorten(std::string_view text, std::size_t limit = 160) {
  std::string out(text.substr(0, limit));
  for (char& c : out) {
    if (c == '\n' || c == '\t') c = ' ';
  }
  if (text.size() > limit) out += "…";
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

bool IsOptionWord(std::string_view word) { return word.size() > 1 && word.front() == '-'; }

bool Contains(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

/// The words of one command from `from` on, split into options and
/// positional arguments, knowing which options take a value.
struct ArgView {
  std::vector<std::string_view> options;  // as written, `--x=y` included
  std::vector<std::string_view> positionals;
  std::vector<std::string_view> all;  // every word
  bool double_dash = false;
};

ArgView ViewArgs(const std::vector<Word>& words, std::size_t from,
                 const std::vector<std::string>& options_with_value) {
  ArgView view;
  bool only_positionals = false;
  for (std::size_t i = from; i < words.size(); ++i) {
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
      if (Contains(options_with_value, text) && i + 1 < words.size()) {
        ++i;
        view.all.push_back(words[i].text);
      }
      continue;
    }
    view.positionals.push_back(text);
  }
  return view;
}

bool FlagMatches(std::string_view flag, std::string_view option) {
  if (option == flag) return true;
  if (flag.size() > 2 && flag.substr(0, 2) == "--") {
    return option.size() > flag.size() && option.substr(0, flag.size()) == flag &&
           option[flag.size()] == '=';
  }
  if (flag.size() == 2 && flag[0] == '-' && flag[1] != '-') {
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
    for (const std::string& flag : flags) {
      if (FlagMatches(flag, option)) return true;
    }
  }
  return false;
}

bool ArgMatches(const std::vector<std::string>& patterns, std::string_view arg) {
  const std::string normalized = NormalizePath(arg);
  for (const std::string& pattern : patterns) {
    if (pattern == arg || util::GlobMatches(pattern, arg) || util::GlobMatches(pattern, normalized))
      return true;
  }
  return false;
}

bool RuleMatches(const ArgRule& rule, const ArgView& view) {
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
    }
  }
  if (!rule.any_word.empty()) {
    bool found = false;
    for (std::string_view word : view.all) found = found || ArgMatches(rule.any_word, word);
    if (!found) return false;
  }
  if (rule.no_args && *rule.no_args != view.positionals.empty()) return false;
  return true;
}

const CommandNode* FindChild(const CommandNode& node, std::string_view name) {
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

/// Where a command's stdin comes from, when that matters (shells, SQL).
struct Stdin {
  enum class Kind { kNone, kText, kPipe } kind = Kind::kNone;
  std::string text;      // heredoc / here-string body, or what an echo in the pipe prints
  bool known = false;    // text is what the command will read
  std::string producer;  // for a pipe: the command feeding it
};

/// Walks a command line, collecting findings and executed segments.
class Walker {
 public:
  Walker(const Tables& tables, std::string_view cwd, std::vector<Finding>* findings,
         std::vector<ExecutedSegment>* segments)
      : tables_(tables), cwd_(cwd), findings_(findings), segments_(segments) {}

  void Line(std::string_view text, SegmentOrigin origin, int code_depth);

  void Add(Level level, std::string why, std::string_view segment) {
    if (findings_ != nullptr) findings_->push_back({level, std::move(why), Shorten(segment)});
  }

  /// Checks a path a command or tool reads or names.
  void CheckReadPath(std::string_view path, Level base, std::string_view segment);
  /// Checks a path written to; `inside_level` applies inside the project.
  void CheckWritePath(std::string_view path, Level inside_level, Level outside_level,
                      std::string_view segment, std::string_view what);
  bool InsideProject(std::string_view path) const;

 private:
  void Simple(const LexResult& lex, std::size_t index, SegmentOrigin origin, int code_depth);
  void Words(const std::vector<Word>& words, std::size_t start, const Stdin& stdin_source,
             std::string_view segment, SegmentOrigin origin, int code_depth);
  void Code(const CommandNode& node, Level level, const std::vector<Word>& words, std::size_t index,
            const Stdin& stdin_source, std::string_view segment, std::string_view name,
            int code_depth);
  void Wrapper(const CommandNode& node, Level level, const std::string& why,
               const std::vector<Word>& words, std::size_t index, const Stdin& stdin_source,
               std::string_view segment, int code_depth);
  Level ScanText(const CommandNode& node, std::string_view code, std::string* why) const;
  void CheckAssignment(std::string_view assignment, std::string_view segment);

  const Tables& tables_;
  std::string_view cwd_;
  std::vector<Finding>* findings_;
  std::vector<ExecutedSegment>* segments_;
  int wrapped_ = 0;  // wrappers inside wrappers (`nice nice … ls`), bounded
};

void Walker::Line(std::string_view text, SegmentOrigin origin, int code_depth) {
  if (code_depth > kMaxCodeDepth) {
    Add(tables_.settings.too_deep, "Code strings are nested too deeply to analyse.", text);
    return;
  }
  const LexResult lex = Lex(text);
  if (lex.too_deep) {
    Add(tables_.settings.too_deep, "The command nests too deeply to analyse.", text);
  }
  for (const std::string& problem : lex.problems) {
    Add(tables_.settings.unparsed_minimum,
        "The command could not be parsed completely (" + problem + ").", text);
  }
  for (std::size_t i = 0; i < lex.commands.size(); ++i) Simple(lex, i, origin, code_depth);
}

void Walker::CheckAssignment(std::string_view assignment, std::string_view segment) {
  std::size_t end = assignment.find('=');
  if (end == std::string_view::npos) return;
  std::string_view name = assignment.substr(0, end);
  if (!name.empty() && name.back() == '+') name.remove_suffix(1);
  const auto found = tables_.assignments.find(std::string(name));
  if (found == tables_.assignments.end()) return;
  std::string why = found->second.why.empty()
                        ? "Setting " + std::string(name) + " " +
                              std::string(GenericPhrase(found->second.level)) + "."
                        : found->second.why;
  Add(found->second.level, std::move(why), segment);
}

void Walker::Simple(const LexResult& lex, std::size_t index, SegmentOrigin origin, int code_depth) {
  const SimpleCommand& command = lex.commands[index];
  const std::string& segment = command.text;
  if (segments_ != nullptr && (!command.words.empty() || !command.assignments.empty())) {
    segments_->push_back({command.text, command.Argv(), origin, command.depth + code_depth});
  }
  if (!command.function_name.empty()) {
    Add(Level::kL2, "Defines the shell function '" + command.function_name + "'.", segment);
    // A body that calls the function itself (`:(){ :|:& };:`) is a fork bomb.
    for (std::size_t j = index + 1; j < lex.commands.size(); ++j) {
      int ancestor = lex.commands[j].parent;
      while (ancestor >= 0 && static_cast<std::size_t>(ancestor) != index) {
        ancestor = lex.commands[static_cast<std::size_t>(ancestor)].parent;
      }
      if (ancestor < 0) continue;
      const auto& words = lex.commands[j].words;
      if (!words.empty() && words.front().text == command.function_name) {
        Add(Level::kL3,
            "The function '" + command.function_name +
                "' calls itself: a fork bomb or runaway recursion.",
            segment);
        break;
      }
    }
  }
  for (const std::string& assignment : command.assignments) CheckAssignment(assignment, segment);
  Stdin stdin_source;
  for (const Redirection& redirection : command.redirections) {
    if (redirection.WritesFile()) {
      CheckWritePath(redirection.target.text, Level::kL1, Level::kL2, segment,
                     "Redirects output to");
    } else if (redirection.ReadsFile()) {
      CheckReadPath(redirection.target.text, Level::kL0, segment);
    }
    if (redirection.op == "<<" || redirection.op == "<<-") {
      stdin_source = {Stdin::Kind::kText, redirection.heredoc_body, true, {}};
    } else if (redirection.op == "<<<") {
      stdin_source = {Stdin::Kind::kText, redirection.target.text + "\n", true, {}};
    }
  }
  if (command.pipe_from >= 0 && stdin_source.kind == Stdin::Kind::kNone) {
    const SimpleCommand& producer = lex.commands[static_cast<std::size_t>(command.pipe_from)];
    stdin_source.kind = Stdin::Kind::kPipe;
    stdin_source.producer = producer.text;
    if (!producer.words.empty()) {
      const std::string name = Lower(producer.words.front().text);
      if (name == "echo" || name == "printf") {
        std::size_t from = 1;
        while (from < producer.words.size() && IsOptionWord(producer.words[from].text)) ++from;
        stdin_source.text = Join(producer.words, from, producer.words.size());
        stdin_source.known = true;
      } else if (name == "cat" && producer.words.size() == 1) {
        for (const Redirection& redirection : producer.redirections) {
          if (redirection.FeedsText()) {
            stdin_source.text =
                redirection.op == "<<<" ? redirection.target.text : redirection.heredoc_body;
            stdin_source.known = true;
          }
        }
      }
    }
  }
  if (command.words.empty()) {
    if (!command.assignments.empty() || !command.redirections.empty()) {
      Add(Level::kL0, "Only sets shell variables or opens files.", segment);
    }
  } else {
    Words(command.words, 0, stdin_source, segment, origin, code_depth);
  }
  // After the command's own finding, so that it is the one shown when both
  // are at the same level.
  for (std::size_t j = index + 1; j < lex.commands.size(); ++j) {
    const SimpleCommand& nested = lex.commands[j];
    if (nested.parent == static_cast<int>(index) && nested.nesting != Nesting::kFunctionBody) {
      Add(tables_.settings.substitution_minimum,
          "Its arguments come from a command substitution, known only at run time.", segment);
      break;
    }
  }
}

void Walker::Words(const std::vector<Word>& words, std::size_t start, const Stdin& stdin_source,
                   std::string_view segment, SegmentOrigin origin, int code_depth) {
  if (start >= words.size()) return;
  if (wrapped_ > kMaxWrapped) {
    Add(tables_.settings.too_deep, "Wrappers are nested too deeply to analyse.", segment);
    return;
  }
  const Word& first = words[start];
  if (first.expands || first.substitutes) {
    Add(tables_.settings.unknown_command,
        "The command to run ('" + Shorten(first.text, 60) + "') is known only at run time.",
        segment);
    return;
  }
  std::string name = first.text;
  if (const std::size_t slash = name.rfind('/');
      slash != std::string::npos && slash + 1 < name.size()) {
    name = name.substr(slash + 1);
  }
  name = Lower(name);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".exe") == 0) {
    name.resize(name.size() - 4);
  }
  const CommandNode* found = tables_.FindCommand(name);
  if (found == nullptr) {
    // python3.12, pip3.11 → python3, pip3
    const std::size_t dot = name.find_first_of(".-");
    if (dot != std::string::npos && dot > 0) found = tables_.FindCommand(name.substr(0, dot));
  }
  if (found == nullptr) {
    Add(tables_.settings.unknown_command,
        "'" + Shorten(first.text, 60) + "' is not a command the classifier knows.", segment);
    for (std::size_t i = start + 1; i < words.size(); ++i) {
      if (!IsOptionWord(words[i].text))
        CheckReadPath(words[i].text, tables_.settings.unknown_command, segment);
    }
    return;
  }
  // Walk down the subcommands: skip options (and their values), take the
  // first other word if it names a subcommand.
  struct Step {
    const CommandNode* node;
    std::size_t index;
  };
  std::vector<Step> path{{found, start}};
  std::size_t i = start + 1;
  while (i < words.size() && !path.back().node->subcommands.empty()) {
    const CommandNode& current = *path.back().node;
    const std::string_view text = words[i].text;
    if (text == "--") break;
    if (IsOptionWord(text)) {
      i += Contains(current.options_with_value, text) ? 2u : 1u;
      continue;
    }
    const CommandNode* child = FindChild(current, text);
    if (child == nullptr) break;
    path.push_back({child, i});
    ++i;
  }
  const Step& deepest = path.back();
  std::string label = Join(words, start, start + 1);
  for (std::size_t p = 1; p < path.size(); ++p) label += " " + words[path[p].index].text;
  Level level = deepest.node->level;
  std::string why = deepest.node->why;
  bool rule_matched = false;
  {
    const ArgView view = ViewArgs(words, deepest.index + 1, deepest.node->options_with_value);
    for (const ArgRule& rule : deepest.node->rules) {
      if (RuleMatches(rule, view)) {
        level = rule.level;
        why = rule.why;
        rule_matched = true;
        break;
      }
    }
  }
  for (std::size_t p = 0; p + 1 < path.size(); ++p) {
    const ArgView view = ViewArgs(words, path[p].index + 1, path[p].node->options_with_value);
    for (const ArgRule& rule : path[p].node->rules) {
      if (RuleMatches(rule, view)) {
        if (rule.level > level) {
          level = rule.level;
          why = rule.why;
          rule_matched = true;
        }
        break;
      }
    }
  }
  if (why.empty()) {
    why = "'" + label + "' " + std::string(GenericPhrase(level)) + ".";
  }
  // The entry that runs something: the deepest one with `runs`.
  const CommandNode* runner = nullptr;
  std::size_t runner_index = start;
  for (auto step = path.rbegin(); step != path.rend(); ++step) {
    if (step->node->runs != Runs::kNothing) {
      runner = step->node;
      runner_index = step->index;
      break;
    }
  }
  const CommandNode& node = *deepest.node;
  // Path findings go after the command's own finding (added below, on every
  // path out of this function), so that the command explains itself first.
  struct MoveToEnd {
    std::vector<Finding>* findings;
    std::size_t begin = 0, end = 0;
    ~MoveToEnd() {
      if (findings == nullptr || begin == end) return;
      std::rotate(findings->begin() + static_cast<std::ptrdiff_t>(begin),
                  findings->begin() + static_cast<std::ptrdiff_t>(end), findings->end());
    }
  } path_findings{findings_, findings_ != nullptr ? findings_->size() : 0, 0};
  // A wrapper's words are the wrapped command's, checked when that command is;
  // find's are checked up to its -exec. Each word is checked once: linear.
  const bool wrapper = runner != nullptr && runner->runs == Runs::kWrapper;
  if (!node.data_args && !wrapper) {
    const ArgView view = ViewArgs(words, deepest.index + 1, node.options_with_value);
    for (std::string_view word : view.all) {
      if (node.runs == Runs::kFind &&
          (word == "-exec" || word == "-execdir" || word == "-ok" || word == "-okdir")) {
        break;
      }
      if (word == "--" || (IsOptionWord(word) && word.find('=') == std::string_view::npos))
        continue;
      std::string_view path_word = word;
      if (const std::size_t eq = word.find('=');
          eq != std::string_view::npos && eq + 1 < word.size()) {
        if (IsOptionWord(word) || word.find('/') > eq) path_word = word.substr(eq + 1);
      }
      CheckReadPath(path_word, level, segment);
    }
  }
  // writes_args commands write only when their level says they change
  // something (sed is L0, sed -i L1).
  if ((node.writes_args && level >= Level::kL1) || node.writes_last_arg) {
    const ArgView view = ViewArgs(words, deepest.index + 1, node.options_with_value);
    for (std::size_t a = 0; a < view.positionals.size(); ++a) {
      if (node.writes_last_arg && (a + 1 != view.positionals.size() || a == 0)) continue;
      CheckWritePath(view.positionals[a], Level::kL1, Level::kL2, segment, "Writes");
    }
  }
  if (findings_ != nullptr) path_findings.end = findings_->size();
  if (name == "export" || name == "declare" || name == "typeset" || name == "local" ||
      name == "readonly") {
    for (std::size_t a = deepest.index + 1; a < words.size(); ++a) {
      CheckAssignment(words[a].text, segment);
    }
  }
  if (runner != nullptr &&
      !(rule_matched && runner->runs != Runs::kWrapper && runner->runs != Runs::kFind)) {
    if (runner->runs == Runs::kWrapper) {
      Wrapper(*runner, level, why, words, runner_index, stdin_source, segment, code_depth);
      return;
    }
    if (runner->runs == Runs::kFind) {
      Add(level, why, segment);
      const ArgView view = ViewArgs(words, runner_index + 1, {});
      for (std::size_t j = runner_index + 1; j < words.size(); ++j) {
        const std::string& text = words[j].text;
        if (text != "-exec" && text != "-execdir" && text != "-ok" && text != "-okdir") continue;
        std::vector<Word> inner;
        std::size_t k = j + 1;
        for (; k < words.size() && words[k].text != ";" && words[k].text != "+"; ++k) {
          inner.push_back(words[k]);
        }
        if (segments_ != nullptr && !inner.empty()) {
          segments_->push_back(
              {Join(inner, 0, inner.size()), {}, SegmentOrigin::kWrapped, code_depth + 1});
          for (const Word& word : inner) segments_->back().argv.push_back(word.text);
        }
        ++wrapped_;
        Words(inner, 0, {}, segment, SegmentOrigin::kWrapped, code_depth + 1);
        --wrapped_;
        j = k;
      }
      (void)view;
      return;
    }
    Code(*runner, level, words, runner_index, stdin_source, segment, label, code_depth);
    return;
  }
  (void)origin;
  Add(level, why, segment);
}

void Walker::Wrapper(const CommandNode& node, Level level, const std::string& why,
                     const std::vector<Word>& words, std::size_t index, const Stdin& stdin_source,
                     std::string_view segment, int code_depth) {
  std::size_t j = index + 1;
  int skip = node.skip_positionals;
  while (j < words.size()) {
    const std::string& text = words[j].text;
    if (text == "--") {
      ++j;
      break;
    }
    if (IsOptionWord(text)) {
      for (const std::string& query : node.query_options) {
        if (FlagMatches(query, text)) {
          Add(Level::kL0, "'" + words[index].text + " " + text + "' only looks a command up.",
              segment);
          return;
        }
      }
      if (Contains(node.code_options, text) && j + 1 < words.size()) {
        Add(level, why, segment);
        Line(words[j + 1].text, SegmentOrigin::kShellString, code_depth + 1);
        return;
      }
      j += Contains(node.options_with_value, text) ? 2u : 1u;
      continue;
    }
    if (!words[j].quoted && text.find('=') != std::string::npos &&
        std::isalpha(static_cast<unsigned char>(text[0]))) {
      CheckAssignment(text, segment);  // env NAME=value
      ++j;
      continue;
    }
    if (skip > 0) {
      --skip;
      ++j;
      continue;
    }
    break;
  }
  if (j >= words.size()) {
    Add(level, why.empty() ? "'" + words[index].text + "' alone runs nothing." : why, segment);
    return;
  }
  if (level > Level::kL0) Add(level, why, segment);
  if (segments_ != nullptr) {
    segments_->push_back({Join(words, j, words.size()), {}, SegmentOrigin::kWrapped, code_depth});
    for (std::size_t k = j; k < words.size(); ++k) segments_->back().argv.push_back(words[k].text);
  }
  ++wrapped_;
  Words(words, j, stdin_source, segment, SegmentOrigin::kWrapped, code_depth);
  --wrapped_;
}

Level Walker::ScanText(const CommandNode& node, std::string_view code, std::string* why) const {
  std::string text = Lower(code);
  // Collapse runs of blanks so that "drop   table" reads as "drop table".
  std::string collapsed;
  collapsed.reserve(text.size());
  for (char c : text) {
    const bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (blank && !collapsed.empty() && collapsed.back() == ' ') continue;
    collapsed.push_back(blank ? ' ' : c);
  }
  collapsed.push_back(' ');
  for (const TextRule& rule : node.code_rules) {
    bool hit = false;
    for (const std::string& needle : rule.contains) {
      if (collapsed.find(needle) != std::string::npos) {
        hit = true;
        break;
      }
    }
    for (const std::string& needle : rule.unless) {
      if (collapsed.find(needle) != std::string::npos) hit = false;
    }
    if (hit) {
      *why = rule.why;
      return rule.level;
    }
  }
  why->clear();
  return node.level;
}

void Walker::Code(const CommandNode& node, Level level, const std::vector<Word>& words,
                  std::size_t index, const Stdin& stdin_source, std::string_view segment,
                  std::string_view name, int code_depth) {
  const std::string quoted_name = "'" + std::string(name) + "'";
  if (node.runs == Runs::kEval) {
    Add(level, node.why.empty() ? quoted_name + " runs a string as a command." : node.why, segment);
    Line(Join(words, index + 1, words.size()), SegmentOrigin::kEval, code_depth + 1);
    return;
  }
  if (node.runs == Runs::kCommandString) {
    const ArgView view = ViewArgs(words, index + 1, node.options_with_value);
    std::string code;
    for (std::string_view arg : view.positionals) {
      if (!code.empty()) code.push_back(' ');
      code += arg;
    }
    Add(level, quoted_name + " runs the command it is given.", segment);
    if (!code.empty()) Line(code, SegmentOrigin::kShellString, code_depth + 1);
    return;
  }
  // Find the code: an option's value (-c CODE, --command=CODE), for shells
  // any short-option cluster with c (-lc, -ec) makes the first operand code.
  std::optional<std::string> code;
  std::optional<std::string> script;
  bool shell_c = false;
  bool reads_stdin_explicitly = false;
  for (std::size_t j = index + 1; j < words.size(); ++j) {
    const std::string& text = words[j].text;
    if (text == "--") {
      if (j + 1 < words.size() && !code) {
        (shell_c ? code : script) = words[j + 1].text;
      }
      break;
    }
    if (text == "-") {
      reads_stdin_explicitly = true;
      break;
    }
    if (IsOptionWord(text)) {
      bool is_code_option = false;
      for (const std::string& option : node.code_options) {
        if (text == option) {
          is_code_option = true;
          if (node.runs != Runs::kShell && j + 1 < words.size()) {
            code = words[j + 1].text;
            ++j;
          }
        } else if (option.size() > 2 && text.size() > option.size() &&
                   text.compare(0, option.size() + 1, option + "=") == 0) {
          is_code_option = true;
          code = text.substr(option.size() + 1);
        } else if (option.size() == 2 && node.runs != Runs::kShell && text.size() > 2 &&
                   text[1] != '-' && text.compare(0, 2, option) == 0) {
          is_code_option = true;  // -c"code" written together
          code = text.substr(2);
        }
      }
      if (node.runs == Runs::kShell && text[1] != '-' && text.find('c') != std::string::npos) {
        shell_c = true;
        is_code_option = true;
      }
      if (!is_code_option && Contains(node.options_with_value, text)) ++j;
      if (code && node.runs != Runs::kShell) break;
      continue;
    }
    if (shell_c) {
      code = text;
    } else {
      script = text;
    }
    break;
  }
  if (node.runs == Runs::kShell) {
    if (code) {
      Add(Max(level, Level::kL2), quoted_name + " runs a command string.", segment);
      Line(*code, SegmentOrigin::kShellString, code_depth + 1);
      return;
    }
    if (script && !reads_stdin_explicitly) {
      Add(level, quoted_name + " runs the script '" + Shorten(*script, 80) + "'.", segment);
      CheckReadPath(*script, level, segment);
      return;
    }
    if (stdin_source.kind == Stdin::Kind::kText) {
      Add(Max(level, Level::kL2), quoted_name + " runs the commands fed to it on stdin.", segment);
      Line(stdin_source.text, SegmentOrigin::kShellStdin, code_depth + 1);
      return;
    }
    if (stdin_source.kind == Stdin::Kind::kPipe) {
      Add(Level::kL3,
          "Piping into " + quoted_name + " runs whatever '" + Shorten(stdin_source.producer, 80) +
              "' prints.",
          segment);
      if (stdin_source.known) Line(stdin_source.text, SegmentOrigin::kShellStdin, code_depth + 1);
      return;
    }
    Add(Level::kL3, quoted_name + " is a bare shell interpreter: what it runs is not visible.",
        segment);
    return;
  }
  // Interpreters and SQL clients: code is scanned, not parsed.
  const bool sql = node.runs == Runs::kSql;
  auto scan = [&](std::string_view text, std::string_view where) {
    std::string reason;
    const Level scanned = ScanText(node, text, &reason);
    if (reason.empty()) {
      reason = quoted_name + (sql ? " runs statements " : " runs code ") + std::string(where) + ".";
    }
    Add(sql ? scanned : Max(scanned, level), reason, segment);
  };
  if (!code && sql && script) {
    // sqlite3 DB "SQL", redis-cli FLUSHALL: the operands are the statement.
    const ArgView view = ViewArgs(words, index + 1, node.options_with_value);
    std::string joined;
    for (std::string_view arg : view.positionals) {
      if (!joined.empty()) joined.push_back(' ');
      joined += arg;
    }
    code = joined;
  }
  if (code) {
    scan(*code, "given on its command line");
    return;
  }
  if (script && !reads_stdin_explicitly) {
    Add(level,
        quoted_name + (sql ? " runs statements on a database." : " runs the program '") +
            (sql ? "" : Shorten(*script, 80) + "'."),
        segment);
    CheckReadPath(*script, level, segment);
    return;
  }
  if (stdin_source.kind == Stdin::Kind::kText ||
      (stdin_source.kind == Stdin::Kind::kPipe && stdin_source.known)) {
    scan(stdin_source.text, "fed to it on stdin");
    return;
  }
  if (stdin_source.kind == Stdin::Kind::kPipe) {
    if (sql) {
      Add(level,
          quoted_name + " runs statements that '" + Shorten(stdin_source.producer, 80) +
              "' prints.",
          segment);
    } else {
      Add(Level::kL3,
          "Piping into " + quoted_name + " runs whatever '" + Shorten(stdin_source.producer, 80) +
              "' prints.",
          segment);
    }
    return;
  }
  if (sql) {
    Add(level, quoted_name + " opens a database session.", segment);
    return;
  }
  Add(Level::kL3, quoted_name + " is a bare interpreter: what it runs is not visible.", segment);
}

bool Walker::InsideProject(std::string_view path) const {
  if (path.empty()) return true;
  namespace fs = std::filesystem;
  std::string expanded(path);
  if (expanded.front() == '~') {
    const char* home = std::getenv("HOME");
    if (home == nullptr || (expanded.size() > 1 && expanded[1] != '/')) return false;
    expanded = std::string(home) + expanded.substr(1);
  }
  if (expanded.front() == '$') return false;
  fs::path candidate(expanded);
  if (candidate.is_absolute()) {
    if (cwd_.empty()) return false;
  } else {
    if (cwd_.empty()) {
      const fs::path normal = candidate.lexically_normal();
      return normal.empty() || *normal.begin() != "..";
    }
    candidate = fs::path(cwd_) / candidate;
  }
  const fs::path relative =
      candidate.lexically_normal().lexically_relative(fs::path(cwd_).lexically_normal());
  return !relative.empty() && *relative.begin() != "..";
}

void Walker::CheckReadPath(std::string_view path, Level base, std::string_view segment) {
  if (path.empty() || path.size() > 4096 || path.find_first_of(" \t\n") != std::string_view::npos) {
    return;  // text, not a path
  }
  const std::string normalized = NormalizePath(path);
  if (!PathListMatches(tables_.sensitive, normalized)) return;
  if (PathListMatches(tables_.not_sensitive, normalized)) return;
  Add(Max(Raise(base), tables_.settings.sensitive_minimum),
      "'" + Shorten(path, 80) + "' is a sensitive file (secrets, keys or credentials).", segment);
}

void Walker::CheckWritePath(std::string_view path, Level inside_level, Level outside_level,
                            std::string_view segment, std::string_view what) {
  if (path.empty() || path.size() > 4096) return;
  const std::string normalized = NormalizePath(path);
  const std::string shown = "'" + Shorten(path, 80) + "'";
  if (PathListMatches(tables_.scratch, normalized)) {
    if (normalized.rfind("/dev/", 0) != 0) {
      Add(inside_level, std::string(what) + " " + shown + ", a scratch location.", segment);
    }
    return;
  }
  Level level = inside_level;
  std::string why;
  if (PathListMatches(tables_.system, normalized)) {
    level = Level::kL3;
    why = std::string(what) + " " + shown + ", a system or shell start-up file.";
  } else if (!InsideProject(normalized)) {
    level = outside_level;
    why = std::string(what) + " " + shown + ", outside the project.";
  } else {
    why = std::string(what) + " " + shown + " inside the project.";
  }
  if (PathListMatches(tables_.config, normalized) && level < Level::kL2) {
    level = Level::kL2;
    why = std::string(what) + " " + shown +
          ", a file that controls how the project builds, runs or deploys.";
  }
  if (PathListMatches(tables_.sensitive, normalized) &&
      !PathListMatches(tables_.not_sensitive, normalized)) {
    level = Max(Raise(level), tables_.settings.sensitive_minimum);
    why = std::string(what) + " " + shown + ", a sensitive file (secrets, keys or credentials).";
  }
  Add(level, std::move(why), segment);
}

void Finish(Classification& result) {
  if (result.findings.empty()) {
    result.findings.push_back({Level::kL0, "There is nothing to run.", ""});
  }
  result.level = Level::kL0;
  for (const Finding& finding : result.findings) result.level = Max(result.level, finding.level);
  for (std::size_t i = 0; i < result.findings.size(); ++i) {
    if (result.findings[i].level == result.level) {
      result.deciding = i;
      break;
    }
  }
}

const ToolEntry* FindTool(const Tables& tables, std::string_view name) {
  for (const ToolEntry& tool : tables.tools) {
    if (tool.name == name) return &tool;
  }
  // The most specific (longest) pattern wins: mcp__github__* before mcp__*.
  const ToolEntry* best = nullptr;
  for (const ToolEntry& tool : tables.tools) {
    if (tool.name.find_first_of("*?") != std::string::npos && util::GlobMatches(tool.name, name) &&
        (best == nullptr || tool.name.size() > best->name.size())) {
      best = &tool;
    }
  }
  return best;
}

}  // namespace

Result<Classifier> Classifier::FromYaml(std::string_view yaml, std::string_view source,
                                        const Classifier* base) {
  auto tables =
      base != nullptr ? std::make_shared<Tables>(*base->tables_) : std::make_shared<Tables>();
  if (auto ok = ParseTables(yaml, source, *tables); !ok) return Fail(ok.error());
  return Classifier(std::move(tables));
}

Result<Classifier> Classifier::Compiled() {
  auto tables = std::make_shared<Tables>();
  TablesFromCompiled(kCompiledTables, *tables);
  tables->compiled_commands = std::make_shared<const LazyCommands>(kCompiledTables);
  return Classifier(std::move(tables));
}

Result<Classifier> Classifier::Load() {
  auto classifier = Compiled();
  if (!classifier) return classifier;
  const std::filesystem::path user_file = util::ConfigDir() / "classifier.yaml";
  auto text = util::ReadConfigFile(user_file);  // a FIFO or device must not hang us
  if (!text) return Fail(text.error());
  if (!*text) return classifier;
  return FromYaml(**text, user_file.string(), &*classifier);
}

const Classifier& Classifier::Default() {
  // Never destroyed: a hook process exits right after one call, and tearing
  // the tables down would cost more than the lookups that used them.
  static const Classifier* const instance = [] {
    auto loaded = Load();
    if (loaded) return new Classifier(std::move(*loaded));
    spdlog::error("{}; using the built-in classifier tables", loaded.error());
    auto fallback = Compiled();
    if (fallback) return new Classifier(std::move(*fallback));
    spdlog::error("{}", fallback.error());
    return new Classifier(std::make_shared<Tables>());
  }();
  return *instance;
}

Classification Classifier::ClassifyCommand(std::string_view command, std::string_view cwd) const {
  Classification result;
  Walker walker(*tables_, cwd, &result.findings, nullptr);
  walker.Line(command, SegmentOrigin::kCommandLine, 0);
  Finish(result);
  return result;
}

std::vector<ExecutedSegment> Classifier::ExecutedSegments(std::string_view command) const {
  std::vector<ExecutedSegment> segments;
  Walker walker(*tables_, {}, nullptr, &segments);
  walker.Line(command, SegmentOrigin::kCommandLine, 0);
  return segments;
}

Classification Classifier::Classify(const ToolCall& call) const {
  Classification result;
  Walker walker(*tables_, call.cwd, &result.findings, nullptr);
  const ToolEntry* tool = FindTool(*tables_, call.tool_name);
  if (tool == nullptr) {
    walker.Add(tables_->settings.unknown_tool,
               "'" + Shorten(call.tool_name, 80) + "' is not a tool the classifier knows.",
               call.tool_name);
    Finish(result);
    return result;
  }
  const nlohmann::json& input = call.tool_input;
  auto field = [&](const std::string& name) -> std::optional<std::string> {
    if (!input.is_object()) return std::nullopt;
    const auto found = input.find(name);
    if (found == input.end() || !found->is_string()) return std::nullopt;
    return found->get<std::string>();
  };
  const std::string why = tool->why.empty() ? "'" + call.tool_name + "' " +
                                                  std::string(GenericPhrase(tool->level)) + "."
                                            : tool->why;
  if (!tool->command.empty()) {
    const auto command = field(tool->command);
    if (!command) {
      walker.Add(Max(tool->level, Level::kL2),
                 "The " + call.tool_name + " call has no '" + tool->command + "' to check.",
                 call.tool_name);
    } else {
      walker.Line(*command, SegmentOrigin::kCommandLine, 0);
    }
    Finish(result);
    return result;
  }
  bool wrote = false;
  for (const std::string& name : tool->writes) {
    if (const auto path = field(name)) {
      walker.CheckWritePath(*path, tool->level,
                            tool->outside_project.value_or(Max(tool->level, Level::kL2)), *path,
                            call.tool_name == "Write" ? "Writes" : "Edits");
      wrote = true;
    }
  }
  if (!wrote) walker.Add(tool->level, why, call.tool_name);
  for (const std::string& name : tool->reads) {
    if (const auto path = field(name)) walker.CheckReadPath(*path, tool->level, *path);
  }
  Finish(result);
  return result;
}

nlohmann::json ToJson(const Classification& classification) {
  nlohmann::json reasons = nlohmann::json::array();
  for (const Finding& finding : classification.findings) {
    nlohmann::json reason = {{"level", LevelName(finding.level)}, {"why", finding.why}};
    if (!finding.segment.empty()) reason["segment"] = finding.segment;
    reasons.push_back(std::move(reason));
  }
  const Finding& deciding = classification.Deciding();
  nlohmann::json out = {{"level", LevelName(classification.level)},
                        {"why", deciding.why},
                        {"reasons", std::move(reasons)}};
  if (!deciding.segment.empty()) out["segment"] = deciding.segment;
  return out;
}

}  // namespace togmal::policy
