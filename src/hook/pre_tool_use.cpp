#include "togmal/hook/pre_tool_use.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "after_tool_use.h"
#include "dying_answer.h"
#include "togmal/check/judge.h"
#include "togmal/check/outcomes.h"
#include "togmal/check/recording.h"
#include "togmal/hook/host.h"
#include "togmal/util/settings_layers.h"

namespace togmal::hook {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// Where the hook records before settings.yaml is read, and when it cannot be:
// the safe reading of `audit:` (check::AuditTarget's defaults), the lock wait
// following the default budget.
check::AuditTarget DefaultAuditTarget(const HookOptions& options) {
  return check::AuditTarget{
      .database = options.database,
      .lock_wait_ms = check::LockWaitForBudget(rules::DecisionSettings{}.budget_ms)};
}

// When the budget has run out the host has its answer, but it waits for the
// process to end: the watchdog's record of that answer waits for the lock at
// most this long, however large the budget (a lock held longer loses the
// record, which is logged).
constexpr int kWatchdogRecordingWaitMs = 2000;

// What the deciding thread has learnt so far. The watchdog answers from it
// if the budget runs out, so it is only read and written under `mutex`.
struct Progress {
  explicit Progress(const HookOptions& options) : audit(DefaultAuditTarget(options)) {}

  std::mutex mutex;
  rules::DecisionSettings settings;  ///< the defaults until settings.yaml is read
  /// The parsed call, or the malformed input; null until the input is read.
  /// Shared, not copied: the input can be 50 MB.
  std::shared_ptr<const policy::ToolCall> call;
  /// Where decisions are recorded: the lock wait follows the budget.
  check::AuditTarget audit;
  /// Settings files that could not be read, parsed or validated: while there
  /// is one, nothing is auto-approved (check::Judge::Decide).
  std::vector<std::string> broken_settings;
  std::string stage = "reading the input";
  /// An after-the-call event (after_tool_use.h): nothing is answered, not
  /// even by the watchdog.
  bool quiet = false;
};

void SetStage(Progress& progress, std::string stage) {
  std::lock_guard lock(progress.mutex);
  progress.stage = std::move(stage);
}

// The hook's Judge, recording to `audit`. Each Judge has its own connection
// (the watchdog builds another and may append while the deciding thread is
// stuck in this one).
check::Judge HookJudge(const check::AuditTarget& audit) {
  check::JudgeSinks sinks = check::OneCallSinks(audit);
  return check::Judge({.via = "hook",
                       .recording = check::Recording::kAudited,
                       .audit = std::move(sinks.audit),
                       .resolve_sample = {},                 // no model to ask: SAMPLE → ask
                       .grants = std::move(sinks.grants)});  // looked up for a deny or ask
}

// Reads settings.yaml once, for both the decision and the audit options, into
// `state`. Broken files are left out with a warning, and make every decision
// ask rather than allow.
void LoadHookSettings(Progress& state) {
  util::SettingsLayers layers = util::LoadSettingsLayers();
  std::vector<std::string> broken = layers.ignored;
  rules::DecisionSettings settings = rules::DecisionSettingsFrom(layers.layers, broken);
  std::lock_guard lock(state.mutex);
  check::ReadAuditSettings(layers, state.audit, broken);
  state.audit.lock_wait_ms = check::LockWaitForBudget(settings.budget_ms);
  for (const std::string& why : broken) spdlog::warn("{}", why);
  state.settings = settings;
  state.broken_settings = std::move(broken);
}

// Records an after-the-call event's outcomes. Never fails the hook: what
// cannot be recorded is logged.
void RecordOutcomes(const check::CallOutcomes& event, Progress& state) {
  check::AuditTarget audit;
  {
    std::lock_guard lock(state.mutex);
    state.quiet = true;
    state.stage = "recording the call's outcome";
    audit = state.audit;
  }
  SetDyingAnswer("");
  if (auto recorded = check::RecordOutcomes(event, audit); !recorded) {
    spdlog::warn("{}: the outcome is not recorded: {}", event.event, recorded.error());
  }
}

// Input, policy, judgement, with the settings LoadHookSettings put in `state`,
// which is kept up to date for the watchdog.
std::string AnswerFor(std::string_view input, const HookOptions& options, Progress& state,
                      Clock::time_point started) {
  try {
    rules::DecisionSettings settings;
    std::vector<std::string> broken_settings;
    auto malformed_call = std::make_shared<policy::ToolCall>();
    malformed_call->tool_input = check::MalformedInput(input);
    const policy::ToolCall& malformed = *malformed_call;
    {
      std::lock_guard lock(state.mutex);
      settings = state.settings;
      broken_settings = state.broken_settings;
      state.call = malformed_call;
      state.stage = "parsing the input";
    }
    if (options.host == Host::kClaude && input.size() <= kMaxHookInputBytes) {
      if (const std::optional<check::CallOutcomes> after = ParseAfterToolUse(input)) {
        RecordOutcomes(*after, state);
        return {};  // nothing to answer
      }
    }
    const check::Judge judge = HookJudge(state.audit);
    if (input.size() > kMaxHookInputBytes) {
      return HostAnswer(options.host, judge
                                          .Refuse(malformed, settings,
                                                  "the hook input is larger than " +
                                                      std::to_string(kMaxHookInputBytes) + " bytes",
                                                  started, broken_settings)
                                          .decision);
    }
    auto parsed = ParseHostInput(options.host, input);
    if (!parsed) {
      return HostAnswer(
          options.host,
          judge.Refuse(malformed, settings, parsed.error(), started, broken_settings).decision);
    }
    const auto call = std::make_shared<const policy::ToolCall>(std::move(*parsed));
    {
      std::lock_guard lock(state.mutex);
      state.call = call;
      state.stage = "loading the policy";
    }
    if (options.host == Host::kCursor && call->hook_event_name == "beforeReadFile") {
      // Cursor's file-read hook cannot ask: a signal from here on refuses.
      SetDyingAnswer(HostAnswer(options.host, rules::ErrorDecision(settings, kStoppedBySignal),
                                call->hook_event_name));
    }
    auto policy = check::LoadPolicy(call->cwd, settings, broken_settings, options.user_rules);
    if (!policy) {
      return HostAnswer(
          options.host,
          judge.Refuse(*call, settings, policy.error(), started, broken_settings).decision,
          call->hook_event_name);
    }
    // The broken settings were logged already; the rule files' are new.
    for (const std::string& ignored : policy->rules->ignored) spdlog::warn("{}", ignored);
    SetStage(state, "deciding");
    return HostAnswer(options.host, judge.Decide(*call, *policy, started).decision,
                      call->hook_event_name);
  } catch (const std::exception& e) {
    std::lock_guard lock(state.mutex);
    const policy::ToolCall unread;
    const policy::ToolCall& call = state.call ? *state.call : unread;
    return HostAnswer(options.host,
                      HookJudge(state.audit)
                          .Refuse(call, state.settings, std::string("internal error: ") + e.what(),
                                  started, state.broken_settings)
                          .decision,
                      call.hook_event_name);
  } catch (...) {
    return std::string(LastResortAnswer(options.host));
  }
}

// The whole answer with write(2); stdout is a pipe Claude Code reads.
// Returns 0, or 2 with the reason on stderr (Claude Code then blocks the call).
int WriteAnswer(std::string_view text) {
  while (!text.empty()) {
    const ssize_t wrote = ::write(STDOUT_FILENO, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      const char* why = wrote < 0 ? std::strerror(errno) : "nothing was written";
      const std::string message =
          std::string("togmal hook: could not write the decision to stdout (") + why +
          "); exiting 2 so that the call is blocked\n";
      [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, message.data(), message.size());
      return 2;
    }
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return 0;
}

// Reads at most `limit` + 1 bytes, so an oversized input is detected without
// reading all of it. Plain read(2): stdio would allocate a buffer of its own.
std::string ReadStdin(std::size_t limit) {
  std::string input;
  char buffer[1 << 16];
  while (input.size() <= limit) {
    const ssize_t got = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;  // end of input, or an error: judge what arrived
    input.append(buffer, static_cast<std::size_t>(got));
  }
  return input;
}

// Answers for the deciding thread if it has not answered within the budget.
// Whoever claims the answer first (ClaimTheAnswer: the deciding thread, the
// watchdog or a signal handler) writes it; the watchdog then ends the process
// itself, with the exit code `fallback` returns, since the deciding thread may
// never return.
class Watchdog {
 public:
  Watchdog(Clock::time_point deadline, std::function<int()> fallback)
      : deadline_(deadline), fallback_(std::move(fallback)), thread_([this] { Run(); }) {}

  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    changed_.notify_all();
    thread_.join();  // returns at once, or never if the watchdog is answering
  }

 private:
  void Run() {
    std::unique_lock lock(mutex_);
    if (changed_.wait_until(lock, deadline_, [this] { return finished_; })) return;
    lock.unlock();
    if (!ClaimTheAnswer()) return;  // the deciding thread is writing its answer
    std::_Exit(fallback_());
  }

  const Clock::time_point deadline_;
  const std::function<int()> fallback_;
  std::mutex mutex_;
  std::condition_variable changed_;
  bool finished_ = false;
  std::thread thread_;  // last: starts once everything above is constructed
};

}  // namespace

std::string RunPreToolUse(std::string_view input, const HookOptions& options) {
  const auto started = Clock::now();
  Progress progress(options);
  try {
    LoadHookSettings(progress);
  } catch (const std::exception& e) {
    spdlog::error("settings: {}", e.what());  // the defaults stay in force
  }
  return AnswerFor(input, options, progress, started);
}

int RunHookProcess(const HookOptions& options) {
  const auto started = Clock::now();
  const rules::DecisionSettings defaults;
  Progress progress(options);
  std::chrono::milliseconds budget{defaults.budget_ms};
  {
    // Before any slow work: from here on, being told to stop still answers
    // (dying_answer.h). A signal that comes while settings.yaml is read waits
    // for it, so that it gets the on_error answer. The default's answer is
    // fixed text (a HostAnswer costs about 2% of a hook's instructions in the
    // debug build); another is formatted once.
    const HeldSignals held;
    InstallDyingAnswer(StoppedBySignalAnswer(options.host));
    try {
      LoadHookSettings(progress);  // first: the watchdog answers by hook.on_error
    } catch (const std::exception& e) {
      spdlog::error("settings: {}", e.what());  // the defaults stay in force
    }
    std::lock_guard lock(progress.mutex);
    budget = std::chrono::milliseconds(progress.settings.budget_ms);
    if (progress.settings.on_error != defaults.on_error) {
      SetDyingAnswer(
          HostAnswer(options.host, rules::ErrorDecision(progress.settings, kStoppedBySignal)));
    }
  }
  std::string answer;
  {
    Watchdog watchdog(started + budget, [&]() -> int {
      std::shared_ptr<const policy::ToolCall> call;
      rules::DecisionSettings settings;
      std::string stage;
      std::vector<std::string> broken_settings;
      check::AuditTarget audit;
      {
        std::lock_guard lock(progress.mutex);
        if (progress.quiet) {
          spdlog::error("no outcome recorded within {} ms (stuck {})", budget.count(),
                        progress.stage);
          return 0;  // an after-the-call event: nothing to answer, nothing to block
        }
        call = progress.call;
        settings = progress.settings;
        stage = progress.stage;
        broken_settings = progress.broken_settings;
        audit = progress.audit;
      }
      if (!call) {
        auto unread = std::make_shared<policy::ToolCall>();
        unread->tool_input = {{"malformed_input", "(not read: the input did not end in time)"}};
        call = std::move(unread);
      }
      const std::string why =
          "no decision within " + std::to_string(budget.count()) + " ms (stuck " + stage + ")";
      spdlog::error("{}", why);
      // The answer first: the host is waiting, and recording may wait for
      // another process's lock. Then the same decision is recorded, with the
      // input bounded (store/stored_input.h) however large it is.
      const int code = WriteAnswer(
          HostAnswer(options.host, rules::ErrorDecision(settings, why), call->hook_event_name));
      audit.lock_wait_ms = std::min(audit.lock_wait_ms, kWatchdogRecordingWaitMs);
      HookJudge(audit).Refuse(*call, settings, why, started, broken_settings);
      return code;
    });
    answer = AnswerFor(ReadStdin(kMaxHookInputBytes), options, progress, started);
    if (!ClaimTheAnswer()) {
      // The watchdog or a signal handler is answering and will end the
      // process; wait for it.
      for (;;) ::pause();
    }
  }
  return WriteAnswer(answer);
}

}  // namespace togmal::hook
