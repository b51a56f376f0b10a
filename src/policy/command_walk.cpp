// One command's words through the tables: the program's entry and the
// subcommands its words name, the argument rules, the options no list knows,
// the paths it names, and what its runner entry runs (a wrapped command,
// find's -exec, a code string). Walker::Words runs these steps in order.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "walker.h"

namespace togmal::policy {

namespace {

/// The program a word names: `/usr/bin/git` is git.
std::string ProgramName(const std::string& word) {
  if (const std::size_t slash = word.rfind('/');
      slash != std::string::npos && slash + 1 < word.size()) {
    return word.substr(slash + 1);
  }
  return word;
}

/// `git.exe` is git.
std::string WithoutExe(std::string name) {
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".exe") == 0) {
    name.resize(name.size() - 4);
  }
  return name;
}

/// A wrapper's code option written other than as a word of its own, as
/// getopt reads it: `--split-string=CODE`, `-SCODE`, a cluster of flags
/// ending in the option (`env -iS'CODE'` is `-i -S 'CODE'`, `env -iS CODE`
/// takes the next word). A letter that takes a value of its own ends the
/// cluster first (`env -uS…` unsets `S…`).
struct AttachedCode {
  bool found = false;
  bool in_next_word = false;
  std::string_view code;
};

AttachedCode FindAttachedCode(const CommandNode& node, std::string_view text) {
  if (node.code_options.empty()) return {};
  for (const std::string& option : node.code_options) {
    if (option.size() > 2 && option.starts_with("--") && text.size() > option.size() &&
        text.starts_with(option) && text[option.size()] == '=') {
      return {true, false, text.substr(option.size() + 1)};
    }
  }
  const ShortCluster cluster = ReadCluster(text, {&node.code_options, &node.options_with_value});
  if (!cluster.takes_value ||
      !util::NameIn(std::string{'-', cluster.letters.back()}, node.code_options)) {
    return {};
  }
  return {true, cluster.ValueInNextWord(), cluster.value};
}

bool IsFindExec(std::string_view word) {
  return word == "-exec" || word == "-execdir" || word == "-ok" || word == "-okdir";
}

/// Walks down the subcommands: skips options (and their values), takes the
/// first other word if it names a subcommand.
std::vector<PathStep> SubcommandPath(const CommandNode& program, const std::vector<Word>& words,
                                     std::size_t start) {
  std::vector<PathStep> path{{&program, start, program.single_dash_long}};
  std::size_t i = start + 1;
  while (i < words.size() && path.back().node->HasSubcommands()) {
    const CommandNode& current = *path.back().node;
    const std::string_view text = words[i].text;
    if (text == "--") break;
    if (IsOptionWord(text)) {
      i += util::NameIn(text, current.options_with_value) ? 2u : 1u;
      continue;
    }
    const CommandNode* child = FindChild(current, text);
    if (child == nullptr) break;
    path.push_back({child, i, path.back().single_dash_long || child->single_dash_long});
    ++i;
  }
  return path;
}

/// The commands an input-driven runner (xargs) runs, with its input's words:
/// one per word put where the -I placeholder is, else one with them appended
/// as operands. At most 64 words: enough to see what is named, bounded for a
/// long here-document.
std::vector<std::vector<Word>> InputCommands(const std::vector<Word>& words, std::size_t from,
                                             std::string_view input, const std::string& replace) {
  std::vector<Word> items;
  std::size_t i = 0;
  while (i < input.size() && items.size() < 64) {
    while (i < input.size() && std::isspace(static_cast<unsigned char>(input[i]))) ++i;
    std::size_t end = i;
    while (end < input.size() && !std::isspace(static_cast<unsigned char>(input[end]))) ++end;
    if (end > i) {
      Word item{std::string(input.substr(i, end - i))};
      item.expands = item.text.find('$') != std::string::npos;
      items.push_back(std::move(item));
    }
    i = end;
  }
  std::vector<std::vector<Word>> commands;
  if (replace.empty()) {
    commands.emplace_back(words.begin(), words.end());
    commands.back().insert(commands.back().end(), items.begin(), items.end());
    return commands;
  }
  for (const Word& item : items) {
    std::vector<Word>& command = commands.emplace_back(words.begin(), words.end());
    for (std::size_t k = from; k < command.size(); ++k) {
      std::string& text = command[k].text;
      for (std::size_t at = text.find(replace); at != std::string::npos;
           at = text.find(replace, at + item.text.size())) {
        text.replace(at, replace.size(), item.text);
        command[k].expands = command[k].expands || item.expands;
      }
    }
  }
  return commands;
}

}  // namespace

void Walker::Words(const std::vector<Word>& words, std::size_t start, const Stdin& stdin_source,
                   std::string_view segment, int code_depth) {
  if (start >= words.size()) return;
  if (line_.wrapped > kMaxWrapped) {
    Add(tables_.settings.too_deep, "Wrappers are nested too deeply to analyse.", segment);
    return;
  }
  const Word& first = words[start];
  if (first.expands || first.substitutes) {
    Add(tables_.settings.unknown_command,
        "The command to run ('" + util::OneLine(first.text, 60) + "') is known only at run time.",
        segment);
    return;
  }
  std::string name = ProgramName(first.text);
  if (util::AsciiLower(name) != name) {
    BothSpellings(words, start, stdin_source, segment, code_depth);
    return;
  }
  name = WithoutExe(std::move(name));
  const CommandNode* program = FindProgram(name);
  if (program == nullptr) {
    UnknownProgram(words, start, segment);
    return;
  }
  const JudgedCommand command = JudgeCommand(*program, words, start);
  // Positive knowledge: a command is L0/L1 only when each of its options is
  // on a list of known-safe ones and its operands play known roles. Added
  // last, so that at a level the command reaches anyway its own reason shows.
  std::string unknown_option = UnknownOptionReason(command, words);
  // Path findings go after the command's own finding, so that the command
  // explains itself first.
  const std::size_t path_findings_begin = FindingCount();
  CheckPaths(command, *program, words, stdin_source, segment);
  const bool wrapper = command.runner != nullptr && command.runner->runs == Runs::kWrapper;
  if (!wrapper) AnalyseProgram(command, name, words, start, segment, code_depth);
  // npx reads the package managers' settings (node-options) before it runs the program.
  if (wrapper && program == tables_.FindCommand("npx") && !line_.cwd_unknown) {
    RunnerSettings(line_.cwd, segment);
  }
  const std::size_t path_findings_end = FindingCount();
  if (name == "cd" || name == "pushd" || name == "ln") TrackDirectory(name, words, start);
  CheckDeclaredVariables(name, words, command.path.back().index + 1, segment);
  RunWhatItRuns(command, words, stdin_source, segment, code_depth);
  MoveToEnd(path_findings_begin, path_findings_end);
  if (!unknown_option.empty()) Add(Level::kL2, std::move(unknown_option), segment);
}

void Walker::BothSpellings(const std::vector<Word>& words, std::size_t start,
                           const Stdin& stdin_source, std::string_view segment, int code_depth) {
  // Case-insensitive file systems run `RM -RF` as rm. The program still
  // sees its options as written (`CMAKE -E` is cmake -E), while PowerShell's
  // parameters ignore case: judge both spellings, the higher level wins.
  // Only at the top level, so nested code strings cannot double the work
  // at every depth (a code string is at least L2 anyway).
  std::vector<Word> as_written(words.begin() + static_cast<std::ptrdiff_t>(start), words.end());
  as_written.front().text = util::AsciiLower(as_written.front().text);
  std::vector<Word> lowered = as_written;
  bool options_differ = false;
  for (Word& word : lowered) {
    if (!IsOptionWord(word.text)) continue;
    std::string lower = util::AsciiLower(word.text);
    options_differ = options_differ || lower != word.text;
    word.text = std::move(lower);
  }
  if (options_differ && code_depth == 0) Words(as_written, 0, stdin_source, segment, code_depth);
  Words(lowered, 0, stdin_source, segment, code_depth);
}

const CommandNode* Walker::FindProgram(const std::string& name) const {
  if (const CommandNode* found = tables_.FindCommand(name); found != nullptr) return found;
  // python3.12, pip3.11, gcc-12 → python3, pip3, gcc; never format.sh → format.
  const std::size_t dot = name.find_first_of(".-");
  if (dot != std::string::npos && dot > 0 && dot + 1 < name.size() &&
      std::isdigit(static_cast<unsigned char>(name[dot + 1]))) {
    return tables_.FindCommand(name.substr(0, dot));
  }
  return nullptr;
}

std::string_view Walker::EntryName(std::string_view name) const {
  const CommandNode* entry = tables_.FindCommand(std::string(name));
  return entry != nullptr ? std::string_view(entry->name) : std::string_view();
}

void Walker::UnknownProgram(const std::vector<Word>& words, std::size_t start,
                            std::string_view segment) {
  Add(tables_.settings.unknown_command,
      "'" + util::OneLine(words[start].text, 60) + "' is not a command the classifier knows.",
      segment);
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    if (!IsOptionWord(words[i].text))
      CheckReadPath(words[i].text, tables_.settings.unknown_command, segment);
  }
}

Walker::JudgedCommand Walker::JudgeCommand(const CommandNode& program,
                                           const std::vector<Word>& words,
                                           std::size_t start) const {
  JudgedCommand command;
  command.path = SubcommandPath(program, words, start);
  command.label = Join(words, start, start + 1);
  for (std::size_t p = 1; p < command.path.size(); ++p) {
    command.label += " " + words[command.path[p].index].text;
  }
  ApplyRules(command, words, start);
  // The entry that runs something: the deepest one with `runs`.
  command.runner_index = start;
  for (auto step = command.path.rbegin(); step != command.path.rend(); ++step) {
    if (step->node->runs != Runs::kNothing) {
      command.runner = step->node;
      command.runner_index = step->index;
      break;
    }
  }
  // `X --help`/`--version` prints and exits, whatever the entry's options.
  if (command.runner == nullptr && command.level > Level::kL0) {
    const HelpRequest help = OnlyHelp(words, command.path.back().index);
    if (help == HelpRequest::kOnly) {
      command.level = Level::kL0;
      command.why = "'" + command.label + "' only prints its help or version.";
    } else if (help == HelpRequest::kWithOperands && command.level > Level::kL2) {
      // Most programs print help wherever --help stands; some pass it on.
      command.level = Level::kL2;
      command.why = "'" + command.label + "' asks for help, but with operands it might run them.";
    }
  }
  if (command.why.empty()) {
    command.why = "'" + command.label + "' " + std::string(GenericPhrase(command.level)) + ".";
  }
  return command;
}

namespace {

/// Where an entry's own words end for its rules: after the option that hands
/// the rest of the line to another program and that option's value
/// (`python -c CODE --version`: --version is CODE's argument, and python runs
/// CODE), after a `--` the entry lists (`cargo run -- ARGS`), or after the
/// first operand for `options_end: ["*"]`: an interpreter's options end at
/// its script (`bash evil.sh -n` passes -n to the script), and the value of
/// an `operand_values` option (php -S ADDR) is no script.
std::size_t OwnWordsEnd(const CommandNode& node, const std::vector<Word>& words, std::size_t from) {
  if (node.options_end.empty()) return words.size();
  const bool operand_ends = util::NameIn("*", node.options_end);
  for (std::size_t i = from; i < words.size(); ++i) {
    const std::string_view text = words[i].text;
    if (text == "--") {
      if (operand_ends) return std::min(i + 2, words.size());  // `dune exec -- PROG ARGS`
      return util::NameIn("--", node.options_end) ? i + 1 : words.size();
    }
    if (!IsOptionWord(text)) {
      if (operand_ends) return i + 1;
      continue;
    }
    for (const std::string& end : node.options_end) {
      if (end == "*") continue;
      if (text == end) return std::min(i + 2, words.size());
      const bool attached =
          end.size() == 2 ? text.size() > 2 && text[1] != '-' && text.starts_with(end)  // -cCODE
                          : text.starts_with(end + "=");
      if (attached) return i + 1;
    }
    if (util::NameIn(text, node.options_with_value) ||
        (operand_ends && util::NameIn(text, node.operand_values))) {
      ++i;
    }
  }
  return words.size();
}

}  // namespace

void Walker::ApplyRules(JudgedCommand& command, const std::vector<Word>& words,
                        std::size_t start) const {
  const bool in_project = !line_.cwd_unknown && line_.cwd_in_project;
  const std::vector<Word> in_scratch = WordsInScratch(words, start, in_project);
  const std::vector<Word>& all_words = in_scratch.empty() ? words : in_scratch;
  const PathStep& deepest = command.path.back();
  // Each step's rules see that entry's own words only.
  const auto view_of = [&](const PathStep& step) {
    return ViewArgs(all_words, step.index + 1, step.node->options_with_value,
                    OwnWordsEnd(*step.node, all_words, step.index + 1));
  };
  command.level = deepest.node->level;
  command.why = deepest.node->why;
  {
    const ArgView view = view_of(deepest);
    for (const ArgRule& rule : deepest.node->rules) {
      if (RuleMatches(rule, view, tables_.settings.profile, in_project)) {
        command.level = rule.level;
        command.why = rule.why;
        command.rule_matched = true;
        break;
      }
    }
  }
  for (std::size_t p = 0; p + 1 < command.path.size(); ++p) {
    const PathStep& step = command.path[p];
    const ArgView view = view_of(step);
    for (const ArgRule& rule : step.node->rules) {
      if (RuleMatches(rule, view, tables_.settings.profile, in_project)) {
        if (rule.level > command.level) {
          command.level = rule.level;
          command.why = rule.why;
          command.rule_matched = true;
        }
        break;
      }
    }
  }
}

std::vector<Word> Walker::WordsInScratch(const std::vector<Word>& words, std::size_t start,
                                         bool in_project) const {
  // After `cd /tmp`, `rm -rf x` deletes /tmp/x: the rules see relative
  // operands as the scratch paths they are (never with `..`).
  std::vector<Word> in_scratch;
  const bool unknown_scratch = line_.cwd_unknown && line_.cwd_scratch && !line_.made_link;
  if (!unknown_scratch && (in_project || line_.cwd_unknown || line_.cwd.rfind("/dev", 0) == 0 ||
                           !PathListMatches(tables_.scratch, line_.cwd))) {
    return in_scratch;
  }
  in_scratch = words;
  for (std::size_t w = start + 1; w < in_scratch.size(); ++w) {
    std::string& text = in_scratch[w].text;
    if (text.empty() || text.front() == '/' || text.front() == '~' || text.front() == '$' ||
        IsOptionWord(text) || text.find("..") != std::string::npos || in_scratch[w].expands ||
        in_scratch[w].substitutes) {
      continue;
    }
    // Links made earlier in the line are followed.
    text = unknown_scratch ? "$TMPDIR/" + text : Resolve(text);
  }
  return in_scratch;
}

std::string Walker::UnknownOptionReason(const JudgedCommand& command,
                                        const std::vector<Word>& words) const {
  const CommandNode& node = *command.path.back().node;
  const CommandNode* runner = command.runner;
  const bool only_help = OnlyHelp(words, command.path.back().index) == HelpRequest::kOnly;
  const bool wraps = runner != nullptr && runner->runs == Runs::kWrapper;
  const bool runs_code = runner != nullptr && runner->runs != Runs::kWrapper &&
                         runner->runs != Runs::kFind && !command.rule_matched;
  if (node.data_args || only_help || wraps || (command.level > Level::kL1 && !runs_code)) {
    return {};
  }
  // A command given as words (`watch -n 1 ls -la`) has options of its own:
  // only the program's, before it, are checked against its entry.
  const std::size_t scan_end = runner != nullptr && runner->runs == Runs::kCommandString
                                   ? CommandWordsStart(*runner, words, command.path.back().index)
                                   : words.size();
  const OptionScan scan =
      runner != nullptr && runner->runs == Runs::kFind
          ? ScanOptions(words, command.path, words.size(), {"-exec", "-execdir", "-ok", "-okdir"})
          : ScanOptions(words, command.path, scan_end);
  // `python -m pytest -x`: the module's options are those of its own entry.
  OptionScan inner;
  if (scan.ended && scan.value < words.size() && words[scan.value - 1].text == "-m") {
    if (const CommandNode* module = tables_.FindCommand(util::AsciiLower(words[scan.value].text));
        module != nullptr && module->runs == Runs::kNothing) {
      inner = ScanOptions(words, {{module, scan.value, module->single_dash_long}}, words.size());
    }
  }
  if (!inner.unknown.empty()) {
    return "togmal does not know that '" + command.label + " " + words[scan.value].text + " " +
           util::OneLine(inner.unknown, 40) +
           "' is safe (not on the entry's safe_options); a person decides.";
  }
  if (!scan.unknown.empty()) {
    return "togmal does not know that '" + command.label + " " + util::OneLine(scan.unknown, 40) +
           "' is safe (not on the entry's safe_options); a person decides.";
  }
  if (node.max_operands >= 0 && !scan.ended &&
      scan.operands.size() > static_cast<std::size_t>(node.max_operands) &&
      node.writes_operand == 0) {
    return "togmal does not know what the operand '" +
           util::OneLine(words[scan.operands[static_cast<std::size_t>(node.max_operands)]].text,
                         40) +
           "' of '" + command.label + "' does (more than it reads); a person decides.";
  }
  return {};
}

void Walker::CheckPaths(const JudgedCommand& command, const CommandNode& program,
                        const std::vector<Word>& words, const Stdin& stdin_source,
                        std::string_view segment) {
  const CommandNode& node = *command.path.back().node;
  if (node.writes_operand > 0) CheckWrittenOperand(command, words, segment);
  // A wrapper's words are the wrapped command's, checked when that command is;
  // find's are checked up to its -exec. Each word is checked once: linear.
  const bool wrapper = command.runner != nullptr && command.runner->runs == Runs::kWrapper;
  const bool example_copy =
      !node.data_args && !wrapper && CheckNamedPaths(command, program, words, segment);
  // writes_args commands write only when their level says they change
  // something (sed is L0, sed -i L1).
  if ((node.writes_args && command.level >= Level::kL1) || node.writes_last_arg) {
    CheckWrittenArgs(command, words, example_copy, stdin_source, segment);
  }
}

void Walker::CheckWrittenOperand(const JudgedCommand& command, const std::vector<Word>& words,
                                 std::string_view segment) {
  const CommandNode& node = *command.path.back().node;
  const ArgView view = ViewArgs(words, command.path.back().index + 1, node.options_with_value);
  const auto nth = static_cast<std::size_t>(node.writes_operand);
  if (view.positionals.size() >= nth) {
    CheckWritePath(view.positionals[nth - 1], Level::kL1, Level::kL2, segment, "Writes");
  }
  if (node.max_operands >= 0 &&
      view.positionals.size() > static_cast<std::size_t>(node.max_operands)) {
    Add(Level::kL2,
        "togmal does not know what the extra operands of '" + command.label +
            "' do; a person decides.",
        segment);
  }
}

bool Walker::CheckNamedPaths(const JudgedCommand& command, const CommandNode& program,
                             const std::vector<Word>& words, std::string_view segment) {
  const CommandNode& node = *command.path.back().node;
  const std::size_t first = command.path.back().index + 1;
  const ArgView view = ViewArgs(words, first, node.options_with_value);
  const bool sql = command.runner != nullptr && command.runner->runs == Runs::kSql;
  const std::string statement = sql ? Join(words, first, words.size()) : "";
  const char* last_operand = view.positionals.empty() ? nullptr : view.positionals.back().data();
  // cp's sources are only read; mv's are moved away.
  const bool copies = node.writes_last_arg && &program != tables_.FindCommand("mv");
  // `cp .env.example .env.local`: the new file holds only the example's text.
  const bool example_copy = copies && view.positionals.size() == 2 &&
                            CopiesExample(view.positionals[0], view.positionals[1]);
  // `ssh -i ~/.ssh/deploy_key`: the key authenticates; none of it is shown.
  std::string_view previous;
  bool after_double_dash = false;
  for (std::string_view word : view.all) {
    bool names_key = !after_double_dash && !previous.empty() && IsOptionWord(previous) &&
                     util::NameIn(previous, node.key_options);
    previous = word;
    after_double_dash = after_double_dash || word == "--";
    if (node.runs == Runs::kFind && IsFindExec(word)) break;
    if (word == "--") continue;
    std::string_view path_word = word;
    if (IsOptionWord(word) && word.find('=') == std::string_view::npos) {
      // `grep -f/root/.ssh/id_rsa`, `-rf/x`: a value written attached to
      // its option names a file as it would in the next word.
      if (after_double_dash || command.path.back().single_dash_long) continue;
      const ShortCluster cluster = ReadCluster(word, {&node.options_with_value});
      if (cluster.value.empty()) continue;
      path_word = cluster.value;
      names_key = util::NameIn(std::string{'-', cluster.letters.back()},
                               node.key_options);  // -i~/.ssh/k
    }
    if (const std::size_t eq = word.find('=');
        eq != std::string_view::npos && eq + 1 < word.size()) {
      if (IsOptionWord(word) || word.find('/') > eq) path_word = word.substr(eq + 1);
    }
    if ((!example_copy || word.data() != last_operand) && !names_key) {
      CheckReadPath(path_word, command.level, segment);
    }
    CheckGuardWord(path_word, command.level, copies && word.data() != last_operand, sql, statement,
                   segment);
  }
  return example_copy;
}

void Walker::CheckWrittenArgs(const JudgedCommand& command, const std::vector<Word>& words,
                              bool example_copy, const Stdin& stdin_source,
                              std::string_view segment) {
  const CommandNode& node = *command.path.back().node;
  const ArgView view = ViewArgs(words, command.path.back().index + 1, node.options_with_value);
  // `… | tee f`, `tee f <<EOF`: what tee reads is the files' new text.
  std::optional<WriteContent> fed;
  if (node.writes_stdin && stdin_source.Shown()) fed = ShellText(stdin_source.text);
  for (std::size_t a = 0; a < view.positionals.size(); ++a) {
    if (node.writes_last_arg && (a + 1 != view.positionals.size() || a == 0)) continue;
    if (example_copy) {
      Add(Level::kL1,
          "Copies the documented example '" + util::OneLine(view.positionals[0], 60) + "' to '" +
              util::OneLine(view.positionals[a], 60) +
              "', a new file inside the project: the copy holds no secret.",
          segment);
      line_.wrote_file = true;
      continue;
    }
    CheckWritePath(view.positionals[a], Level::kL1, Level::kL2, segment, "Writes",
                   fed ? &*fed : nullptr);
  }
}

void Walker::CheckDeclaredVariables(std::string_view name, const std::vector<Word>& words,
                                    std::size_t from, std::string_view segment) {
  if (name != "export" && name != "declare" && name != "typeset" && name != "local" &&
      name != "readonly") {
    return;
  }
  bool exports = name == "export";
  for (std::size_t a = from; a < words.size(); ++a) {
    const std::string& text = words[a].text;
    if (text.size() > 1 && text[0] == '-' && text.find('x') != std::string::npos) exports = true;
  }
  for (std::size_t a = from; a < words.size(); ++a) {
    CheckAssignment(words[a].text, segment, exports);
  }
}

void Walker::RunWhatItRuns(const JudgedCommand& command, const std::vector<Word>& words,
                           const Stdin& stdin_source, std::string_view segment, int code_depth) {
  const CommandNode* runner = command.runner;
  if (runner == nullptr) {
    Add(command.level, command.why, segment);
    return;
  }
  if (command.rule_matched && runner->runs != Runs::kWrapper && runner->runs != Runs::kFind) {
    Add(command.level, command.why, segment);
    // A rule at L0/L1 says all the call does (prints a version, checks the
    // syntax, a known form of code). One at L2 or above names one concern
    // (a Nix expression on PATH, a server on every interface, a module
    // loaded) and vouches for nothing else: the code run is judged too.
    if (command.level >= Level::kL2) {
      RuledCode(*runner, words, command.runner_index, segment, code_depth);
    }
    return;
  }
  if (runner->runs == Runs::kWrapper) {
    Wrapper(command, words, stdin_source, segment, code_depth);
  } else if (runner->runs == Runs::kFind) {
    Add(command.level, command.why, segment);
    FindExec(words, command.runner_index, segment, code_depth);
  } else if (runner->runs == Runs::kWindowsShell) {
    WindowsShell(command.level, words, command.runner_index, segment, command.label, code_depth);
  } else {
    Code(*runner, command.level, words, command.runner_index, stdin_source, segment, command.label,
         code_depth);
  }
}

Walker::WrapperWords Walker::ScanWrapper(const JudgedCommand& command,
                                         const std::vector<Word>& words) {
  using Kind = WrapperWords::Step::Kind;
  const CommandNode& node = *command.runner;
  const std::size_t index = command.runner_index;
  WrapperWords scan;
  std::size_t j = index + 1;
  int skip = node.skip_positionals;
  bool clusters = true;  // a single_dash_long wrapper reads `-itu` as one option
  for (const PathStep& step : command.path) {
    if (step.index == index) clusters = !step.single_dash_long;
  }
  while (j < words.size()) {
    const std::string& text = words[j].text;
    if (text == "--") {
      ++j;
      break;
    }
    if (IsOptionWord(text)) {
      if (text == "-I" && j + 1 < words.size()) scan.replace = words[j + 1].text;
      if (text.size() > 2 && text.starts_with("-I")) scan.replace = text.substr(2);
      if (text == "-i" || text == "--replace") scan.replace = "{}";
      if ((text == "-a" || text == "--arg-file") && j + 1 < words.size()) {
        scan.arg_file = words[j + 1].text;
      }
      if (text.starts_with("--arg-file=")) scan.arg_file = text.substr(11);
      if (text.size() > 2 && text.starts_with("-a")) scan.arg_file = text.substr(2);
      for (const std::string& query : node.query_options) {
        if (FlagMatches(query, text)) {
          scan.query = j;
          scan.command = words.size();
          return scan;
        }
      }
      if (util::NameIn(text, node.code_options) && j + 1 < words.size()) {
        // Every code option's string is judged, and so is what follows it:
        // `env -S '-i' -S 'rm -rf ~'` splices both strings into env's
        // arguments, and the second one runs.
        scan.steps.push_back({Kind::kCode, words[j + 1].text});
        j += 2;
        continue;
      }
      if (const AttachedCode attached = FindAttachedCode(node, text);
          attached.found && (!attached.in_next_word || j + 1 < words.size())) {
        // The same, with the string attached or after a cluster:
        // `env -S'rm -rf ~'`, `npx --call='…'`, `env -iS 'rm -rf ~'`.
        scan.steps.push_back({Kind::kCode, attached.in_next_word
                                               ? std::string_view(words[j + 1].text)
                                               : attached.code});
        j += attached.in_next_word ? 2u : 1u;
        continue;
      }
      // `docker exec -itu root web sh`: the cluster's last letter takes the next word.
      const bool value_next =
          util::NameIn(text, node.options_with_value) ||
          (clusters && ReadCluster(text, {&node.options_with_value}).ValueInNextWord());
      // The value is never the wrapped command's: it is a file the wrapper
      // may read (`docker exec --env-file .env web ls`).
      if (value_next && j + 1 < words.size()) {
        scan.steps.push_back({Kind::kReadsFile, words[j + 1].text});
      } else if (const std::size_t eq = text.find('=');
                 text.starts_with("--") && eq != std::string::npos) {
        scan.steps.push_back({Kind::kReadsFile, std::string_view(text).substr(eq + 1)});
      }
      j += value_next ? 2 : 1;
      continue;
    }
    if (!words[j].quoted && text.find('=') != std::string::npos &&
        std::isalpha(static_cast<unsigned char>(text[0]))) {
      scan.steps.push_back({Kind::kAssignment, text});  // env NAME=value
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
  scan.command = j;
  return scan;
}

Walker::Unwrapped Walker::UnwrappedCommand(const std::vector<Word>& words) const {
  // The steps Words takes, without judging: the program's entry by its base
  // name lowered, then each wrapper's words read as Wrapper reads them.
  std::size_t start = 0;
  for (int wrapped = 0; start < words.size() && wrapped <= kMaxWrapped; ++wrapped) {
    const Word& first = words[start];
    if (first.expands || first.substitutes) break;
    const CommandNode* program = FindProgram(WithoutExe(util::AsciiLower(ProgramName(first.text))));
    if (program == nullptr) break;
    const JudgedCommand command = JudgeCommand(*program, words, start);
    if (command.runner == nullptr || command.runner->runs != Runs::kWrapper) {
      return {program, start};
    }
    // xargs runs the words it reads; a code option's string is a line of its own.
    const WrapperWords scan = ScanWrapper(command, words);
    const bool runs_code =
        std::any_of(scan.steps.begin(), scan.steps.end(), [](const WrapperWords::Step& step) {
          return step.kind == WrapperWords::Step::Kind::kCode;
        });
    if (!command.runner->default_command.empty() || scan.query != 0 || runs_code) break;
    start = scan.command;
  }
  return {};
}

void Walker::Wrapper(const JudgedCommand& command, const std::vector<Word>& words,
                     const Stdin& stdin_source, std::string_view segment, int code_depth) {
  const CommandNode& node = *command.runner;
  const std::size_t index = command.runner_index;
  const Level level = command.level;
  const std::string& why = command.why;
  const WrapperWords scan = ScanWrapper(command, words);
  bool ran_code = false;  // a code option's string was judged
  for (const WrapperWords::Step& step : scan.steps) {
    switch (step.kind) {
      case WrapperWords::Step::Kind::kCode:
        Add(level, why, segment);
        Line(step.text, SegmentOrigin::kShellString, code_depth + 1);
        ran_code = true;
        break;
      case WrapperWords::Step::Kind::kAssignment:
        CheckAssignment(step.text, segment, true);
        break;
      case WrapperWords::Step::Kind::kReadsFile:
        CheckReadPath(step.text, level, segment);
        break;
    }
  }
  if (scan.query != 0) {
    Add(Level::kL0,
        "'" + words[index].text + " " + words[scan.query].text + "' only looks a command up.",
        segment);
    return;
  }
  const std::size_t j = scan.command;
  // The wrapper's own options (`timeout -s KILL 5 …`, `xargs -0 …`), up to the command it runs.
  if (level <= Level::kL1 && OnlyHelp(words, index) != HelpRequest::kOnly) {
    std::vector<PathStep> own;
    for (const PathStep& step : command.path) {
      if (step.index <= index) own.push_back(step);
    }
    if (const OptionScan options = ScanOptions(words, own, j); !options.unknown.empty()) {
      Add(Level::kL2,
          "togmal does not know that '" + words[command.path.front().index].text + " " +
              util::OneLine(options.unknown, 40) +
              "' is safe (not on the entry's safe_options); a person decides.",
          segment);
    }
  }
  if (j >= words.size() && ran_code) return;
  if (j >= words.size()) {
    Add(level, why.empty() ? "'" + words[index].text + "' alone runs nothing." : why, segment);
    // `env` alone prints the environment.
    if (util::AsciiLower(words[index].text).ends_with("env"))
      SecretsShown("env", "env", words, j - 1, segment);
    return;
  }
  if (level > Level::kL0) Add(level, why, segment);
  if (segments_ != nullptr) {
    segments_->push_back({Join(words, j, words.size()), {}, SegmentOrigin::kWrapped, code_depth});
    for (std::size_t k = j; k < words.size(); ++k) segments_->back().argv.push_back(words[k].text);
  }
  ++line_.wrapped;
  const bool outer_in_container = line_.in_container;
  line_.in_container = outer_in_container || node.in_container;
  if (!node.default_command.empty() && stdin_source.known) {
    // `echo ~/.ssh/id_rsa | xargs cat`: the words xargs reads are the
    // command's operands (or fill its -I placeholder), judged as if written there.
    for (const std::vector<Word>& command_words :
         InputCommands(words, j, stdin_source.text, scan.replace)) {
      Words(command_words, j, Stdin{}, segment, code_depth);
    }
  } else {
    if (!node.default_command.empty()) UnknownInput(node, scan.arg_file, stdin_source, segment);
    Words(words, j, stdin_source, segment, code_depth);
  }
  line_.in_container = outer_in_container;
  --line_.wrapped;
}

void Walker::UnknownInput(const CommandNode& node, std::string_view arg_file,
                          const Stdin& stdin_source, std::string_view segment) {
  std::string source;
  if (!arg_file.empty()) {
    source = "the file '" + util::OneLine(arg_file, 60) + "' holds";
  } else if (stdin_source.kind == Stdin::Kind::kFile) {
    source = "the file '" + util::OneLine(stdin_source.producer, 60) + "' holds";
  } else if (stdin_source.kind == Stdin::Kind::kPipe) {
    // `find . -name '*.ts' | xargs wc -l`: names of files, judged where they are looked for.
    const std::size_t end = stdin_source.producer.find_first_of(" \t\n");
    const std::string producer =
        util::AsciiLower(ProgramName(stdin_source.producer.substr(0, end)));
    if (util::NameIn(producer, node.input_listers)) return;
    source = "'" + util::OneLine(stdin_source.producer, 60) + "' prints";
  } else {
    return;  // no input: an agent's command reads an empty stdin
  }
  Add(Level::kL2,
      "'" + node.name + "' appends the words " + source +
          ", known only at run time, to the command it runs.",
      segment);
}

void Walker::FindExec(const std::vector<Word>& words, std::size_t index, std::string_view segment,
                      int code_depth) {
  for (std::size_t j = index + 1; j < words.size(); ++j) {
    if (!IsFindExec(words[j].text)) continue;
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
    ++line_.wrapped;
    Words(inner, 0, {}, segment, code_depth + 1);
    --line_.wrapped;
    j = k;
  }
}

void Walker::MoveToEnd(std::size_t begin, std::size_t end) {
  if (findings_ == nullptr || begin == end) return;
  std::rotate(findings_->begin() + static_cast<std::ptrdiff_t>(begin),
              findings_->begin() + static_cast<std::ptrdiff_t>(end), findings_->end());
}

}  // namespace togmal::policy
