#pragma once
/// Logging goes to stderr, always: in `serve` and `hook` mode stdout carries
/// only protocol messages.

#include <string>

#include "togmal/util/result.h"

namespace togmal::util {

/// Points spdlog's default logger at stderr. Call first thing in main, before
/// anything can log. Level from $TOGMAL_LOG if set, else "warn".
void InitLogging();

/// Sets the level by name (trace, debug, info, warn, error, critical, off).
Result<void> SetLogLevel(const std::string& level);

}  // namespace togmal::util
