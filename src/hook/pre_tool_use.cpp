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
#include "togmal/hook/host.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/store/stored_input.h"
#include "togmal/util/settings_layers.h"
#include "togmal/util/text.h"

namespace togmal::hook {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

// How long the hook's audit append waits for another process's write lock:
// two fifths of the decision budget (400 ms of the default 1 s), far above a
// commit's usual ~1 ms, and leaving the rest of the budget for the decision.
// It follows `hook.budget_ms`, so a person who gives the hook more time on a
// busy machine also gives it more time to win the lock.
int BusyTimeoutMs(int budget_ms) { return std::max(1, budget_ms * 2 / 5); }

// How the hook opens the audit database before settings.yaml is read, and
// when it cannot be: an fsync per entry is the safe reading of `audit.sync`.
store::OpenOptions HookOpenOptions(int budget_ms, bool sync_every_commit = true) {
  return store::OpenOptions{.busy_timeout_ms = BusyTimeoutMs(budget_ms),
                            .sync_every_commit = sync_every_commit,
                            .short_lived_writer = true};
}

// When the budget has run out the host has its answer, but it waits for the
// process to end: the watchdog's record of that answer waits for the lock at
// most this long, however large the budget (a lock held longer loses the
// record, which is logged).
constexpr int kWatchdogRecordingWaitMs = 2000;

// How much of input that could not be parsed is stored.
constexpr std::size_t kMalformedCutBytes = 2000;

// What to store for input that could not be parsed: enough to see what came,
// and, when that is cut, the digest of all of it (store/stored_input.h).
json MalformedInput(std::string_view input) {
  json record = {
      {"malformed_input", util::DumpJson(json(util::Shorten(input, kMalformedCutBytes)))},
      {"bytes", input.size()}};
  if (input.size() > kMalformedCutBytes) record["sha256"] = store::TextDigest(input);
  return record;
}

// What the deciding thread has learnt so far. The watchdog answers from it
// if the budget runs out, so it is only read and written under `mutex`.
struct Progress {
  std::mutex mutex;
  rules::DecisionSettings settings;  ///< the defaults until settings.yaml is read
  /// The parsed call, or the malformed input; null until the input is read.
  /// Shared, not copied: the input can be 50 MB.
  std::shared_ptr<const check::ToolCallRequest> call;
  store::AuditOptions audit;
  /// How the audit database is opened: the lock wait follows the budget.
  store::OpenOptions open = HookOpenOptions(rules::DecisionSettings{}.budget_ms);
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

// The one connection of a Judge: opened by whichever needs it first (a deny's
// grant lookup, or the audit append) and kept for the other, so a deny opens
// the database once like an allow. Each Judge has its own (the watchdog
// builds another and may append while the deciding thread is stuck in this
// one); the connection has no mutex, and one Judge is used by one thread.
class HookConnection {
 public:
  HookConnection(std::filesystem::path path, store::OpenOptions open)
      : path_(std::move(path)), open_(open) {}
  Result<store::Database*> Get() {
    if (!database_) {
      auto opened = store::Database::Open(path_, open_);
      if (!opened) return Fail(opened.error());
      database_.emplace(std::move(opened).value());
    }
    return &*database_;
  }

 private:
  std::filesystem::path path_;
  store::OpenOptions open_;
  std::optional<store::Database> database_;
};

check::Judge HookJudge(const HookOptions& options, const store::AuditOptions& audit,
                       const store::OpenOptions& open) {
  std::filesystem::path path =
      options.database.empty() ? store::DefaultDatabasePath() : options.database;
  auto connection = std::make_shared<HookConnection>(std::move(path), open);
  return check::Judge({.via = "hook",
                       .recording = check::Recording::kAudited,
                       .audit = [connection, audit](store::AuditEntry entry) -> Result<int64_t> {
                         auto database = connection->Get();
                         if (!database) return Fail(database.error());
                         return store::AuditLog(**database, audit).Append(std::move(entry));
                       },
                       .resolve_sample = {},  // no model to ask: SAMPLE → ask
                       // Only a deny or ask looks for a grant.
                       .grants = [connection](std::string_view fingerprint, bool consume)
                           -> Result<std::optional<store::AllowGrant>> {
                         auto database = connection->Get();
                         if (!database) return Fail(database.error());
                         return store::AllowGrants(**database).Active(fingerprint, consume);
                       }});
}

// Reads settings.yaml once, for both the decision and the audit options, into
// `state`. Broken files are left out with a warning, and make every decision
// ask rather than allow.
void LoadHookSettings(Progress& state) {
  util::SettingsLayers layers = util::LoadSettingsLayers();
  std::vector<std::string> broken = layers.ignored;
  rules::DecisionSettings settings = rules::DecisionSettingsFrom(layers.layers, broken);
  store::AuditOptions audit;
  bool sync_every_commit = true;
  // The safe reading of audit settings the hook cannot read: redaction (the
  // default) and an fsync per entry.
  if (auto store_settings = store::StoreSettingsFrom(layers.layers)) {
    audit.store_raw_input = store_settings->audit_store_raw_input;
    sync_every_commit = store_settings->audit_sync_full;
  } else {
    broken.push_back(store_settings.error() + " (redacting inputs and syncing every entry)");
  }
  for (const std::string& why : broken) spdlog::warn("{}", why);
  std::lock_guard lock(state.mutex);
  state.settings = settings;
  state.audit = audit;
  state.open = HookOpenOptions(settings.budget_ms, sync_every_commit);
  state.broken_settings = std::move(broken);
}

// Records an after-the-call event's outcomes. Never fails the hook: what
// cannot be recorded is logged.
void RecordOutcomes(const AfterToolUse& event, const HookOptions& options, Progress& state) {
  store::AuditOptions audit;
  store::OpenOptions open;
  {
    std::lock_guard lock(state.mutex);
    state.quiet = true;
    state.stage = "recording the call's outcome";
    audit = state.audit;
    open = state.open;
  }
  SetDyingAnswer("");
  HookConnection connection(
      options.database.empty() ? store::DefaultDatabasePath() : options.database, open);
  auto database = connection.Get();
  if (!database) {
    spdlog::warn("{}: the outcome is not recorded: {}", event.event, database.error());
    return;
  }
  store::AuditLog log(**database, audit);
  if (auto recorded = RecordAfterToolUse(event, log); !recorded) {
    spdlog::warn("{}: the outcome is not recorded: {}", event.event, recorded.error());
  }
}

// Input, policy, judgement, with the settings LoadHookSettings put in `state`,
// which is kept up to date for the watchdog.
std::string Decide(std::string_view input, const HookOptions& options, Progress& state,
                   Clock::time_point started) {
  try {
    rules::DecisionSettings settings;
    std::vector<std::string> broken_settings;
    auto malformed_call = std::make_shared<check::ToolCallRequest>();
    malformed_call->tool_input = MalformedInput(input);
    const check::ToolCallRequest& malformed = *malformed_call;
    {
      std::lock_guard lock(state.mutex);
      settings = state.settings;
      broken_settings = state.broken_settings;
      state.call = malformed_call;
      state.stage = "parsing the input";
    }
    if (options.host == Host::kClaude && input.size() <= kMaxHookInputBytes) {
      if (const std::optional<AfterToolUse> after = ParseAfterToolUse(input)) {
        RecordOutcomes(*after, options, state);
        return {};  // nothing to answer
      }
    }
    const check::Judge judge = HookJudge(options, state.audit, state.open);
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
    const auto call = std::make_shared<const check::ToolCallRequest>(std::move(*parsed));
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
    const check::ToolCallRequest unread;
    const check::ToolCallRequest& call = state.call ? *state.call : unread;
    return HostAnswer(options.host,
                      HookJudge(options, state.audit, state.open)
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
  Progress progress;
  try {
    LoadHookSettings(progress);
  } catch (const std::exception& e) {
    spdlog::error("settings: {}", e.what());  // the defaults stay in force
  }
  return Decide(input, options, progress, started);
}

int RunHookProcess(const HookOptions& options) {
  const auto started = Clock::now();
  const rules::DecisionSettings defaults;
  Progress progress;
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
      std::shared_ptr<const check::ToolCallRequest> call;
      rules::DecisionSettings settings;
      std::string stage;
      std::vector<std::string> broken_settings;
      store::AuditOptions audit;
      store::OpenOptions open;
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
        open = progress.open;
      }
      if (!call) {
        auto unread = std::make_shared<check::ToolCallRequest>();
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
      open.busy_timeout_ms = std::min(open.busy_timeout_ms, kWatchdogRecordingWaitMs);
      HookJudge(options, audit, open).Refuse(*call, settings, why, started, broken_settings);
      return code;
    });
    answer = Decide(ReadStdin(kMaxHookInputBytes), options, progress, started);
    if (!ClaimTheAnswer()) {
      // The watchdog or a signal handler is answering and will end the
      // process; wait for it.
      for (;;) ::pause();
    }
  }
  return WriteAnswer(answer);
}

}  // namespace togmal::hook
