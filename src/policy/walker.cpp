// The walk over a command line: each simple command is resolved through the
// tables (subcommands, rules, wrappers) and its redirections, assignments
// and substitutions become findings.
#include "walker.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "togmal/util/glob.h"

namespace togmal::policy {

namespace {

// `$(cat <<'EOF' … EOF)`: a substitution that only prints a quoted heredoc's
// text (Claude Code's commit messages). Its result is known as written, so
// the command using it is not "known only at run time".
bool PrintsLiteralText(const SimpleCommand& command) {
  if (command.nesting != Nesting::kCommandSubstitution || command.words.size() != 1 ||
      command.words.front().text != "cat" || command.words.front().quoted ||
      !command.assignments.empty() || command.pipe_from >= 0 || command.redirections.size() != 1) {
    return false;
  }
  const Redirection& heredoc = command.redirections.front();
  return (heredoc.op == "<<" || heredoc.op == "<<-") && heredoc.heredoc_quoted;
}

}  // namespace

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
  // What each command contains, found in one pass (the nesting is at most
  // a few dozen deep): the walk stays linear in the number of commands.
  LineFacts facts;
  facts.substituted.assign(lex.commands.size(), false);
  facts.recursive.assign(lex.commands.size(), false);
  for (std::size_t j = 0; j < lex.commands.size(); ++j) {
    const SimpleCommand& nested = lex.commands[j];
    if (nested.parent >= 0 && nested.nesting != Nesting::kFunctionBody &&
        !PrintsLiteralText(nested)) {
      facts.substituted[static_cast<std::size_t>(nested.parent)] = true;
    }
    if (nested.words.empty()) continue;
    // A body that calls the function itself (`:(){ :|:& };:`) is a fork bomb.
    for (int ancestor = nested.parent; ancestor >= 0;
         ancestor = lex.commands[static_cast<std::size_t>(ancestor)].parent) {
      const SimpleCommand& outer = lex.commands[static_cast<std::size_t>(ancestor)];
      if (!outer.function_name.empty() && nested.words.front().text == outer.function_name) {
        facts.recursive[static_cast<std::size_t>(ancestor)] = true;
      }
    }
  }
  // A code string is walked in the middle of its command: what that command
  // pipes to and from is its own again afterwards.
  const bool pipes_out = line_.pipes_out;
  std::string piped_from = std::move(line_.piped_from);
  for (std::size_t i = 0; i < lex.commands.size(); ++i) Simple(lex, i, facts, origin, code_depth);
  line_.pipes_out = pipes_out;
  line_.piped_from = std::move(piped_from);
}

void Walker::CheckAssignment(std::string_view assignment, std::string_view segment, bool exported) {
  std::size_t end = assignment.find('=');
  if (end == std::string_view::npos) return;
  std::string_view name = assignment.substr(0, end);
  if (!name.empty() && name.back() == '+') name.remove_suffix(1);
  auto found = tables_.assignments.find(std::string(name));
  if (found == tables_.assignments.end()) {
    // Numbered families such as GIT_CONFIG_KEY_0 are globs in the table.
    for (auto entry = tables_.assignments.begin(); entry != tables_.assignments.end(); ++entry) {
      if (entry->first.find('*') != std::string::npos && util::GlobMatches(entry->first, name)) {
        found = entry;
        break;
      }
    }
    if (found == tables_.assignments.end()) {
      // Positive knowledge: a variable the tables do not name, handed to the
      // programs started, may change what they load or run. A shell variable
      // (`n=0`, `files=(…)`) reaches them only when its name is already
      // exported: one in capitals may be.
      bool capitals = true;
      for (char c : name) capitals = capitals && !std::islower(static_cast<unsigned char>(c));
      // `x=--compress-program=sh; sort $x f`: a value that is an option
      // reaches a later command where no list checks it.
      std::string_view value = assignment.substr(end + 1);
      while (!value.empty() && (value.front() == '"' || value.front() == '\'')) {
        value.remove_prefix(1);
      }
      const bool option_value = value.size() > 1 && value.front() == '-';
      if (!exported && !capitals && !option_value) return;
      if (option_value && !exported && !capitals) {
        Add(Level::kL2,
            "Stores the option '" + Shorten(value, 40) + "' in " + std::string(name) +
                ": a later command would take it unchecked; a person decides.",
            segment);
        return;
      }
      Add(Level::kL2,
          "togmal does not know what setting " + std::string(name) +
              " does to the programs that read it (not in the assignments table); a person "
              "decides.",
          segment);
      return;
    }
  }
  std::string why = found->second.why.empty()
                        ? "Setting " + std::string(name) + " " +
                              std::string(GenericPhrase(found->second.level)) + "."
                        : found->second.why;
  Add(found->second.level, std::move(why), segment);
}

void Walker::Simple(const LexResult& lex, std::size_t index, const LineFacts& facts,
                    SegmentOrigin origin, int code_depth) {
  const SimpleCommand& command = lex.commands[index];
  const std::string& segment = command.text;
  line_.wrote_before = line_.wrote_file;
  line_.pipes_out = command.connector == Connector::kPipe;
  line_.piped_from.clear();
  if (segments_ != nullptr && (!command.words.empty() || !command.assignments.empty())) {
    segments_->push_back({command.text, command.Argv(), origin, command.depth + code_depth});
  }
  if (!command.function_name.empty()) {
    Add(Level::kL2, "Defines the shell function '" + command.function_name + "'.", segment);
    if (facts.recursive[index]) {
      Add(Level::kL3,
          "The function '" + command.function_name +
              "' calls itself: a fork bomb or runaway recursion.",
          segment);
    }
  }
  for (const std::string& assignment : command.assignments) {
    CheckAssignment(assignment, segment, !command.words.empty());
  }
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
    line_.piped_from = producer.text;
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
    Words(command.words, 0, stdin_source, segment, code_depth);
  }
  HiddenCode(command, facts.substituted[index], segment);
  // After the command's own finding, so that it is the one shown when both
  // are at the same level.
  if (facts.substituted[index]) {
    Add(tables_.settings.substitution_minimum,
        "Its arguments come from a command substitution, known only at run time.", segment);
  }
}

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
        "The command to run ('" + Shorten(first.text, 60) + "') is known only at run time.",
        segment);
    return;
  }
  std::string name = first.text;
  if (const std::size_t slash = name.rfind('/');
      slash != std::string::npos && slash + 1 < name.size()) {
    name = name.substr(slash + 1);
  }
  if (Lower(name) != name) {
    // Case-insensitive file systems run `RM -RF` as rm. The program still
    // sees its options as written (`CMAKE -E` is cmake -E), while PowerShell's
    // parameters ignore case: judge both spellings, the higher level wins.
    // Only at the top level, so nested code strings cannot double the work
    // at every depth (a code string is at least L2 anyway).
    std::vector<Word> as_written(words.begin() + static_cast<std::ptrdiff_t>(start), words.end());
    as_written.front().text = Lower(as_written.front().text);
    std::vector<Word> lowered = as_written;
    bool options_differ = false;
    for (Word& word : lowered) {
      if (!IsOptionWord(word.text)) continue;
      std::string lower = Lower(word.text);
      options_differ = options_differ || lower != word.text;
      word.text = std::move(lower);
    }
    if (options_differ && code_depth == 0) Words(as_written, 0, stdin_source, segment, code_depth);
    Words(lowered, 0, stdin_source, segment, code_depth);
    return;
  }
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".exe") == 0) {
    name.resize(name.size() - 4);
  }
  const CommandNode* found = tables_.FindCommand(name);
  if (found == nullptr) {
    // python3.12, pip3.11, gcc-12 → python3, pip3, gcc; never format.sh → format.
    const std::size_t dot = name.find_first_of(".-");
    if (dot != std::string::npos && dot > 0 && dot + 1 < name.size() &&
        std::isdigit(static_cast<unsigned char>(name[dot + 1]))) {
      found = tables_.FindCommand(name.substr(0, dot));
    }
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
  using Step = PathStep;
  std::vector<Step> path{{found, start}};
  std::size_t i = start + 1;
  while (i < words.size() && path.back().node->HasSubcommands()) {
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
  const bool in_project = !line_.cwd_unknown && line_.cwd_in_project;
  // After `cd /tmp`, `rm -rf x` deletes /tmp/x: the rules see relative
  // operands as the scratch paths they are (never with `..`).
  std::vector<Word> in_scratch;
  const bool unknown_scratch = line_.cwd_unknown && line_.cwd_scratch && !line_.made_link;
  if (unknown_scratch || (!in_project && !line_.cwd_unknown && line_.cwd.rfind("/dev", 0) != 0 &&
                          PathListMatches(tables_.scratch, line_.cwd))) {
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
  }
  const std::vector<Word>& rule_words = in_scratch.empty() ? words : in_scratch;
  Level level = deepest.node->level;
  std::string why = deepest.node->why;
  bool rule_matched = false;
  {
    const ArgView view = ViewArgs(rule_words, deepest.index + 1, deepest.node->options_with_value);
    for (const ArgRule& rule : deepest.node->rules) {
      if (RuleMatches(rule, view, tables_.settings.profile, in_project)) {
        level = rule.level;
        why = rule.why;
        rule_matched = true;
        break;
      }
    }
  }
  for (std::size_t p = 0; p + 1 < path.size(); ++p) {
    const ArgView view = ViewArgs(rule_words, path[p].index + 1, path[p].node->options_with_value);
    for (const ArgRule& rule : path[p].node->rules) {
      if (RuleMatches(rule, view, tables_.settings.profile, in_project)) {
        if (rule.level > level) {
          level = rule.level;
          why = rule.why;
          rule_matched = true;
        }
        break;
      }
    }
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
  // `X --help`/`--version` prints and exits, whatever the entry's options.
  const bool only_help = OnlyHelp(words, deepest.index) == HelpRequest::kOnly;
  if (runner == nullptr && level > Level::kL0) {
    const HelpRequest help = OnlyHelp(words, deepest.index);
    if (help == HelpRequest::kOnly) {
      level = Level::kL0;
      why = "'" + label + "' only prints its help or version.";
    } else if (help == HelpRequest::kWithOperands && level > Level::kL2) {
      // Most programs print help wherever --help stands; some pass it on.
      level = Level::kL2;
      why = "'" + label + "' asks for help, but with operands it might run them.";
    }
  }
  if (why.empty()) {
    why = "'" + label + "' " + std::string(GenericPhrase(level)) + ".";
  }
  const CommandNode& node = *deepest.node;
  // Positive knowledge: a command is L0/L1 only when each of its options is
  // on a list of known-safe ones and its operands play known roles. Added
  // last, so that at a level the command reaches anyway its own reason shows.
  struct AddLast {
    Walker* walker;
    std::optional<Finding> finding;
    ~AddLast() {
      if (finding) walker->Add(finding->level, std::move(finding->why), finding->segment);
    }
  } not_known{this, std::nullopt};
  const bool wraps = runner != nullptr && runner->runs == Runs::kWrapper;
  const bool runs_code = runner != nullptr && runner->runs != Runs::kWrapper &&
                         runner->runs != Runs::kFind && !rule_matched;
  if (!node.data_args && !only_help && !wraps && (level <= Level::kL1 || runs_code)) {
    const OptionScan scan =
        runner != nullptr && runner->runs == Runs::kFind
            ? ScanOptions(words, path, words.size(), {"-exec", "-execdir", "-ok", "-okdir"})
            : ScanOptions(words, path, words.size());
    // `python -m pytest -x`: the module's options are those of its own entry.
    OptionScan inner;
    if (scan.ended && scan.value < words.size() && words[scan.value - 1].text == "-m") {
      if (const CommandNode* module = tables_.FindCommand(Lower(words[scan.value].text));
          module != nullptr && module->runs == Runs::kNothing) {
        inner = ScanOptions(words, {{module, scan.value}}, words.size());
      }
    }
    if (!inner.unknown.empty()) {
      not_known.finding = Finding{Level::kL2,
                                  "togmal does not know that '" + label + " " +
                                      words[scan.value].text + " " + Shorten(inner.unknown, 40) +
                                      "' is safe (not on the entry's safe_options); a "
                                      "person decides.",
                                  std::string(segment)};
    } else if (!scan.unknown.empty()) {
      not_known.finding =
          Finding{Level::kL2,
                  "togmal does not know that '" + label + " " + Shorten(scan.unknown, 40) +
                      "' is safe (not on the entry's safe_options); a person decides.",
                  std::string(segment)};
    } else if (node.max_operands >= 0 && !scan.ended &&
               scan.operands.size() > static_cast<std::size_t>(node.max_operands) &&
               node.writes_operand == 0) {
      not_known.finding = Finding{
          Level::kL2,
          "togmal does not know what the operand '" +
              Shorten(words[scan.operands[static_cast<std::size_t>(node.max_operands)]].text, 40) +
              "' of '" + label + "' does (more than it reads); a person decides.",
          std::string(segment)};
    }
  }
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
  if (node.writes_operand > 0) {
    const ArgView view = ViewArgs(words, deepest.index + 1, node.options_with_value);
    const auto nth = static_cast<std::size_t>(node.writes_operand);
    if (view.positionals.size() >= nth) {
      CheckWritePath(view.positionals[nth - 1], Level::kL1, Level::kL2, segment, "Writes");
    }
    if (node.max_operands >= 0 &&
        view.positionals.size() > static_cast<std::size_t>(node.max_operands)) {
      Add(Level::kL2,
          "togmal does not know what the extra operands of '" + label + "' do; a person decides.",
          segment);
    }
  }
  // A wrapper's words are the wrapped command's, checked when that command is;
  // find's are checked up to its -exec. Each word is checked once: linear.
  const bool wrapper = runner != nullptr && runner->runs == Runs::kWrapper;
  bool example_copy = false;
  if (!node.data_args && !wrapper) {
    const ArgView view = ViewArgs(words, deepest.index + 1, node.options_with_value);
    const bool sql = runner != nullptr && runner->runs == Runs::kSql;
    const std::string statement = sql ? Join(words, deepest.index + 1, words.size()) : "";
    const char* last_operand = view.positionals.empty() ? nullptr : view.positionals.back().data();
    // cp's sources are only read; mv's are moved away.
    const bool copies = node.writes_last_arg && found != tables_.FindCommand("mv");
    // `cp .env.example .env.local`: the new file holds only the example's text.
    example_copy = copies && view.positionals.size() == 2 &&
                   CopiesExample(view.positionals[0], view.positionals[1]);
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
      if (!example_copy || word.data() != last_operand) CheckReadPath(path_word, level, segment);
      CheckGuardWord(path_word, level, copies && word.data() != last_operand, sql, statement,
                     segment);
    }
  }
  // writes_args commands write only when their level says they change
  // something (sed is L0, sed -i L1).
  if ((node.writes_args && level >= Level::kL1) || node.writes_last_arg) {
    const ArgView view = ViewArgs(words, deepest.index + 1, node.options_with_value);
    for (std::size_t a = 0; a < view.positionals.size(); ++a) {
      if (node.writes_last_arg && (a + 1 != view.positionals.size() || a == 0)) continue;
      if (example_copy) {
        Add(Level::kL1,
            "Copies the documented example '" + Shorten(view.positionals[0], 60) + "' to '" +
                Shorten(view.positionals[a], 60) +
                "', a new file inside the project: the copy holds no secret.",
            segment);
        line_.wrote_file = true;
        continue;
      }
      CheckWritePath(view.positionals[a], Level::kL1, Level::kL2, segment, "Writes");
    }
  }
  if (!wrapper) AnalyseProgram(*found, name, words, start, level, segment, code_depth);
  // npx reads the package managers' settings (node-options) before it runs the program.
  if (wrapper && found == tables_.FindCommand("npx") && !line_.cwd_unknown) {
    RunnerSettings(line_.cwd, segment);
  }
  if (findings_ != nullptr) path_findings.end = findings_->size();
  if (name == "cd" || name == "pushd" || name == "ln") TrackDirectory(name, words, start);
  if (name == "export" || name == "declare" || name == "typeset" || name == "local" ||
      name == "readonly") {
    bool exports = name == "export";
    for (std::size_t a = deepest.index + 1; a < words.size(); ++a) {
      const std::string& text = words[a].text;
      if (text.size() > 1 && text[0] == '-' && text.find('x') != std::string::npos) exports = true;
    }
    for (std::size_t a = deepest.index + 1; a < words.size(); ++a) {
      CheckAssignment(words[a].text, segment, exports);
    }
  }
  if (runner != nullptr &&
      !(rule_matched && runner->runs != Runs::kWrapper && runner->runs != Runs::kFind)) {
    if (runner->runs == Runs::kWrapper) {
      Wrapper(path, *runner, level, why, words, runner_index, stdin_source, segment, code_depth);
      return;
    }
    if (runner->runs == Runs::kFind) {
      Add(level, why, segment);
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
        ++line_.wrapped;
        Words(inner, 0, {}, segment, code_depth + 1);
        --line_.wrapped;
        j = k;
      }
      return;
    }
    if (runner->runs == Runs::kWindowsShell) {
      WindowsShell(level, words, runner_index, segment, label, code_depth);
      return;
    }
    Code(*runner, level, words, runner_index, stdin_source, segment, label, code_depth);
    return;
  }
  Add(level, why, segment);
}

void Walker::Wrapper(const std::vector<PathStep>& path, const CommandNode& node, Level level,
                     const std::string& why, const std::vector<Word>& words, std::size_t index,
                     const Stdin& stdin_source, std::string_view segment, int code_depth) {
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
      CheckAssignment(text, segment, true);  // env NAME=value
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
  // The wrapper's own options (`timeout -s KILL 5 …`, `xargs -0 …`), up to the command it runs.
  if (level <= Level::kL1 && OnlyHelp(words, index) != HelpRequest::kOnly) {
    std::vector<PathStep> own;
    for (const PathStep& step : path) {
      if (step.index <= index) own.push_back(step);
    }
    if (const OptionScan scan = ScanOptions(words, own, j); !scan.unknown.empty()) {
      Add(Level::kL2,
          "togmal does not know that '" + words[path.front().index].text + " " +
              Shorten(scan.unknown, 40) +
              "' is safe (not on the entry's safe_options); a person decides.",
          segment);
    }
  }
  if (j >= words.size()) {
    Add(level, why.empty() ? "'" + words[index].text + "' alone runs nothing." : why, segment);
    // `env` alone prints the environment.
    if (Lower(words[index].text).ends_with("env")) SecretsShown("env", words, j - 1, segment);
    return;
  }
  if (level > Level::kL0) Add(level, why, segment);
  if (segments_ != nullptr) {
    segments_->push_back({Join(words, j, words.size()), {}, SegmentOrigin::kWrapped, code_depth});
    for (std::size_t k = j; k < words.size(); ++k) segments_->back().argv.push_back(words[k].text);
  }
  ++line_.wrapped;
  Words(words, j, stdin_source, segment, code_depth);
  --line_.wrapped;
}

}  // namespace togmal::policy
