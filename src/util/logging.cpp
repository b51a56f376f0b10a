#include "togmal/util/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>

namespace togmal::util {
namespace {

// `%*`: the message passed through the redactor, so that a log line (a
// discarded request, an error quoting a command) shows no secret the audit
// trail would not.
class RedactedMessage final : public spdlog::custom_flag_formatter {
 public:
  explicit RedactedMessage(LogRedactor redact) : redact_(redact) {}

  void format(const spdlog::details::log_msg& message, const std::tm& /*time*/,
              spdlog::memory_buf_t& out) override {
    const std::string_view payload(message.payload.data(), message.payload.size());
    if (redact_ == nullptr) {
      out.append(payload.data(), payload.data() + payload.size());
      return;
    }
    const std::string redacted = redact_(payload);
    out.append(redacted.data(), redacted.data() + redacted.size());
  }

  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<RedactedMessage>(redact_);
  }

 private:
  LogRedactor redact_ = nullptr;
};

}  // namespace

void InitLogging(LogRedactor redact) {
  // spdlog's default logger writes to stdout, which is the protocol channel.
  auto logger = spdlog::stderr_logger_mt("togmal");
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<RedactedMessage>('*', redact)
      .set_pattern("[%Y-%m-%dT%H:%M:%S.%e] [togmal] [%l] %*");
  logger->set_formatter(std::move(formatter));
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
