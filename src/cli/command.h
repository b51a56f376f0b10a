#pragma once
// The subcommand table. Each subcommand lives in its own file, defines its
// options on the CLI11 sub-app it is given, and returns the action to run once
// the command line has been parsed. Adding a subcommand = one file + one row
// in commands.cpp.

#include <CLI/CLI.hpp>
#include <functional>
#include <span>
#include <string_view>

namespace togmal::cli {

/// Exit codes shared by every subcommand (sysexits.h where one fits).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 64;      // EX_USAGE: bad command line
inline constexpr int kExitDataErr = 65;    // EX_DATAERR: bad input data
inline constexpr int kExitNoInput = 66;    // EX_NOINPUT: cannot open input
inline constexpr int kExitSoftware = 70;   // EX_SOFTWARE: internal error
inline constexpr int kExitCantCreat = 73;  // EX_CANTCREAT: cannot create output (e.g. database)
inline constexpr int kExitConfig = 78;     // EX_CONFIG: bad configuration

/// Runs after parsing; returns the process exit code.
using Action = std::function<int()>;

struct CommandSpec {
  std::string_view name;
  std::string_view description;
  /// Declares the subcommand's options on `command`; the returned action may
  /// capture variables bound to those options.
  Action (*define)(CLI::App& command);
};

/// The table of subcommands, in --help order.
std::span<const CommandSpec> Commands();

/// Parses argv and runs the chosen subcommand.
int Main(int argc, char** argv);

// One definer per subcommand (each in its own file).
Action DefineAllow(CLI::App& command);
Action DefineAnalyze(CLI::App& command);
Action DefineAudit(CLI::App& command);
Action DefineCheck(CLI::App& command);
Action DefineDoctor(CLI::App& command);
Action DefineEvidence(CLI::App& command);
Action DefineHook(CLI::App& command);
Action DefineInstall(CLI::App& command);
Action DefineReport(CLI::App& command);
Action DefineRules(CLI::App& command);
Action DefineScan(CLI::App& command);
Action DefineServe(CLI::App& command);
Action DefineStats(CLI::App& command);
Action DefineStatusline(CLI::App& command);
Action DefineTrain(CLI::App& command);
Action DefineUninstall(CLI::App& command);
Action DefineVersion(CLI::App& command);

}  // namespace togmal::cli
