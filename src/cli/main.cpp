#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "togmal/util/logging.h"
#include "togmal/util/process_start.h"
#include "togmal/version.h"

namespace togmal::cli {
namespace {

// The subcommand the command line names: its first argument that is neither an
// option nor --log-level's value. Empty when there is none.
std::string_view NamedCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--log-level") {
      ++i;
      continue;
    }
    if (!arg.starts_with('-')) return arg;
  }
  return {};
}

}  // namespace

int Main(int argc, char** argv) {
  const std::string_view named = NamedCommand(argc, argv);
  // Claude Code starts `togmal hook` once per tool call: map its heap in one
  // go rather than fault it in page by page (util/process_start.h).
  if (named == "hook") util::WarmHeap();
  CLI::App app{
      "togmal: a guard between an AI agent and the world.\n"
      "MCP server for LLM failure-mode analysis and a Claude Code PreToolUse hook."};
  app.set_version_flag("--version", std::string(kVersion));
  app.require_subcommand(1);
  std::string log_level;
  app.add_option("--log-level", log_level,
                 "Log level on stderr: trace, debug, info, warn, error, critical, off "
                 "(default: $TOGMAL_LOG or warn)");

  // Only the subcommand being run is defined: setting up every subcommand and
  // its options cost a `togmal hook` call ~0.9 M instructions. A typo or
  // no name at all defines (and --help lists) them all; `togmal --help hook`
  // shows the hook's help either way, as CLI11 shows the innermost one.
  const auto commands = Commands();
  const bool known = std::any_of(commands.begin(), commands.end(),
                                 [&](const CommandSpec& spec) { return spec.name == named; });
  // CLI11 would only say "A subcommand is required" for a misspelt name.
  if (!named.empty() && !known) {
    std::string names;
    for (const CommandSpec& spec : commands) {
      if (!names.empty()) names += ", ";
      names += spec.name;
    }
    std::cerr << "togmal: unknown subcommand '" << named << "' (one of: " << names
              << "; see togmal --help)\n";
    return kExitUsage;
  }
  // CLI11 hands the words after `togmal check --` back to the top level; they
  // are the command to check (cli/check.cpp reads them there).
  if (named == "check") app.allow_extras();
  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const CommandSpec& spec : commands) {
    if (known && spec.name != named) continue;
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
