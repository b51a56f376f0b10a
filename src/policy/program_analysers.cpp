// Programs that run commands or write files through their own scripts:
// sed (`e`, `s///e`, `w FILE`), awk (`system()`, pipes, `print > FILE`),
// `alias`/`trap` bodies, and commands that print secrets to the agent.
// A sed command line's scripts are found first (SedScriptsGiven), then each
// is read command by command (SedCommands).
#include <algorithm>
#include <cctype>
#include <iterator>
#include <span>
#include <string_view>
#include <vector>

#include "walker.h"

namespace togmal::policy {
namespace {

/// The rest of the line from `i` (sed's `w FILE`, `r FILE`, `e CMD`), trimmed.
std::string_view RestOfLine(std::string_view script, std::size_t& i) {
  while (i < script.size() && (script[i] == ' ' || script[i] == '\t')) ++i;
  const std::size_t end = std::min(script.find('\n', i), script.size());
  std::string_view rest = script.substr(i, end - i);
  i = end;
  return rest;
}

/// Skips a sed regex or replacement delimited by `delim`, from just after the opening one.
void SkipDelimited(std::string_view script, std::size_t& i, char delim) {
  while (i < script.size() && script[i] != delim && script[i] != '\n') {
    if (script[i] == '\\' && i + 1 < script.size()) ++i;
    ++i;
  }
  if (i < script.size() && script[i] == delim) ++i;
}

/// Whether a `/` at `i` opens an awk regex (not a division): nothing but
/// blanks or an operator that expects an operand before it.
bool RegexMayStart(std::string_view program, std::size_t i) {
  while (i > 0 && (program[i - 1] == ' ' || program[i - 1] == '\t')) --i;
  if (i == 0) return true;
  const char before = program[i - 1];
  return before == '(' || before == '~' || before == '!' || before == ',' || before == '{' ||
         before == ';' || before == '&' || before == '|' || before == '\n' || before == '}';
}

/// Unpacking an archive writes files the command line does not name (`tar
/// xf x.tar`, `unzip x.zip`, `7z x`, `gunzip Makefile.gz`). `entry_name`:
/// Walker::EntryName. The other archivers are listed by name: the table
/// groups them by their options (7z with unzip, gunzip with gzip), not by
/// whether they unpack.
bool Unpacks(std::string_view name, std::string_view entry_name, const std::vector<Word>& words,
             std::size_t start) {
  if (util::NameIn(name, {"unzip", "gunzip", "bunzip2", "unxz", "unzstd", "uncompress", "unrar"})) {
    return true;
  }
  if (util::NameIn(name, {"7z", "7za", "7zz"})) {
    for (std::size_t i = start + 1; i < words.size(); ++i) {
      if (IsOptionWord(words[i].text)) continue;
      return words[i].text == "x" || words[i].text == "e";
    }
    return false;
  }
  if (entry_name != "tar") return false;
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (text == "--extract" || text == "--get") return true;
    // `tar xf`, `tar -xzf`: the first word may be a cluster without a dash.
    const bool cluster = (text.size() > 1 && text[0] == '-' && text[1] != '-') ||
                         (i == start + 1 && !text.empty() && text[0] != '-');
    if (cluster && text.find('x') != std::string::npos) return true;
  }
  return false;
}

bool SecretName(std::string_view name) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (std::string_view part : {"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE",
                                "APIKEY", "API_KEY", "ACCESS_KEY", "AUTH"}) {
    if (upper.find(part) != std::string::npos) return true;
  }
  return upper.size() > 4 && (upper.ends_with("_KEY") || upper.ends_with("_PAT"));
}

/// `$NAME` or `${NAME…}` in a word, with NAME a secret's name.
bool ExpandsSecret(std::string_view text) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '$') continue;
    std::size_t from = i + 1;
    if (text[from] == '{') ++from;
    if (from < text.size() && text[from] == '!') ++from;  // ${!prefix*}
    std::size_t to = from;
    while (to < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[to])) || text[to] == '_')) {
      ++to;
    }
    if (to > from && SecretName(text.substr(from, to - from))) return true;
    i = to > i ? to - 1 : i;
  }
  return false;
}

/// Output-file spellings many programs share. Only a command that changes
/// something is judged by them: `grep -o` and `journalctl --output=json` are
/// no files.
constexpr std::string_view kSharedOutputOptions[] = {
    "-o", "--output", "--output-file", "-fprint", "-fprintf", "-fprint0", "-fls", "--log-file"};

/// The files a command names with one of `options` as its outputs: `-o F`,
/// `--output=F` (`-coverprofile=F`), and for a short option that takes a
/// value, `-oF`, `-o=F` (Go's flags) and a cluster ending in it (`-so/etc/x`
/// is `-s -o /etc/x`, as getopt reads it). A `single_dash_long` program
/// reads one-dash words whole: only `-o F` and `-o=F` name its output.
std::vector<std::string_view> OutputFiles(const CommandNode& entry,
                                          std::span<const std::string_view> options,
                                          const std::vector<Word>& words, std::size_t start,
                                          bool single_dash_long) {
  std::vector<std::string_view> files;
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    std::string_view text = words[i].text;
    if (text == "--") break;
    const bool has_next = i + 1 < words.size();
    const ShortCluster cluster =
        ReadCluster(text, {&entry.options_with_value, &entry.output_options});
    for (std::string_view option : options) {
      if (text == option) {
        if (has_next) files.push_back(words[i + 1].text);
      } else if (option.size() > 2) {
        // `--output=F`, and Go's one-dash spelling `-coverprofile=F`.
        if (text.size() > option.size() && text.starts_with(option) && text[option.size()] == '=') {
          files.push_back(text.substr(option.size() + 1));
        }
      } else if (option.size() == 2 && cluster.takes_value && cluster.letters.back() == option[1]) {
        // A short option in a cluster of flags: what follows it is the value.
        if (cluster.letters.size() == 1 && cluster.value.starts_with('=')) {
          files.push_back(cluster.value.substr(1));  // Go's flags: `-o=F` is F
        } else if (!single_dash_long && !cluster.value.empty()) {
          files.push_back(cluster.value);
        } else if (!single_dash_long && has_next) {
          files.push_back(words[i + 1].text);  // `-so F`
        }
      }
    }
  }
  return files;
}

/// The option letters of an `old_style_options` program's first word
/// written without a dash (`tar czf`); empty when it has none.
std::string_view OldStyleLetters(const CommandNode& entry, const std::vector<Word>& words,
                                 std::size_t start) {
  if (!entry.old_style_options || start + 1 >= words.size()) return {};
  const std::string_view first = words[start + 1].text;
  if (first.starts_with('-')) return {};
  std::size_t end = 0;
  while (end < first.size() && std::isalpha(static_cast<unsigned char>(first[end])) != 0) ++end;
  return first.substr(0, end);
}

/// A program writing its archive (an option of `writes_archive`: tar's
/// `-c`, `-r`, `-u`) writes the file its `archive_options` name (`tar -czf
/// ~/.bashrc .` replaces the start-up file). In the old style (`tar cfC
/// ARCHIVE DIR`) the letters that take a value take the next words in turn.
std::vector<std::string_view> PackedArchives(const CommandNode& entry,
                                             const std::vector<Word>& words, std::size_t start) {
  if (entry.writes_archive.empty()) return {};
  const auto any_writes = [&entry](std::string_view letters) {
    for (char letter : letters) {
      if (util::NameIn(std::string{'-', letter}, entry.writes_archive)) return true;
    }
    return false;
  };
  const std::string_view old_style = OldStyleLetters(entry, words, start);
  bool writes = any_writes(old_style);
  for (std::size_t i = start + 1; i < words.size() && !writes; ++i) {
    const std::string& text = words[i].text;
    if (text == "--") break;
    // The letters before a value (`-C/dir`, `-f/x`): a later `c` is the value's.
    writes = util::NameIn(text, entry.writes_archive) ||
             any_writes(ReadCluster(text, {&entry.options_with_value}).letters);
  }
  if (!writes) return {};
  const std::vector<std::string_view> archive_options(entry.archive_options.begin(),
                                                      entry.archive_options.end());
  std::vector<std::string_view> archives = OutputFiles(entry, archive_options, words, start, false);
  std::size_t value = start + 2;
  for (char letter : old_style) {
    const std::string option{'-', letter};
    if (!util::NameIn(option, entry.options_with_value)) continue;
    if (value < words.size() && util::NameIn(option, entry.archive_options)) {
      archives.push_back(words[value].text);  // `tar cf ARCHIVE …`
    }
    ++value;
  }
  return archives;
}

}  // namespace

void Walker::AnalyseProgram(const JudgedCommand& command, std::string_view name,
                            const std::vector<Word>& words, std::size_t start,
                            std::string_view segment, int code_depth) {
  const CommandNode& entry = *command.path.front().node;
  const Level level = command.level;
  // The table's `analyser` key chooses the program-specific analyser.
  const std::string& analyser = entry.analyser;
  if (analyser == "sed") SedScript(words, start, segment);
  if (analyser == "awk") AwkProgram(words, start, segment);
  if (analyser == "shell_bodies") ShellBodies(name, words, start, segment, code_depth);
  const std::string_view entry_name = EntryName(name);
  SecretsShown(name, entry_name, words, start, segment);
  CredentialSearch(entry, name, entry_name, words, start, segment);
  if (analyser == "package_script") PackageScript(entry, words, start, segment, code_depth);
  if (analyser == "git") GitElsewhere(entry, words, start, segment);
  // A command that changes something and names its output file (`sort -o F`,
  // `gcc -o F`, `find -fprint F`): F is written. An option the table declares
  // as an output (`output_options` of the program or of a subcommand on the
  // way: `git shortlog --output=F`, `wget -O F`) writes F whatever the
  // command's level: a command that only reads still writes there.
  const bool single_dash_long = command.path.back().single_dash_long;
  std::vector<std::string_view> written;
  if (level >= Level::kL1)
    written = OutputFiles(entry, kSharedOutputOptions, words, start, single_dash_long);
  for (const PathStep& step : command.path) {
    if (step.node->output_options.empty()) continue;
    const std::vector<std::string_view> declared(step.node->output_options.begin(),
                                                 step.node->output_options.end());
    for (std::string_view file :
         OutputFiles(*step.node, declared, words, step.index, single_dash_long)) {
      written.push_back(file);
    }
  }
  for (std::string_view archive : PackedArchives(entry, words, start)) {
    written.push_back(archive);
  }
  // `wget -o log` names -o in both lists: one finding per word, in order.
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (std::find(written.begin(), written.begin() + static_cast<std::ptrdiff_t>(i), written[i]) ==
        written.begin() + static_cast<std::ptrdiff_t>(i)) {
      CheckWritePath(written[i], Level::kL1, Level::kL2, segment, "Writes");
    }
  }
  if (level >= Level::kL1 && !line_.cwd_unknown && line_.cwd_in_project &&
      Unpacks(name, entry_name, words, start)) {
    line_.wrote_file = true;
  }
  WriteThenRun(entry, level, segment);
}

void Walker::GitElsewhere(const CommandNode& entry, const std::vector<Word>& words,
                          std::size_t start, std::string_view segment) {
  std::vector<Word> lowered;
  for (std::size_t i = start + 1; i + 1 < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (!IsOptionWord(text)) break;  // the subcommand: global options end here
    if (text == "-C" && !InsideProject(words[i + 1].text)) {
      Add(Level::kL2,
          "git -C works in '" + util::OneLine(words[i + 1].text, 80) +
              "', another repository whose settings and hooks then run.",
          segment);
    }
    if (text == "-c" && util::AsciiLower(words[i + 1].text) != words[i + 1].text) {
      // Setting names ignore case: `Core.Pager=…` is core.pager.
      lowered.push_back(words[i]);
      lowered.push_back(words[i + 1]);
      lowered.back().text = util::AsciiLower(lowered.back().text);
    }
    if (util::NameIn(text, entry.options_with_value)) ++i;
  }
  if (lowered.empty()) return;
  const ArgView view = ViewArgs(lowered, 0, entry.options_with_value);
  for (const ArgRule& rule : entry.rules) {
    if (RuleMatches(rule, view, tables_.settings.profile)) {
      Add(rule.level, rule.why, segment);
      return;
    }
  }
}

void Walker::SedScript(const std::vector<Word>& words, std::size_t start,
                       std::string_view segment) {
  for (std::string_view script : SedScriptsGiven(words, start, segment)) {
    SedCommands(script, segment);
  }
}

std::vector<std::string_view> Walker::SedScriptsGiven(const std::vector<Word>& words,
                                                      std::size_t start, std::string_view segment) {
  std::vector<std::string_view> scripts;
  bool explicit_script = false;
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (text == "-e" || text == "--expression" || text == "-f" || text == "--file") {
      explicit_script = true;
      if (i + 1 >= words.size()) break;
      if (text == "-f" || text == "--file") {
        Add(Level::kL2,
            "sed runs a script from '" + util::OneLine(words[i + 1].text, 80) +
                "', which togmal cannot read (it may run commands or write files).",
            segment);
      } else {
        scripts.push_back(words[i + 1].text);
      }
      ++i;
      continue;
    }
    if (text.rfind("--expression=", 0) == 0) {
      explicit_script = true;
      scripts.push_back(std::string_view(text).substr(13));
    } else if (text.rfind("--file=", 0) == 0 || (text.size() > 2 && text.rfind("-f", 0) == 0)) {
      explicit_script = true;
      Add(Level::kL2, "sed runs a script from a file togmal cannot read.", segment);
    } else if (text.size() > 2 && text.rfind("-e", 0) == 0) {
      explicit_script = true;
      scripts.push_back(std::string_view(text).substr(2));
    } else if (!IsOptionWord(text) && !explicit_script && !text.empty()) {
      scripts.push_back(text);
      break;
    }
  }
  return scripts;
}

void Walker::SedCommands(std::string_view script, std::string_view segment) {
  std::size_t i = 0;
  while (i < script.size()) {
    const char c = script[i];
    if (c == ';' || c == ' ' || c == '\t' || c == '\n' || c == '{' || c == '}' || c == '!' ||
        c == ',' || c == '$' || std::isdigit(static_cast<unsigned char>(c)) || c == '~') {
      ++i;
      continue;
    }
    if (c == '/' || c == '\\') {  // an address: /re/ or \cREc
      char delim = '/';
      if (c == '\\' && i + 1 < script.size()) delim = script[++i];
      ++i;
      SkipDelimited(script, i, delim);
      while (i < script.size() && (script[i] == 'I' || script[i] == 'M')) ++i;
      continue;
    }
    ++i;
    if (c == 's' || c == 'y') {
      if (i >= script.size()) break;
      const char delim = script[i++];
      SkipDelimited(script, i, delim);
      SkipDelimited(script, i, delim);
      if (c == 'y') continue;
      while (i < script.size() && script[i] != ';' && script[i] != '\n' && script[i] != '}') {
        const char flag = script[i++];
        if (flag == 'e') {
          Add(Level::kL3, "The sed substitution's e flag runs its result as a shell command.",
              segment);
        } else if (flag == 'w' || flag == 'W') {
          CheckWritePath(RestOfLine(script, i), Level::kL1, Level::kL2, segment, "sed writes to");
        }
      }
    } else if (c == 'e') {
      Add(Level::kL3, "The sed e command runs a shell command.", segment);
      RestOfLine(script, i);
    } else if (c == 'w' || c == 'W') {
      CheckWritePath(RestOfLine(script, i), Level::kL1, Level::kL2, segment, "sed writes to");
    } else if (c == 'r' || c == 'R') {
      CheckReadPath(RestOfLine(script, i), Level::kL0, segment);
    } else if (c == 'a' || c == 'i' || c == 'c' || c == ':' || c == 'b' || c == 't' || c == 'T') {
      // Text or a label: up to the end of the line (labels also end at ';').
      while (i < script.size() && script[i] != '\n' &&
             (c == 'a' || c == 'i' || c == 'c' || script[i] != ';')) {
        ++i;
      }
    }
  }
}

void Walker::AwkProgram(const std::vector<Word>& words, std::size_t start,
                        std::string_view segment) {
  std::string_view program;
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (text == "-f" || text.rfind("--file", 0) == 0 ||
        (text.size() > 2 && text.rfind("-f", 0) == 0)) {
      Add(Level::kL2, "awk runs a program from a file togmal cannot read (it may run commands).",
          segment);
      return;
    }
    if (text == "-v" || text == "-F") {
      ++i;
      continue;
    }
    if (text == "--") continue;
    if (!IsOptionWord(text)) {
      program = text;
      break;
    }
  }
  // Outside string literals: `|` (pipes to or from a command), system(),
  // and `print > "file"`.
  bool in_string = false;
  std::size_t statement = 0;  // where the current statement starts
  for (std::size_t i = 0; i < program.size(); ++i) {
    const char c = program[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '/' && RegexMayStart(program, i)) {
      // A regex literal (`/a|b/`): its `|` is alternation, not a pipe.
      std::size_t end = i + 1;
      while (end < program.size() && program[end] != '/' && program[end] != '\n') {
        if (program[end] == '\\') ++end;
        ++end;
      }
      i = end;
    } else if (c == ';' || c == '{' || c == '}' || c == '\n') {
      statement = i + 1;
    } else if (c == '|' && (i + 1 >= program.size() || program[i + 1] != '|') &&
               (i == 0 || program[i - 1] != '|')) {
      Add(Level::kL3, "The awk program pipes to or from a shell command.", segment);
      return;
    } else if (c == '(' && i >= 6) {
      std::size_t back = i;
      while (back > 0 && (program[back - 1] == ' ' || program[back - 1] == '\t')) --back;
      if (back >= 6 && program.substr(back - 6, 6) == "system") {
        Add(Level::kL3, "The awk program runs shell commands through system().", segment);
        return;
      }
    } else if (c == '>' &&
               program.substr(statement, i - statement).find("print") != std::string_view::npos) {
      std::size_t j = i + 1;
      if (j < program.size() && program[j] == '>') ++j;
      while (j < program.size() && program[j] == ' ') ++j;
      if (j < program.size() && program[j] == '"') {
        const std::size_t end = program.find('"', j + 1);
        if (end == std::string_view::npos) continue;
        CheckWritePath(program.substr(j + 1, end - j - 1), Level::kL1, Level::kL2, segment,
                       "awk writes to");
        i = end;
      } else {
        Add(Level::kL2, "The awk program writes to a file named only at run time.", segment);
      }
    }
  }
}

void Walker::ShellBodies(std::string_view name, const std::vector<Word>& words, std::size_t start,
                         std::string_view segment, int code_depth) {
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (IsOptionWord(text)) continue;
    if (name == "alias") {
      // alias NAME=BODY: later uses of NAME run BODY.
      const std::size_t eq = text.find('=');
      if (eq == std::string::npos || eq + 1 >= text.size()) continue;
      Add(Level::kL1, "Defines the alias '" + util::OneLine(text.substr(0, eq), 40) + "'.",
          segment);
      Line(std::string_view(text).substr(eq + 1), SegmentOrigin::kShellString, code_depth + 1);
      continue;
    }
    // trap BODY SIGNAL…: BODY runs when the signal (or EXIT) arrives.
    if (text != "-" && !text.empty() && i + 1 < words.size()) {
      Line(text, SegmentOrigin::kShellString, code_depth + 1);
    }
    return;
  }
}

void Walker::SecretsShown(std::string_view name, std::string_view entry_name,
                          const std::vector<Word>& words, std::size_t start,
                          std::string_view segment) {
  const Level level = tables_.settings.secrets_output;
  if (level == Level::kL0) return;
  const std::size_t operands = words.size() - start - 1;
  if (util::NameIn(name, {"printenv", "env"}) ||
      (util::NameIn(name, {"set", "export", "declare", "typeset"}) &&
       (operands == 0 || words[start + 1].text == "-p"))) {
    bool all = true;
    for (std::size_t i = start + 1; i < words.size(); ++i) {
      if (!IsOptionWord(words[i].text)) {
        all = false;
        if (SecretName(words[i].text)) {
          Add(level,
              "Prints the secret variable '" + util::OneLine(words[i].text, 40) + "' to the agent.",
              segment);
          return;
        }
      }
    }
    if (all)
      Add(level, "Prints the environment, where tokens and passwords live, to the agent.", segment);
    return;
  }
  if (!util::NameIn(entry_name, {"echo", "printf"})) return;
  for (std::size_t i = start + 1; i < words.size(); ++i) {
    if (words[i].expands && ExpandsSecret(words[i].text)) {
      Add(level,
          "Prints a secret variable ('" + util::OneLine(words[i].text, 40) + "') to the agent.",
          segment);
      return;
    }
  }
}

}  // namespace togmal::policy
