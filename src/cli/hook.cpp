// `togmal hook [--host NAME]`: an agent host's pre-tool command hook. Reads
// one JSON object on stdin, prints one decision line in the host's format,
// exits 0 (2 when it cannot print: see hook/pre_tool_use.h).
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
      "Set up with `togmal install HOST`, or by hand in Claude Code's settings.json:\n"
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
