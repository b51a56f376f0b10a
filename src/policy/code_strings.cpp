// Code handed to shells, interpreters and SQL clients: a visible command
// string is walked like a command line, other code is scanned for the
// substrings of the entry's code_rules. Code finds where the code comes
// from (an option's value, a script, stdin), ShellCode and InterpreterCode
// judge it.
#include <cctype>

#include "walker.h"

namespace togmal::policy {
namespace {

/// Lower-case code with the text of its string literals removed (`print('rm
/// -rf /')` is `print('')`): only the code around them can run anything.
/// Literals that run code inside them stay: Python f-strings
/// (`f'{os.system(…)}'`) and interpolation (`"#{…}"`, `"${…}"`, `"@{[…]}"`).
/// An unbalanced quote (one in a comment) would hide code: the text is kept.
std::string OutsideLiterals(std::string_view code) {
  const std::string text = util::AsciiLower(code);
  std::string stripped;
  stripped.reserve(text.size());
  char quote = 0;
  std::size_t opened = 0;  // where the literal's text starts
  bool keep = false;       // an f-string: its text is code
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
        const std::string_view body = std::string_view(text).substr(opened, i - opened);
        if (keep || body.find("#{") != std::string_view::npos ||
            body.find("${") != std::string_view::npos ||
            body.find("@{") != std::string_view::npos) {
          stripped += body;
        }
        stripped.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      opened = i + 1;
      // f'…', rf'…', fr'…': the prefix is the letters just before the quote.
      std::size_t p = i;
      while (p > 0 && std::isalpha(static_cast<unsigned char>(text[p - 1])) && i - p < 3) --p;
      keep = std::string_view(text).substr(p, i - p).find('f') != std::string_view::npos;
    }
    stripped.push_back(c);
  }
  return quote == 0 ? stripped : text;
}

bool TokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '@' ||
         c == '.';
}

/// Code (literals removed) whose every name is one of `allowed`: it computes
/// and prints, it cannot write, delete, spawn, import other code or read the
/// environment. Numbers and operators are fine; a backtick never is.
bool OnlyPrints(std::string_view code, const std::vector<std::string>& allowed) {
  if (allowed.empty() || code.find('`') != std::string_view::npos) return false;
  bool printed = false;
  for (std::size_t i = 0; i < code.size();) {
    if (!TokenChar(code[i])) {
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < code.size() && TokenChar(code[end])) ++end;
    std::string_view token = code.substr(i, end - i);
    i = end;
    if (std::isdigit(static_cast<unsigned char>(token.front()))) continue;  // a number
    while (!token.empty() && token.back() == '.') token.remove_suffix(1);
    if (token.empty()) continue;
    if (!util::NameIn(token, allowed)) return false;
    printed = true;
  }
  return printed;
}

/// The interpreter's options leave the code alone: `-r MODULE`, `-M`, `-I
/// DIR`, python's `-W` (which imports a warning category's module) and the
/// like load other code first, so only these are allowed for code that
/// only prints.
bool PlainOptions(const std::vector<Word>& words, std::size_t index) {
  static constexpr std::string_view kPlain[] = {"-c", "-e", "-E",  "-p", "--eval", "--print",
                                                "-B", "-I", "-S",  "-s", "-u",     "-q",
                                                "-P", "-O", "-OO", "-l"};
  bool value_next = false;  // the word after a code option is the code
  for (std::size_t i = index + 1; i < words.size(); ++i) {
    const std::string& text = words[i].text;
    if (value_next) {
      value_next = false;
      continue;
    }
    if (!IsOptionWord(text)) continue;
    bool plain = false;
    for (std::string_view option : kPlain) plain = plain || text == option;
    if (!plain) return false;
    value_next = text == "-c" || text == "-e" || text == "-E" || text == "-p" || text == "--eval" ||
                 text == "--print";
  }
  return true;
}

/// Finds the code on a command line: an option's value (-c CODE,
/// --command=CODE); for shells any short-option cluster with c (-lc, -ec)
/// makes the first operand code. perl, ruby, R and node take the option more
/// than once (`perl -e 'print 1' -e 'system(...)'`): every value is code, so
/// they are judged together.
CodeOperands FindCodeOperands(const CommandNode& node, const std::vector<Word>& words,
                              std::size_t index) {
  CodeOperands found;
  bool shell_c = false;
  auto add_code = [&found](std::string_view code) {
    if (found.code) {
      *found.code += '\n';
      *found.code += code;
    } else {
      found.code = std::string(code);
    }
  };
  for (std::size_t j = index + 1; j < words.size(); ++j) {
    const std::string& text = words[j].text;
    if (text == "--") {
      if (j + 1 < words.size() && !found.code) {
        (shell_c ? found.code : found.script) = words[j + 1].text;
      }
      break;
    }
    if (text == "-") {
      found.reads_stdin_explicitly = true;
      break;
    }
    if (IsOptionWord(text)) {
      bool is_code_option = false;
      for (const std::string& option : node.code_options) {
        if (text == option) {
          is_code_option = true;
          if (node.runs != Runs::kShell && j + 1 < words.size()) {
            add_code(words[j + 1].text);
            ++j;
          }
        } else if (option.size() > 2 && text.size() > option.size() &&
                   text.compare(0, option.size() + 1, option + "=") == 0) {
          is_code_option = true;
          add_code(std::string_view(text).substr(option.size() + 1));
        } else if (option.size() == 2 && node.runs != Runs::kShell && text.size() > 2 &&
                   text[1] != '-' && text.compare(0, 2, option) == 0) {
          is_code_option = true;  // -c"code" written together
          add_code(std::string_view(text).substr(2));
        }
      }
      if (node.runs == Runs::kShell && text[1] != '-' && text.find('c') != std::string::npos) {
        shell_c = true;
        is_code_option = true;
      }
      // php -S ADDR: an operand_values option's value is no script.
      if (!is_code_option && (util::NameIn(text, node.options_with_value) ||
                              util::NameIn(text, node.operand_values))) {
        ++j;
      }
      continue;
    }
    // After code given as an option, the operands are its arguments or input
    // files (`perl -ne 'print' log.txt`), not a script to run.
    if (shell_c) {
      found.code = text;
    } else if (!found.code) {
      found.script = text;
    }
    break;
  }
  return found;
}

/// The operands after `index`, joined by blanks: a command string, or the
/// statements an SQL client is given.
std::string JoinedOperands(const CommandNode& node, const std::vector<Word>& words,
                           std::size_t index) {
  const ArgView view = ViewArgs(words, index + 1, node.options_with_value);
  std::string joined;
  for (std::string_view arg : view.positionals) {
    if (!joined.empty()) joined.push_back(' ');
    joined += arg;
  }
  return joined;
}

/// A command given as words (`watch -n 1 make test`): everything from the
/// first operand on, its own options included (`rm -rf` stays `rm -rf`).
std::string CommandWords(const CommandNode& node, const std::vector<Word>& words,
                         std::size_t index) {
  std::string joined;
  for (std::size_t i = CommandWordsStart(node, words, index); i < words.size(); ++i) {
    if (!joined.empty()) joined.push_back(' ');
    joined += words[i].text;
  }
  return joined;
}

/// A command string a `runs: command_string` entry takes as an option's
/// value (`nix-shell [FILE] --run CMD`): every value of its code_options,
/// wherever they stand, judged together (nix-shell runs the last of several).
/// Without code_options, the command is its words (CommandWords).
std::string CommandString(const CommandNode& node, const std::vector<Word>& words,
                          std::size_t index) {
  if (node.code_options.empty()) return CommandWords(node, words, index);
  std::string joined;
  auto add = [&joined](std::string_view code) {
    if (!joined.empty()) joined.push_back('\n');
    joined += code;
  };
  for (std::size_t j = index + 1; j < words.size(); ++j) {
    const std::string_view text = words[j].text;
    if (text == "--") break;
    for (const std::string& option : node.code_options) {
      if (text == option && j + 1 < words.size()) {
        add(words[++j].text);
        break;
      }
      if (text.size() > option.size() && text.starts_with(option) && text[option.size()] == '=') {
        add(text.substr(option.size() + 1));
        break;
      }
    }
  }
  return joined;
}

}  // namespace

std::size_t CommandWordsStart(const CommandNode& node, const std::vector<Word>& words,
                              std::size_t index) {
  // `ssh -p 2222 host -t ls`: options may come before and after the words the
  // program consumes first (skip_positionals: the host).
  int to_skip = node.skip_positionals;
  std::size_t i = index + 1;
  while (i < words.size()) {
    const std::string_view text = words[i].text;
    if (text == "--") {
      ++i;
      while (to_skip > 0 && i < words.size()) --to_skip, ++i;
      return i;
    }
    if (IsOptionWord(text)) {
      if (util::NameIn(text, node.options_with_value)) ++i;
      ++i;
      continue;
    }
    if (to_skip == 0) return i;
    --to_skip;
    ++i;
  }
  return words.size();
}

Level Walker::ScanText(const CommandNode& node, std::string_view code, std::string* why) const {
  std::string text = node.runs == Runs::kSql ? util::AsciiLower(code) : OutsideLiterals(code);
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
    const std::string code = CommandString(node, words, index);
    Add(level, quoted_name + " runs the command it is given.", segment);
    if (!code.empty()) Line(code, SegmentOrigin::kShellString, code_depth + 1);
    return;
  }
  CodeOperands operands = FindCodeOperands(node, words, index);
  if (node.runs == Runs::kShell) {
    ShellCode(level, operands, stdin_source, segment, quoted_name, code_depth);
    return;
  }
  InterpreterCode(node, level, words, index, std::move(operands), stdin_source, segment,
                  quoted_name);
}

void Walker::RuledCode(const CommandNode& node, const std::vector<Word>& words, std::size_t index,
                       std::string_view segment, int code_depth) {
  if (node.runs == Runs::kCommandString) {
    const std::string code = CommandString(node, words, index);
    if (!code.empty()) Line(code, SegmentOrigin::kShellString, code_depth + 1);
    return;
  }
  if (node.runs != Runs::kShell && node.runs != Runs::kInterpreter && node.runs != Runs::kSql) {
    return;
  }
  // Only code written on the line: the rule already judged a script, a
  // database or a session with none.
  const CodeOperands operands = FindCodeOperands(node, words, index);
  if (!operands.code) return;
  if (node.runs == Runs::kShell) {
    Line(*operands.code, SegmentOrigin::kShellString, code_depth + 1);
    return;
  }
  std::string why;
  const Level level = ScanText(node, *operands.code, &why);
  if (!why.empty()) Add(level, std::move(why), segment);
}

void Walker::ShellCode(Level level, const CodeOperands& operands, const Stdin& stdin_source,
                       std::string_view segment, const std::string& quoted_name, int code_depth) {
  if (operands.code) {
    Add(Max(level, Level::kL2), quoted_name + " runs a command string.", segment);
    Line(*operands.code, SegmentOrigin::kShellString, code_depth + 1);
    return;
  }
  if (operands.script && !operands.reads_stdin_explicitly) {
    Add(level, quoted_name + " runs the script '" + util::OneLine(*operands.script, 80) + "'.",
        segment);
    CheckReadPath(*operands.script, level, segment);
    return;
  }
  if (stdin_source.kind == Stdin::Kind::kText) {
    Add(Max(level, Level::kL2), quoted_name + " runs the commands fed to it on stdin.", segment);
    Line(stdin_source.text, SegmentOrigin::kShellStdin, code_depth + 1);
    return;
  }
  if (stdin_source.kind == Stdin::Kind::kPipe) {
    Add(Level::kL3,
        "Piping into " + quoted_name + " runs whatever '" +
            util::OneLine(stdin_source.producer, 80) +
            "' prints (safer: save it to a file, read it, then run the file).",
        segment);
    if (stdin_source.known) Line(stdin_source.text, SegmentOrigin::kShellStdin, code_depth + 1);
    return;
  }
  BareInterpreter(level, quoted_name, "shell interpreter", segment);
}

void Walker::BareInterpreter(Level level, const std::string& quoted_name, std::string_view kind,
                             std::string_view segment) {
  if (line_.in_container) {
    // `docker exec -it web sh`: the ordinary way into a container. What is
    // typed there is the person's; the host's own prompt asks first.
    Add(Max(level, Level::kL2),
        quoted_name + " with no code opens an interactive session inside the container.", segment);
    return;
  }
  Add(Level::kL3,
      quoted_name + " is a bare " + std::string(kind) + ": what it runs is not visible.", segment);
}

void Walker::InterpreterCode(const CommandNode& node, Level level, const std::vector<Word>& words,
                             std::size_t index, CodeOperands operands, const Stdin& stdin_source,
                             std::string_view segment, const std::string& quoted_name) {
  const bool sql = node.runs == Runs::kSql;
  auto scan = [&](std::string_view text, std::string_view where) {
    std::string reason;
    const Level scanned = ScanText(node, text, &reason);
    // Code that only prints (`python -c "print(sys.version)"`) changes
    // nothing; right after a write in this line it could import what was written.
    if (!sql && reason.empty() && level == node.level && !line_.wrote_before &&
        PlainOptions(words, index) && OnlyPrints(OutsideLiterals(text), node.print_only)) {
      Add(Level::kL1, quoted_name + " runs code that only prints " + std::string(where) + ".",
          segment);
      return;
    }
    if (reason.empty()) {
      reason = quoted_name + (sql ? " runs statements " : " runs code ") + std::string(where) + ".";
    }
    Add(sql ? scanned : Max(scanned, level), reason, segment);
  };
  if (!operands.code && sql && operands.script) {
    // sqlite3 DB "SQL", redis-cli FLUSHALL: the operands are the statement.
    operands.code = JoinedOperands(node, words, index);
  }
  if (operands.code) {
    scan(*operands.code, "given on its command line");
    return;
  }
  if (operands.script && !operands.reads_stdin_explicitly) {
    Add(level,
        quoted_name + (sql ? " runs statements on a database." : " runs the program '") +
            (sql ? "" : util::OneLine(*operands.script, 80) + "'."),
        segment);
    CheckReadPath(*operands.script, level, segment);
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
          quoted_name + " runs statements that '" + util::OneLine(stdin_source.producer, 80) +
              "' prints (safer: save it to a file, read it, then run the file).",
          segment);
    } else {
      Add(Level::kL3,
          "Piping into " + quoted_name + " runs whatever '" +
              util::OneLine(stdin_source.producer, 80) +
              "' prints (safer: save it to a file, read it, then run the file).",
          segment);
    }
    return;
  }
  if (sql) {
    Add(level, quoted_name + " opens a database session.", segment);
    return;
  }
  BareInterpreter(level, quoted_name, "interpreter", segment);
}

}  // namespace togmal::policy
