// `togmal hook [--host NAME]`: an agent host's tool hook. Reads one JSON
// object on stdin. A pre-tool event gets one decision line in the host's
// format, exit 0 (2 when it cannot print: see hook/pre_tool_use.h); Claude
// Code's after-tool events (PostToolUse, PostToolUseFailure, PermissionDenied,
// PostToolBatch) are recorded as outcomes and get no output
// (hook/after_tool_use.h).
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "database_option.h"
#include "togmal/hook/pre_tool_use.h"

namespace togmal::cli {

Action DefineHook(CLI::App& command) {
  auto options = std::make_shared<hook::HookOptions>();
  auto host = std::make_shared<std::string>("claude");
  DatabaseOption db = AddDatabaseOption(command);
  command.add_option("--host", *host,
                     "Whose hook contract to speak: claude (default), codex, gemini, copilot, "
                     "cursor");
  command.footer(
      "Reads one hook event on stdin. PreToolUse gets a decision; PostToolUse, "
      "PostToolUseFailure, PermissionDenied and PostToolBatch record what became of a call "
      "togmal let through (ran, failed, refused) and print nothing.\n"
      "Set up with `togmal install HOST`, or by hand in Claude Code's settings.json (the same "
      "entry under each event above):\n"
      R"(  {"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"togmal hook"}]}]}})");
  return [options, host, db] {
    const auto named = hook::HostNamed(*host);
    if (!named) {
      std::string names;
      for (std::string_view name : hook::HostNames()) {
        if (!names.empty()) names += ", ";
        names += name;
      }
      std::cerr << "togmal hook: unknown host '" << *host << "' (one of: " << names << ")\n";
      return kExitUsage;
    }
    options->host = *named;
    options->database = db.Resolve();
    return hook::RunHookProcess(*options);
  };
}

}  // namespace togmal::cli
