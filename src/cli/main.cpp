#include <spdlog/spdlog.h>

#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "togmal/util/logging.h"
#include "togmal/version.h"

namespace togmal::cli {

int Main(int argc, char** argv) {
  CLI::App app{"togmal: a guard between an AI agent and the world.\n"
               "MCP server for LLM failure-mode analysis and a Claude Code PreToolUse hook."};
  app.set_version_flag("--version", std::string(kVersion));
  app.require_subcommand(1);
  std::string log_level;
  app.add_option("--log-level", log_level,
                 "Log level on stderr: trace, debug, info, warn, error, critical, off "
                 "(default: $TOGMAL_LOG or warn)");

  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const CommandSpec& spec : Commands()) {
    CLI::App* command = app.add_subcommand(std::string(spec.name), std::string(spec.description));
    actions.emplace_back(command, spec.define(*command));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints help/version to stdout, errors to stderr
    return code == 0 ? kExitOk : kExitUsage;
  }

  if (!log_level.empty()) {
    if (auto set = util::SetLogLevel(log_level); !set) {
      spdlog::error("--log-level: {}", set.error());
      return kExitUsage;
    }
  }
  for (auto& [command, action] : actions) {
    if (command->parsed()) {
      try {
        return action();
      } catch (const std::exception& e) {
        spdlog::critical("{}: internal error: {}", command->get_name(), e.what());
        return kExitSoftware;
      }
    }
  }
  return kExitUsage;
}

}  // namespace togmal::cli
