// The walk over a command line: the line is lexed, and each simple
// command's assignments, redirections, stdin and substitutions become
// findings; its words go through the tables in command_walk.cpp.
#include "walker.h"

#include <array>
#include <cctype>

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

// `make -j$(nproc)`: a substitution whose output is a count, a user or
// group id, the machine's architecture or kernel, or a commit hash. Such a
// value cannot name a file, a host or an option, so the command using it is
// as known as if the number were written. (Not `pwd`, `date +FORMAT`,
// `git rev-parse --show-toplevel`: those print paths or any text.)
bool PrintsAValue(const SimpleCommand& command) {
  if (command.nesting != Nesting::kCommandSubstitution || !command.assignments.empty() ||
      !command.redirections.empty() || command.pipe_from >= 0 || command.words.empty()) {
    return false;
  }
  // Each prints one short value and changes nothing: the whole command, word
  // for word, unquoted.
  static const std::vector<std::vector<std::string_view>> kValueCommands = {
      {"nproc"},
      {"nproc", "--all"},
      {"getconf", "_NPROCESSORS_ONLN"},
      {"id", "-u"},
      {"id", "-g"},
      {"uname", "-m"},
      {"uname", "-s"},
      {"uname", "-r"},
      {"git", "rev-parse", "HEAD"},
      {"git", "rev-parse", "--short", "HEAD"},
      {"git", "rev-parse", "--show-toplevel"},
      {"git", "rev-parse", "--abbrev-ref", "HEAD"},
      {"git", "branch", "--show-current"},
      {"git", "config", "user.email"},
      {"git", "config", "user.name"},
      {"git", "config", "--get", "user.email"},
      {"git", "config", "--get", "user.name"},
  };
  for (const std::vector<std::string_view>& value_command : kValueCommands) {
    if (command.words.size() != value_command.size()) continue;
    bool same = true;
    for (std::size_t i = 0; same && i < value_command.size(); ++i) {
      same = !command.words[i].quoted && command.words[i].text == value_command[i];
    }
    if (same) return true;
  }
  return false;
}

}  // namespace

std::optional<Walker::Printed> Walker::PrintedText(const SimpleCommand& command) const {
  const Unwrapped printer = UnwrappedCommand(command.words);
  if (printer.entry == nullptr) return std::nullopt;
  const std::string& name = printer.entry->name;
  const bool by_name = printer.start == 0 && util::AsciiLower(command.words.front().text) == name;
  if (name == "echo" || name == "printf") {
    std::size_t from = printer.start + 1;
    while (from < command.words.size() && IsOptionWord(command.words[from].text)) ++from;
    return Printed{Join(command.words, from, command.words.size()), by_name};
  }
  std::optional<Printed> printed;
  if (name == "cat" && printer.start + 1 == command.words.size()) {
    for (const Redirection& redirection : command.redirections) {
      if (redirection.FeedsText()) {
        printed = Printed{
            redirection.op == "<<<" ? redirection.target.text : redirection.heredoc_body, by_name};
      }
    }
  }
  return printed;
}

Stdin Walker::StdinOf(const LexResult& lex, const SimpleCommand& command) const {
  Stdin stdin_source;
  for (const Redirection& redirection : command.redirections) {
    if (redirection.op == "<<" || redirection.op == "<<-") {
      stdin_source = {Stdin::Kind::kText, redirection.heredoc_body, true, {}};
    } else if (redirection.op == "<<<") {
      stdin_source = {Stdin::Kind::kText, redirection.target.text + "\n", true, {}};
    } else if (redirection.ReadsFile() && redirection.fd <= 0) {
      stdin_source = {Stdin::Kind::kFile, {}, false, redirection.target.text};
    }
  }
  if (command.pipe_from < 0 || stdin_source.kind != Stdin::Kind::kNone) return stdin_source;
  const SimpleCommand& producer = lex.commands[static_cast<std::size_t>(command.pipe_from)];
  stdin_source.kind = Stdin::Kind::kPipe;
  stdin_source.producer = producer.text;
  if (std::optional<Printed> printed = PrintedText(producer)) {
    stdin_source.text = std::move(printed->text);
    stdin_source.known = printed->by_name;
    stdin_source.spelt_otherwise = !printed->by_name;
  }
  return stdin_source;
}

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
  const LineFacts facts = FactsOf(lex);
  // A code string is walked in the middle of its command: what that command
  // pipes to and from is its own again afterwards.
  const bool pipes_out = line_.pipes_out;
  std::string piped_from = std::move(line_.piped_from);
  for (std::size_t i = 0; i < lex.commands.size(); ++i) Simple(lex, i, facts, origin, code_depth);
  line_.pipes_out = pipes_out;
  line_.piped_from = std::move(piped_from);
}

Walker::LineFacts Walker::FactsOf(const LexResult& lex) {
  // What each command contains, found in one pass (the nesting is at most
  // a few dozen deep): the walk stays linear in the number of commands.
  LineFacts facts;
  facts.substituted.assign(lex.commands.size(), false);
  facts.recursive.assign(lex.commands.size(), false);
  for (std::size_t j = 0; j < lex.commands.size(); ++j) {
    const SimpleCommand& nested = lex.commands[j];
    if (nested.parent >= 0 && nested.nesting != Nesting::kFunctionBody &&
        !PrintsLiteralText(nested) && !PrintsAValue(nested)) {
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
  return facts;
}

void Walker::CheckAssignment(std::string_view assignment, std::string_view segment, bool exported) {
  std::size_t end = assignment.find('=');
  if (end == std::string_view::npos) return;
  std::string_view name = assignment.substr(0, end);
  if (!name.empty() && name.back() == '+') name.remove_suffix(1);
  const std::optional<AssignmentEntry> found = tables_.FindAssignment(name);
  if (!found) {
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
          "Stores the option '" + util::OneLine(value, 40) + "' in " + std::string(name) +
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
  std::string why = found->why.empty() ? "Setting " + std::string(name) + " " +
                                             std::string(GenericPhrase(found->level)) + "."
                                       : found->why;
  Add(found->level, std::move(why), segment);
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
    if (command.words.empty()) TrackValue(assignment);
  }
  CheckRedirections(command);
  const Stdin stdin_source = StdinOf(lex, command);
  if (stdin_source.kind == Stdin::Kind::kPipe) line_.piped_from = stdin_source.producer;
  if (command.words.empty()) {
    if (!command.assignments.empty() || !command.redirections.empty()) {
      Add(Level::kL0, "Only sets shell variables or opens files.", segment);
    }
  } else if (const auto expanded = KnownValues(command.words); expanded && !expanded->empty()) {
    Words(*expanded, 0, stdin_source, segment, code_depth);
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

void Walker::TrackValue(std::string_view assignment) {
  const std::size_t equals = assignment.find('=');
  if (equals == std::string_view::npos || equals == 0) return;
  const std::string name(assignment.substr(0, equals));
  if (name.back() == '+' || name.back() == ']') {  // `a+=x`, `a[1]=x`: a value not kept
    line_.values.erase(name.substr(0, name.find_first_of("+[")));
    return;
  }
  const std::string_view value = assignment.substr(equals + 1);
  // Known as written: no substitution, no array, and no expansion but the
  // home directory's (which the path checks expand themselves).
  std::string rest(value);
  for (std::string_view home : {"${HOME}", "$HOME"}) {
    for (std::size_t at = rest.find(home); at != std::string::npos; at = rest.find(home)) {
      rest.erase(at, home.size());
    }
  }
  const bool known = rest.find_first_of("$`") == std::string::npos && !(value.starts_with("(")) &&
                     value.size() <= 4096;
  if (known && line_.values.size() < 64) {
    line_.values[name] = std::string(value);
  } else {
    line_.values.erase(name);
  }
}

std::optional<std::vector<Word>> Walker::KnownValues(const std::vector<Word>& words) const {
  if (line_.values.empty()) return std::nullopt;
  auto is_name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  std::vector<Word> out;
  bool changed = false;
  for (const Word& word : words) {
    if (!word.expands || word.substitutes) {
      out.push_back(word);
      continue;
    }
    std::string text;
    bool replaced = false;
    std::optional<std::string> whole;  // the word is one variable: its value
    const std::string& in = word.text;
    for (std::size_t i = 0; i < in.size();) {
      if (in[i] != '$') {
        text.push_back(in[i++]);
        continue;
      }
      std::size_t name_start = i + 1, name_end = name_start, next = name_start;
      if (name_start < in.size() && in[name_start] == '{') {
        name_end = in.find('}', name_start);
        if (name_end == std::string::npos) {
          text.append(in, i, std::string::npos);
          break;
        }
        ++name_start;
        next = name_end + 1;
      } else {
        while (name_end < in.size() && is_name_char(in[name_end])) ++name_end;
        next = name_end;
      }
      const std::string name = in.substr(name_start, name_end - name_start);
      const auto found = line_.values.find(name);
      if (name.empty() || found == line_.values.end()) {
        text.append(in, i, next - i);
      } else {
        text += found->second;
        replaced = true;
        if (i == 0 && next == in.size()) whole = found->second;
      }
      i = std::max(next, i + 1);
    }
    if (!replaced) {
      out.push_back(word);
      continue;
    }
    changed = true;
    auto expanded = [](std::string piece, bool quoted) {
      Word w;
      w.expands = piece.find('$') != std::string::npos;
      w.text = std::move(piece);
      w.quoted = quoted;
      return w;
    };
    if (whole && !word.quoted && whole->find_first_of(" \t\n") != std::string::npos) {
      std::size_t at = 0;
      while (at < whole->size()) {
        const std::size_t start = whole->find_first_not_of(" \t\n", at);
        if (start == std::string::npos) break;
        const std::size_t end = std::min(whole->find_first_of(" \t\n", start), whole->size());
        out.push_back(expanded(whole->substr(start, end - start), false));
        at = end;
      }
    } else {
      out.push_back(expanded(std::move(text), word.quoted));
    }
  }
  if (!changed) return std::nullopt;
  return out;
}

void Walker::CheckRedirections(const SimpleCommand& command) {
  // `echo … > f`, `cat > f <<EOF`: the text the line shows the command
  // printing is the new text of the file its output goes to.
  std::optional<WriteContent> printed;
  bool printed_read = false;
  for (const Redirection& redirection : command.redirections) {
    if (redirection.WritesFile()) {
      const bool output = redirection.op != "<>" && (redirection.fd < 0 || redirection.fd == 1);
      if (output && !printed_read) {
        printed_read = true;
        if (std::optional<Printed> text = PrintedText(command)) {
          printed = ShellText(std::move(text->text));
        }
      }
      CheckWritePath(redirection.target.text, Level::kL1, Level::kL2, command.text,
                     "Redirects output to", output && printed ? &*printed : nullptr);
    } else if (redirection.ReadsFile()) {
      CheckReadPath(redirection.target.text, Level::kL0, command.text);
    }
  }
}

}  // namespace togmal::policy
