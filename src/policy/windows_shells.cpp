// Windows shells: `cmd /c …` and `pwsh`/`powershell -Command …` run the
// command string that follows, classified like any command line (PowerShell
// cmdlets such as Remove-Item are table entries); `-EncodedCommand` hides
// what runs; a script file is a project script.
#include "walker.h"

namespace togmal::policy {
namespace {

/// `-Co`, `-com`, `-Command` all name -Command: PowerShell accepts any
/// unambiguous prefix, in any case.
bool PrefixOf(std::string_view key, std::string_view parameter, std::size_t shortest) {
  return key.size() >= shortest && key.size() <= parameter.size() &&
         parameter.substr(0, key.size()) == key;
}

}  // namespace

void Walker::WindowsShell(Level level, const std::vector<Word>& words, std::size_t index,
                          std::string_view segment, std::string_view name, int code_depth) {
  const std::string quoted_name = "'" + std::string(name) + "'";
  const std::string program = util::AsciiLower(name);
  const bool cmd = program == "cmd";
  std::optional<std::string> code;
  for (std::size_t j = index + 1; j < words.size(); ++j) {
    const std::string lower = util::AsciiLower(words[j].text);
    if (cmd) {
      if (lower == "/c" || lower == "/k" || lower == "/r") {
        code = Join(words, j + 1, words.size());
        break;
      }
      continue;  // /q, /d, /s, /v:on …
    }
    if (lower.size() > 1 && (lower.front() == '-' || lower.front() == '/')) {
      std::string_view key = std::string_view(lower).substr(lower[1] == '-' ? 2 : 1);
      if (key == "ec" || PrefixOf(key, "encodedcommand", 1)) {
        Add(Level::kL3,
            quoted_name + " runs an encoded command: what it runs cannot be read before it runs.",
            segment);
        return;
      }
      if (PrefixOf(key, "command", 1) || key == "cmd") {
        code = Join(words, j + 1, words.size());
        break;
      }
      if (PrefixOf(key, "file", 1)) {
        Add(Max(level, Level::kL2),
            quoted_name + " runs the script '" +
                (j + 1 < words.size() ? util::OneLine(words[j + 1].text, 80) : std::string()) +
                "'.",
            segment);
        return;
      }
      for (std::string_view with_value :
           {"executionpolicy", "ep", "workingdirectory", "wd", "windowstyle", "configurationname",
            "outputformat", "of", "inputformat", "settingsfile", "custompipename", "version"}) {
        if (key == with_value || (key.size() > 2 && PrefixOf(key, with_value, 3))) {
          ++j;
          break;
        }
      }
      continue;
    }
    // The first operand: a script file (`pwsh build.ps1`), else the command.
    if (lower.ends_with(".ps1")) {
      Add(Max(level, Level::kL2),
          quoted_name + " runs the script '" + util::OneLine(words[j].text, 80) + "'.", segment);
      return;
    }
    code = Join(words, j, words.size());
    break;
  }
  if (!code) {
    BareInterpreter(level, quoted_name, "shell interpreter", segment);
    return;
  }
  Add(Max(level, Level::kL2), quoted_name + " runs a command string.", segment);
  Line(*code, SegmentOrigin::kShellString, code_depth + 1);
}

}  // namespace togmal::policy
