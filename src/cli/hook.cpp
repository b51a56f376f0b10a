// `togmal hook`: Claude Code's PreToolUse command hook. Reads one JSON object
// on stdin, prints one decision line, exits 0 (2 when it cannot print: see
// hook/pre_tool_use.h).
#include <memory>

#include "command.h"
#include "database_option.h"
#include "togmal/hook/pre_tool_use.h"

namespace togmal::cli {

Action DefineHook(CLI::App& command) {
  auto options = std::make_shared<hook::HookOptions>();
  DatabaseOption db = AddDatabaseOption(command);
  command.footer(
      "Register in Claude Code's settings.json:\n"
      R"(  {"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"togmal hook"}]}]}})");
  return [options, db] {
    options->database = db.Resolve();
    return hook::RunHookProcess(*options);
  };
}

}  // namespace togmal::cli
