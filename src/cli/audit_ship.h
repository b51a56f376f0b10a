#pragma once
// `togmal audit ship`: declared on the `audit` command by audit.cpp.

#include <CLI/CLI.hpp>

#include "command.h"

namespace togmal::cli {

/// Declares the `ship` subcommand on `audit`; the action runs it.
Action DefineAuditShip(CLI::App& ship);

}  // namespace togmal::cli
