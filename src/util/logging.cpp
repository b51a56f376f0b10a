#include "togmal/util/logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

namespace togmal::util {

void InitLogging() {
  // spdlog's default logger writes to stdout, which is the protocol channel.
  auto logger = spdlog::stderr_logger_mt("togmal");
  logger->set_pattern("[%Y-%m-%dT%H:%M:%S.%e] [togmal] [%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(spdlog::level::warn);
  if (const char* env = std::getenv("TOGMAL_LOG"); env != nullptr && *env != '\0') {
    if (auto set = SetLogLevel(env); !set) spdlog::warn("TOGMAL_LOG: {}", set.error());
  }
}

Result<void> SetLogLevel(const std::string& level) {
  auto parsed = spdlog::level::from_str(level);
  // from_str maps anything unknown to "off"; only accept "off" when asked for.
  if (parsed == spdlog::level::off && level != "off") {
    return Fail("unknown log level '" + level +
                "' (expected trace, debug, info, warn, error, critical or off)");
  }
  spdlog::set_level(parsed);
  return {};
}

}  // namespace togmal::util
