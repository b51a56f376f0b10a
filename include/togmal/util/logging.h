#pragma once
/// Logging goes to stderr, always: in `serve` and `hook` mode stdout carries
/// only protocol messages.

#include <string>
#include <string_view>

#include "togmal/util/result.h"

namespace togmal::util {

/// Rewrites a log message before it is printed: the store's redactor
/// (store::RedactSecrets), passed in by main because util knows no store.
using LogRedactor = std::string (*)(std::string_view);

/// Points spdlog's default logger at stderr, every message through `redact`
/// when one is given. Call first thing in main, before anything can log.
/// Level from $TOGMAL_LOG if set, else "warn".
void InitLogging(LogRedactor redact = nullptr);

/// Sets the level by name (trace, debug, info, warn, error, critical, off).
Result<void> SetLogLevel(const std::string& level);

}  // namespace togmal::util
