// `togmal check`: what would happen to one tool call or shell command, decided
// exactly as the hook decides it (check::Judge: classifier, rules, the
// hook.levels mapping), without recording a decision. A deny or ask's allow
// code is remembered in the database, so that `togmal allow CODE` accepts it.

#include <filesystem>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coded_call.h"
#include "command.h"
#include "database_option.h"
#include "togmal/check/judge.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/json_parse.h"
#include "togmal/util/text.h"

namespace togmal::cli {
namespace {

struct CheckOptions {
  DatabaseOption db;
  bool json = false;
  std::string cwd;
  std::string tool;
  std::string input;
  std::string permission_mode = "default";
};

// The reason without its "togmal L2: " prefix: the line starts with the level.
std::string_view WithoutPrefix(std::string_view reason) {
  if (reason.starts_with("togmal L") && reason.size() > 11 && reason.substr(9, 2) == ": ") {
    return reason.substr(11);
  }
  return reason;
}

void PrintText(const rules::Decision& decision) {
  std::cout << policy::LevelName(decision.level) << ' '
            << rules::PermissionName(decision.permission) << ": " << WithoutPrefix(decision.reason)
            << '\n';
  if (decision.findings.size() > 1 || decision.source != rules::Source::kClassifier) {
    std::cout << "reasons:\n";
    for (const policy::Finding& finding : decision.findings) {
      std::cout << "  " << policy::LevelName(finding.level) << "  " << finding.why;
      if (!finding.segment.empty())
        std::cout << "  [" << util::OneLine(finding.segment, 160) << ']';
      std::cout << '\n';
    }
  }
}

}  // namespace

Action DefineCheck(CLI::App& command) {
  auto options = std::make_shared<CheckOptions>();
  options->db = AddDatabaseOption(command);
  command.add_flag("--json", options->json,
                   "Print {level, decision (allow, pass, ask or deny), why, reasons} as JSON");
  command.add_option("--cwd", options->cwd,
                     "Project directory the call runs in (default: the current directory)");
  command.add_option("--tool", options->tool,
                     "Classify a Claude Code tool call with this name (Write, Read, Bash, …)");
  command.add_option("--input", options->input, "The tool call's input as a JSON object");
  command
      .add_option("--permission-mode", options->permission_mode,
                  "Claude Code's permission mode the call arrives in: default, acceptEdits, "
                  "plan, auto (the host's own prompt decides a pass) or bypassPermissions, "
                  "dontAsk (it does not: togmal asks instead)")
      ->check(CLI::IsMember(
          {"default", "acceptEdits", "plan", "auto", "bypassPermissions", "dontAsk"}));
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
    // `togmal check -- CMD…`: CLI11 leaves what follows `--` to the top level.
    if (words.empty() && command.get_parent() != nullptr) words = command.get_parent()->remaining();
    if (options->cwd.empty()) {
      std::error_code error;
      options->cwd = std::filesystem::current_path(error).string();
    }
    policy::ToolCall call;
    call.cwd = options->cwd;
    call.permission_mode = options->permission_mode;
    if (!options->tool.empty()) {
      if (!words.empty()) {
        std::cerr << "togmal check: give either --tool/--input or a command, not both\n";
        return kExitUsage;
      }
      nlohmann::json input = nlohmann::json::object();
      if (!options->input.empty()) {
        std::string text = options->input;
        if (text == "-") text.assign(std::istreambuf_iterator<char>(std::cin), {});
        auto parsed = util::ParseJson(text);
        if (!parsed || !parsed->is_object()) {
          std::cerr << "togmal check: --input is not a JSON object"
                    << (parsed ? std::string() : ": " + parsed.error()) << "\n";
          return kExitDataErr;
        }
        input = std::move(*parsed);
      }
      call.tool_name = options->tool;
      call.tool_input = std::move(input);
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
      call.tool_name = "Bash";
      call.tool_input = {{"command", text}};
    }
    std::vector<std::string> broken;
    auto judged = check::JudgeWhatIf(call, check::SampleShown::kAsTheHookDecides, broken);
    if (!judged) {
      std::cerr << "togmal check: " << judged.error() << "\n";
      return kExitConfig;
    }
    for (const std::string& why : broken) {
      std::cerr << "warning: " << why << " (nothing is auto-approved until it is fixed)\n";
    }
    const check::Judgement& judgement = *judged;
    const rules::Decision& decision = judgement.decision;
    RememberCode(call, judgement, options->db);
    if (options->json) {
      nlohmann::json out = rules::DecisionJson(decision);
      out["why"] = std::string(WithoutPrefix(decision.reason));
      std::cout << util::DumpJson(out) << '\n';
    } else {
      PrintText(decision);
    }
    return kExitOk;
  };
}

}  // namespace togmal::cli
