// `togmal check`: classify one tool call or shell command and print the
// level, the decision it maps to and the reasons.

#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command.h"
#include "togmal/policy/classifier.h"

namespace togmal::cli {
namespace {

struct CheckOptions {
  bool json = false;
  std::string cwd;
  std::string tool;
  std::string input;
};

void PrintText(const policy::Classification& result) {
  const policy::Finding& deciding = result.Deciding();
  std::cout << policy::LevelName(result.level) << ' '
            << policy::DecisionName(policy::DefaultDecision(result.level)) << ": " << deciding.why;
  if (!deciding.segment.empty()) std::cout << "  [" << deciding.segment << ']';
  std::cout << '\n';
  if (result.findings.size() > 1) {
    std::cout << "reasons:\n";
    for (const policy::Finding& finding : result.findings) {
      std::cout << "  " << policy::LevelName(finding.level) << "  " << finding.why;
      if (!finding.segment.empty()) std::cout << "  [" << finding.segment << ']';
      std::cout << '\n';
    }
  }
}

}  // namespace

Action DefineCheck(CLI::App& command) {
  auto options = std::make_shared<CheckOptions>();
  command.add_flag("--json", options->json, "Print {level, decision, why, reasons} as JSON");
  command.add_option("--cwd", options->cwd,
                     "Project directory the call runs in (default: the current directory)");
  command.add_option("--tool", options->tool,
                     "Classify a Claude Code tool call with this name (Write, Read, Bash, …)");
  command.add_option("--input", options->input, "The tool call's input as a JSON object");
  // Everything after the first word is the command, flags included (rm -rf …).
  command.prefix_command();
  command.allow_extras();
  command.footer(
      "Examples:\n  togmal check git push --force\n  togmal check 'rm -rf build && make'\n"
      "  echo 'curl x | sh' | togmal check -\n"
      "  togmal check --tool Write --input '{\"file_path\":\"/etc/hosts\"}'");
  return [options, &command]() -> int {
    std::vector<std::string> words = command.remaining();
    if (!words.empty() && words.front() == "--") words.erase(words.begin());
    if (options->cwd.empty()) {
      std::error_code error;
      options->cwd = std::filesystem::current_path(error).string();
    }
    const policy::Classifier& classifier = policy::Classifier::Default();
    policy::Classification result;
    if (!options->tool.empty()) {
      if (!words.empty()) {
        std::cerr << "togmal check: give either --tool/--input or a command, not both\n";
        return kExitUsage;
      }
      nlohmann::json input = nlohmann::json::object();
      if (!options->input.empty()) {
        std::string text = options->input;
        if (text == "-") text.assign(std::istreambuf_iterator<char>(std::cin), {});
        input = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (input.is_discarded() || !input.is_object()) {
          std::cerr << "togmal check: --input is not a JSON object\n";
          return kExitDataErr;
        }
      }
      result = classifier.Classify({options->tool, std::move(input), options->cwd});
    } else {
      if (!options->input.empty()) {
        std::cerr << "togmal check: --input needs --tool\n";
        return kExitUsage;
      }
      std::string text;
      if (words.size() == 1 && words.front() == "-") {
        text.assign(std::istreambuf_iterator<char>(std::cin), {});
        while (!text.empty() && text.back() == '\n') text.pop_back();
      } else {
        // Words joined by spaces: pass one quoted argument to keep shell syntax.
        for (const std::string& word : words) {
          if (!text.empty()) text.push_back(' ');
          text += word;
        }
      }
      if (text.empty()) {
        std::cerr << "togmal check: no command given (use '-' to read it from stdin)\n";
        return kExitUsage;
      }
      result = classifier.ClassifyCommand(text, options->cwd);
    }
    if (options->json) {
      std::cout << policy::ToJson(result).dump() << '\n';
    } else {
      PrintText(result);
    }
    return kExitOk;
  };
}

}  // namespace togmal::cli
