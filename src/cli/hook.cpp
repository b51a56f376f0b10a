// `togmal hook`: Claude Code's PreToolUse command hook. Reads one JSON object
// on stdin, prints one decision line, exits 0 (any other exit would let the
// call through unjudged, see hook/pre_tool_use.h).
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "database_option.h"
#include "togmal/hook/pre_tool_use.h"

namespace togmal::cli {
namespace {

// Reads at most `limit` + 1 bytes, so an oversized input is detected without
// reading all of it.
std::string ReadStdin(std::size_t limit) {
  std::string input;
  char buffer[1 << 16];
  while (input.size() <= limit) {
    std::size_t got = std::fread(buffer, 1, sizeof buffer, stdin);
    if (got == 0) break;
    input.append(buffer, got);
  }
  return input;
}

}  // namespace

Action DefineHook(CLI::App& command) {
  auto options = std::make_shared<hook::HookOptions>();
  DatabaseOption db = AddDatabaseOption(command);
  command.footer(
      "Register in Claude Code's settings.json:\n"
      R"(  {"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"togmal hook"}]}]}})");
  return [options, db] {
    options->database = db.Resolve();
    std::string answer = hook::RunPreToolUse(ReadStdin(hook::kMaxHookInputBytes), *options);
    std::fwrite(answer.data(), 1, answer.size(), stdout);
    std::fflush(stdout);
    return kExitOk;
  };
}

}  // namespace togmal::cli
