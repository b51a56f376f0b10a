// `togmal analyze`: the analysis tools for people and scripts.
#include <unistd.h>

#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "command.h"
#include "togmal/analysis/active_model.h"
#include "togmal/analysis/report.h"

namespace togmal::cli {
namespace {

// Same limits as the MCP tools, in Unicode characters.
constexpr std::size_t kMaxPromptChars = 50000;
constexpr std::size_t kMaxResponseChars = 100000;
constexpr std::size_t kMaxContextChars = 10000;

// Exit codes by risk level, so that scripts can gate on them.
constexpr int kExitHighRisk = 1;
constexpr int kExitCriticalRisk = 2;

std::size_t CharCount(const std::string& text) {
  std::size_t count = 0;
  for (char c : text) count += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return count;
}

struct AnalyzeOptions {
  bool response = false;
  bool json = false;
  std::string context;
  std::string text;
};

}  // namespace

Action DefineAnalyze(CLI::App& command) {
  auto options = std::make_shared<AnalyzeOptions>();
  command.add_flag("--response", options->response,
                   "Analyse TEXT as an LLM response (default: as a user prompt)");
  command.add_option(
      "--context", options->context,
      "With --response: the prompt the response answers (at most 10,000 characters)");
  command.add_flag("--json", options->json,
                   "Print the analysis as JSON (the tools' structured result)");
  command.add_option("text", options->text,
                     "The text to analyse, or - to read it from stdin (the default when stdin "
                     "is not a terminal)");
  command.footer(
      "Exit status: 0 risk low or moderate, 1 high, 2 critical; 64 usage error, 65 bad input "
      "(empty or too long: prompts 50,000, responses 100,000 characters), 78 bad detector "
      "catalogue.\n"
      "Examples:\n"
      "  togmal analyze \"Build me a complete theory of quantum gravity\"\n"
      "  echo \"$REPLY\" | togmal analyze --response --context \"$PROMPT\" --json -");
  return [options]() -> int {
    if (!options->context.empty() && !options->response) {
      std::cerr << "togmal analyze: --context only applies with --response\n";
      return kExitUsage;
    }
    if (CharCount(options->context) > kMaxContextChars) {
      std::cerr << "togmal analyze: --context is longer than 10000 characters\n";
      return kExitUsage;
    }
    std::string text = options->text;
    if (text.empty() && isatty(STDIN_FILENO)) {
      std::cerr << "togmal analyze: give the TEXT to analyse, or - to read it from stdin\n";
      return kExitUsage;
    }
    if (text.empty() || text == "-") {
      text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    }
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
      std::cerr << "togmal analyze: nothing to analyse (empty text)\n";
      return kExitDataErr;
    }
    const std::size_t limit = options->response ? kMaxResponseChars : kMaxPromptChars;
    if (CharCount(text) > limit) {
      std::cerr << "togmal analyze: the text is longer than " << limit << " characters\n";
      return kExitDataErr;
    }
    auto analysed = analysis::AnalyzeText(text, options->context);
    if (!analysed) {
      std::cerr << "togmal analyze: " << analysed.error() << "\n";
      return kExitConfig;
    }
    const analysis::Analysis& result = analysed.value();
    const auto structured =
        analysis::ToJson(result, options->response ? "response_analysis" : "prompt_analysis");
    if (options->json) {
      std::cout << structured.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      std::cout << analysis::RenderMarkdown(structured) << "\n";
    }
    switch (result.risk_level) {
      case analysis::RiskLevel::kCritical:
        return kExitCriticalRisk;
      case analysis::RiskLevel::kHigh:
        return kExitHighRisk;
      default:
        return kExitOk;
    }
  };
}

}  // namespace togmal::cli
