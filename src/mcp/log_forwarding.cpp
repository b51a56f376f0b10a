// Log records to the client as `notifications/message`: in a legacy session
// at or above the level `logging/setLevel` chose; for a modern request only
// when its `_meta` asked, and only the records logged while handling it.
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "server_impl.h"

namespace togmal::mcp {

thread_local const CallContext* t_current_call = nullptr;

namespace {

thread_local bool t_forwarding_log = false;

int RankOf(spdlog::level::level_enum level) {
  switch (level) {
    case spdlog::level::trace:
    case spdlog::level::debug:
      return 0;
    case spdlog::level::info:
      return 1;
    case spdlog::level::warn:
      return 3;
    case spdlog::level::err:
      return 4;
    case spdlog::level::critical:
      return 5;
    default:
      return -1;
  }
}

spdlog::level::level_enum SpdlogLevelFor(int rank) {
  switch (rank) {
    case 0:
      return spdlog::level::debug;
    case 1:
    case 2:
      return spdlog::level::info;
    case 3:
      return spdlog::level::warn;
    case 4:
      return spdlog::level::err;
    default:
      return spdlog::level::critical;
  }
}

/// Forwards records of spdlog's default logger to the servers. One sink for
/// the process, attached once. A record logged while a server handles a call
/// goes to that server alone; any other record goes to every running server,
/// each of which applies its own session's level. (One process usually runs
/// one server; tests and embedders run several, started in any order.) The
/// target list changes under the sink's own mutex, so a server never receives
/// a record after it detached.
class LogForwardingSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  void AddTarget(Server::Impl* target) {
    std::lock_guard lock(mutex_);
    if (std::find(targets_.begin(), targets_.end(), target) == targets_.end()) {
      targets_.push_back(target);
    }
  }
  void RemoveTarget(Server::Impl* target) {
    std::lock_guard lock(mutex_);
    targets_.erase(std::remove(targets_.begin(), targets_.end(), target), targets_.end());
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (targets_.empty() || t_forwarding_log) return;
    t_forwarding_log = true;  // a record logged while forwarding is not forwarded
    std::string text(msg.payload.data(), msg.payload.size());
    Server::Impl* owner = t_current_call != nullptr ? t_current_call->server : nullptr;
    for (Server::Impl* target : targets_) {
      if (owner == nullptr || owner == target) target->ForwardLog(msg.level, text);
    }
    t_forwarding_log = false;
  }
  void flush_() override {}

 private:
  std::vector<Server::Impl*> targets_;
};

// Never destroyed: loggers may outlive any static destructor order.
const std::shared_ptr<LogForwardingSink>& ForwardingSinkPtr() {
  static const auto* const sink =
      new std::shared_ptr<LogForwardingSink>(std::make_shared<LogForwardingSink>());
  return *sink;
}

LogForwardingSink& ForwardingSink() { return *ForwardingSinkPtr(); }

// Adds the forwarding sink to the default logger unless it has it. A
// logger's sink list must not change while another thread logs through it,
// and two servers may start at once (tests run several): so the default
// logger is replaced by a copy that has the sink too, and the old one is kept
// alive for any thread still holding its raw pointer.
void InstallForwardingSink() {
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  std::shared_ptr<spdlog::logger> old = spdlog::default_logger();
  std::vector<spdlog::sink_ptr> sinks = old->sinks();
  if (std::find(sinks.begin(), sinks.end(), ForwardingSinkPtr()) != sinks.end()) return;
  sinks.push_back(ForwardingSinkPtr());
  auto logger = std::make_shared<spdlog::logger>(old->name(), sinks.begin(), sinks.end());
  logger->set_level(old->level());
  logger->flush_on(old->flush_level());
  static auto* const replaced = new std::vector<std::shared_ptr<spdlog::logger>>;
  replaced->push_back(std::move(old));  // once per logging set-up, so bounded
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace

int LogLevelRank(std::string_view name) {
  for (std::size_t i = 0; i < kLogLevels.size(); ++i) {
    if (kLogLevels[i] == name) return static_cast<int>(i);
  }
  return -1;
}

void AttachLogForwarding(Server::Impl* target) {
  InstallForwardingSink();
  ForwardingSink().AddTarget(target);
}

void DetachLogForwarding(Server::Impl* target) { ForwardingSink().RemoveTarget(target); }

void Server::Impl::SetLoggerLevelAtLeast(int rank) {
  auto logger = spdlog::default_logger();
  spdlog::level::level_enum wanted = SpdlogLevelFor(rank);
  spdlog::level::level_enum current = logger->level();
  if (wanted >= current) return;
  // Let more records reach the forwarding sink without making the other
  // sinks (stderr) chattier than they were.
  for (const spdlog::sink_ptr& sink : logger->sinks()) {
    if (sink.get() != &ForwardingSink() && sink->level() < current) sink->set_level(current);
  }
  logger->set_level(wanted);
}

void Server::Impl::ForwardLog(spdlog::level::level_enum level, const std::string& text) {
  int rank = RankOf(level);
  if (rank < 0) return;
  bool send = false;
  if (t_current_call != nullptr && t_current_call->era == Era::kModern) {
    send = t_current_call->log_rank >= 0 && rank >= t_current_call->log_rank;
  } else {
    int wanted = legacy_log_rank_.load();
    send = wanted >= 0 && rank >= wanted;
  }
  if (!send) return;
  Send(MakeNotification("notifications/message",
                        {{"level", kLogLevels[static_cast<std::size_t>(rank)]},
                         {"logger", options_.info.name},
                         {"data", text}}));
}

void Server::Impl::LoggingSetLevel(const json& params, const CallContext&, ReplyOnce reply) {
  auto level = params.find("level");
  int rank =
      level != params.end() && level->is_string() ? LogLevelRank(level->get<std::string>()) : -1;
  if (rank < 0) {
    return reply.Error(error_code::kInvalidParams,
                       "Invalid params: level must be one of debug, info, notice, warning, error, "
                       "critical, alert, emergency");
  }
  SetLoggerLevelAtLeast(rank);
  legacy_log_rank_ = rank;
  reply.Result(json::object());
}

}  // namespace togmal::mcp
