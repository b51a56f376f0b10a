// `togmal hook` under the faults a prober found (issue 19): told to stop
// before it has answered, and fed inputs built to outlast its budget. Claude
// Code lets a call through when its hook dies silently or answers late, so in
// every case the hook must print one fail-safe answer, in time, keep its audit
// rows bounded, and leave a chain that `togmal audit verify` accepts.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Transaction.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "process.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/stored_input.h"

namespace togmal {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using testing::ChildProcess;
using testing::RunProcess;
using testing::TogmalBinary;

class HookFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();
    fs::create_directories(root_ / "proj");
    fs::create_directories(root_ / "config/togmal");
    env_ = {{"TOGMAL_DB", (root_ / "togmal.db").string()},
            {"XDG_CONFIG_HOME", (root_ / "config").string()},
            {"XDG_DATA_HOME", (root_ / "data").string()},
            {"TOGMAL_LOG", std::nullopt}};
  }

  void Settings(const std::string& yaml) const {
    std::ofstream(root_ / "config/togmal/settings.yaml") << yaml;
  }

  // The database and its first entry, made by one unhurried hook.
  void CreateDatabase() const {
    Settings("hook:\n  budget_ms: 60000\n");
    ASSERT_EQ(RunProcess({TogmalBinary(), "hook"}, Event("Bash", {{"command", "ls"}}).dump(), env_,
                         std::chrono::seconds(60))
                  .exit_code,
              0);
  }

  json Event(const std::string& tool, const json& input) const {
    return {{"session_id", "9f3c2a7e-1b2d-4c5e-8f90-123456789abc"},
            {"cwd", (root_ / "proj").string()},
            {"permission_mode", "default"},
            {"hook_event_name", "PreToolUse"},
            {"tool_name", tool},
            {"tool_input", input},
            {"tool_use_id", "toolu_01ABCDEF"}};
  }

  static std::string Decision(const std::string& line) {
    const json out = json::parse(line);
    return out["hookSpecificOutput"].value("permissionDecision", "");
  }
  static std::string Reason(const std::string& line) {
    const json out = json::parse(line);
    return out["hookSpecificOutput"].value("permissionDecisionReason", "");
  }

  // Waits until `pid` catches `signal` (its handlers are installed), so that
  // the test does not race the process's start.
  static bool Catches(pid_t pid, int signal) {
    const auto deadline = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < deadline) {
      std::ifstream status("/proc/" + std::to_string(pid) + "/status");
      for (std::string line; std::getline(status, line);) {
        if (line.rfind("SigCgt:", 0) != 0) continue;
        const unsigned long long caught = std::stoull(line.substr(7), nullptr, 16);
        if ((caught >> (signal - 1)) & 1u) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
  }

  // `togmal audit verify` through the binary: the chain is intact.
  void ExpectVerifiedTrail() {
    auto verify =
        RunProcess({TogmalBinary(), "audit", "verify", "--db", (root_ / "togmal.db").string()}, "",
                   env_, std::chrono::seconds(60));
    EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  }

  std::vector<store::AuditEntry> Audit() {
    auto db = store::Database::Open(root_ / "togmal.db", {.read_only = true});
    if (!db) return {};
    auto tail = store::AuditLog(*db).Tail(1000);
    return tail ? *tail : std::vector<store::AuditEntry>{};
  }

  testing::TempDir dir_;
  fs::path root_;
  testing::EnvChanges env_;
};

// --- Dying still answers ----------------------------------------------------

TEST_F(HookFaults, EachStopSignalIsAnsweredWithTheFailSafeDecision) {
  Settings("hook:\n  budget_ms: 60000\n");
  for (const int signal : {SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGXCPU, SIGXFSZ, SIGALRM, SIGUSR1,
                           SIGUSR2, SIGVTALRM, SIGPROF}) {
    ChildProcess hook({TogmalBinary(), "hook"}, env_);
    ASSERT_TRUE(Catches(hook.pid(), signal)) << "signal " << signal;
    // Stuck reading: the input never ends.
    ASSERT_TRUE(hook.Send(R"({"tool_name": "Bash", "tool_input": {"command": )"));
    hook.Kill(signal);
    auto line = hook.ReadLine(std::chrono::seconds(20));
    ASSERT_TRUE(line.has_value()) << "signal " << signal << ": no answer; " << hook.Stderr();
    EXPECT_EQ(Decision(*line), "ask") << *line;
    EXPECT_NE(Reason(*line).find("stopped by a signal"), std::string::npos) << *line;
    EXPECT_FALSE(hook.ReadLine(std::chrono::seconds(5)).has_value()) << "one answer only";
    // Exit 0: Claude Code reads the JSON of a hook that exits 0 (any other
    // code but 2 would be a silent allow).
    EXPECT_EQ(hook.Wait(std::chrono::seconds(20)), 0) << "signal " << signal;
    EXPECT_NE(hook.Stderr().find("stopped by signal " + std::to_string(signal)), std::string::npos)
        << hook.Stderr();
  }
}

TEST_F(HookFaults, AStopSignalIsAnsweredByOnErrorInTheHostsFormat) {
  Settings("hook:\n  budget_ms: 60000\n  on_error: deny\n");
  ChildProcess claude({TogmalBinary(), "hook"}, env_);
  ASSERT_TRUE(Catches(claude.pid(), SIGTERM));
  claude.Kill(SIGTERM);
  auto line = claude.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(line.has_value()) << claude.Stderr();
  EXPECT_EQ(Decision(*line), "deny") << *line;
  EXPECT_EQ(claude.Wait(std::chrono::seconds(20)), 0);

  Settings("hook:\n  budget_ms: 60000\n");
  ChildProcess gemini({TogmalBinary(), "hook", "--host", "gemini"}, env_);
  ASSERT_TRUE(Catches(gemini.pid(), SIGTERM));
  gemini.Kill(SIGTERM);
  auto answer = gemini.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(answer.has_value()) << gemini.Stderr();
  EXPECT_EQ(json::parse(*answer)["decision"], "ask") << *answer;
  EXPECT_EQ(gemini.Wait(std::chrono::seconds(20)), 0);
}

TEST_F(HookFaults, CursorsFileReadIsRefusedWhenASignalStopsTheHook) {
  // Cursor's beforeReadFile cannot ask, so once the hook knows the event, a
  // signal's answer is deny there. The database is locked, so the hook is
  // still deciding when the signal comes (if the lock wait ends first, the
  // unrecorded decision is an ask, which that event turns into deny too).
  ASSERT_NO_FATAL_FAILURE(CreateDatabase());
  SQLite::Database locker((root_ / "togmal.db").string(), SQLite::OPEN_READWRITE);
  auto lock = std::make_unique<SQLite::Transaction>(locker, SQLite::TransactionBehavior::IMMEDIATE);
  ChildProcess hook({TogmalBinary(), "hook", "--host", "cursor"}, env_);
  ASSERT_TRUE(Catches(hook.pid(), SIGTERM));
  const json read = {{"conversation_id", "c"},
                     {"hook_event_name", "beforeReadFile"},
                     {"workspace_roots", json::array({(root_ / "proj").string()})},
                     {"file_path", (root_ / "proj/README.md").string()},
                     {"content", "hello"}};
  ASSERT_TRUE(hook.Send(read.dump()));
  hook.CloseStdin();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  hook.Kill(SIGTERM);
  auto line = hook.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(line.has_value()) << hook.Stderr();
  EXPECT_EQ(json::parse(*line)["permission"], "deny") << *line;
  EXPECT_EQ(hook.Wait(std::chrono::seconds(20)), 0);
  lock.reset();
  ExpectVerifiedTrail();
}

TEST_F(HookFaults, SigpipeIsIgnoredAndTheRealDecisionFollows) {
  // SIGPIPE does not stop the hook: it still writes its own decision when it
  // can (and exits 2 when stdout itself is gone: hook_test.cpp).
  ChildProcess hook({TogmalBinary(), "hook"}, env_);
  ASSERT_TRUE(Catches(hook.pid(), SIGTERM));
  hook.Kill(SIGPIPE);
  ASSERT_TRUE(hook.Send(Event("Bash", {{"command", "ls -la"}}).dump()));
  hook.CloseStdin();
  auto line = hook.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(line.has_value()) << hook.Stderr();
  EXPECT_EQ(Decision(*line), "allow") << *line;
  EXPECT_EQ(hook.Wait(std::chrono::seconds(20)), 0);
}

TEST_F(HookFaults, SigtermWhileTheDatabaseIsLockedStillAnswers) {
  // Create the database, then hold its write lock.
  ASSERT_NO_FATAL_FAILURE(CreateDatabase());
  SQLite::Database locker((root_ / "togmal.db").string(), SQLite::OPEN_READWRITE);
  auto lock = std::make_unique<SQLite::Transaction>(locker, SQLite::TransactionBehavior::IMMEDIATE);
  ChildProcess hook({TogmalBinary(), "hook"}, env_);
  ASSERT_TRUE(Catches(hook.pid(), SIGTERM));
  ASSERT_TRUE(hook.Send(Event("Bash", {{"command", "git status"}}).dump()));
  hook.CloseStdin();
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // into the busy wait
  hook.Kill(SIGTERM);
  // Either the signal's answer or, if the lock wait ended first, the
  // unrecorded decision tightened to ask: never an allow, never nothing.
  auto line = hook.ReadLine(std::chrono::seconds(20));
  ASSERT_TRUE(line.has_value()) << hook.Stderr();
  EXPECT_EQ(Decision(*line), "ask") << *line;
  EXPECT_EQ(hook.Wait(std::chrono::seconds(20)), 0);
  lock.reset();  // rolled back: the lock is released
  ExpectVerifiedTrail();
}

// --- A database that is not a file -------------------------------------------

TEST_F(HookFaults, ADatabaseThatIsNotAFileStillGetsTheFailSafeAnswer) {
  // The decision cannot be recorded, so it is never an allow; and the hook
  // neither blocks on a FIFO nor has SQLite create /dev/null-journal.
  Settings("hook:\n  budget_ms: 60000\n");
  const fs::path fifo = root_ / "fifo.db";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  fs::create_symlink("/dev/null", root_ / "null.db");
  const bool journal_was_there = fs::exists("/dev/null-journal");
  for (const fs::path& database : {fifo, root_ / "null.db"}) {
    testing::EnvChanges env = env_;
    env["TOGMAL_DB"] = database.string();
    auto result = RunProcess({TogmalBinary(), "hook"}, Event("Bash", {{"command", "ls"}}).dump(),
                             env, std::chrono::seconds(30));
    EXPECT_EQ(result.exit_code, 0) << database << ": " << result.err;
    EXPECT_EQ(Decision(result.out), "ask") << database << ": " << result.out;
    EXPECT_NE(Reason(result.out).find(database.string()), std::string::npos) << result.out;
  }
  if (!journal_was_there) {
    EXPECT_FALSE(fs::exists("/dev/null-journal"));
  }
}

// --- The budget holds for any input -----------------------------------------

// Feeds `input` and measures until the answer line is on stdout. The budget
// is half the bound asserted, which also allows for the process's own start
// (StartCost: a sanitizer build spends a tenth of a second or more loading
// before main).
struct TimedAnswer {
  std::optional<std::string> line;
  Clock::duration took{};
  int exit_code = -1;
  std::string err;
};

TimedAnswer RunTimed(const std::string& input, const testing::EnvChanges& env) {
  TimedAnswer result;
  const auto started = Clock::now();
  ChildProcess hook({TogmalBinary(), "hook"}, env);
  hook.Send(input);
  hook.CloseStdin();
  result.line = hook.ReadLine(std::chrono::seconds(30));
  result.took = Clock::now() - started;
  result.exit_code = hook.Wait(std::chrono::seconds(60));
  result.err = hook.Stderr();
  return result;
}

// How long the binary takes to start and exit doing nothing, measured as
// the test runs (the machine's load and the build's sanitizers included).
Clock::duration StartCost(const testing::EnvChanges& env) {
  const auto started = Clock::now();
  RunProcess({TogmalBinary(), "--version"}, "", env, std::chrono::seconds(30));
  return Clock::now() - started;
}

class HookBudget : public HookFaults {
 protected:
  void ExpectAnsweredInTimeAndBounded(const std::string& input, const char* what) {
    Settings("hook:\n  budget_ms: 500\n");
    const Clock::duration start_cost = StartCost(env_);
    const TimedAnswer answer = RunTimed(input, env_);
    ASSERT_TRUE(answer.line.has_value()) << what << ": no answer; " << answer.err;
    EXPECT_LT(answer.took, std::chrono::seconds(1) + start_cost) << what;
    // The watchdog's ask, or the classifier's own decision if a fast build
    // got there first: either way in time, and never a silent nothing.
    const std::string decision = Decision(*answer.line);
    EXPECT_TRUE(decision == "ask" || decision == "allow")
        << what << ": " << answer.line->substr(0, 300);
    EXPECT_EQ(answer.exit_code, 0) << what << ": " << answer.err;
    const auto entries = Audit();
    EXPECT_FALSE(entries.empty()) << what << ": not recorded";
    for (const store::AuditEntry& entry : entries) {
      // The input is bounded; the rest of a row is reasons and details.
      EXPECT_LE(entry.input.dump().size(), store::kMaxStoredInputBytes) << what;
      EXPECT_LT(store::CanonicalJson(entry).size(), store::kMaxStoredInputBytes + (16u << 10))
          << what;
    }
    ExpectVerifiedTrail();
  }
};

TEST_F(HookBudget, FiftyMegabyteCommand) {
  const std::string command = "echo " + std::string(50u << 20, 'a');
  ExpectAnsweredInTimeAndBounded(Event("Bash", {{"command", command}}).dump(), "50 MB command");
  for (const store::AuditEntry& entry : Audit()) {
    if (!entry.input.contains("oversize_input")) continue;
    const json& record = entry.input["oversize_input"];
    EXPECT_GT(record["bytes"].get<std::size_t>(), 50u << 20);
    EXPECT_EQ(record["sha256"].get<std::string>().size(), 64u);
  }
}

TEST_F(HookBudget, ThreeHundredThousandKeys) {
  json input = {{"command", "ls"}};
  for (int i = 0; i < 300000; ++i) input["k" + std::to_string(i)] = i;
  ExpectAnsweredInTimeAndBounded(Event("Bash", input).dump(), "300,000 keys");
}

TEST_F(HookBudget, DeepInput) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  ExpectAnsweredInTimeAndBounded(
      R"({"tool_name": "Bash", "tool_input": {"command": "ls", "x": )" + deep + "}}",
      "200,000 levels");
  // Input that is not usable JSON is kept as a cut of its text, with its size
  // and the digest of all of it.
  const auto entries = Audit();
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_TRUE(entries[0].input.contains("malformed_input"))
      << entries[0].input.dump().substr(0, 300);
  EXPECT_EQ(entries[0].input.value("bytes", std::size_t{0}),
            400000u + 62u);  // with the line end Send adds
  EXPECT_EQ(entries[0].input.value("sha256", std::string()).size(), 64u);
}

TEST_F(HookBudget, OversizeInputIsNotStoredWholeOnTheNormalPath) {
  // Time enough to decide: the decision is the classifier's, and the audit
  // row holds the input's size, digest and beginning only.
  Settings("hook:\n  budget_ms: 60000\n");
  const std::string command = "echo " + std::string(1u << 20, 'a') + " && rm -rf /";
  auto result = RunProcess({TogmalBinary(), "hook"}, Event("Bash", {{"command", command}}).dump(),
                           env_, std::chrono::seconds(60));
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(Decision(result.out), "deny");
  const auto entries = Audit();
  ASSERT_EQ(entries.size(), 1u);
  const json& record = entries[0].input["oversize_input"];
  ASSERT_TRUE(record.is_object()) << entries[0].input.dump().substr(0, 300);
  EXPECT_EQ(record["bytes"], json({{"command", command}}).dump().size());
  EXPECT_LE(entries[0].input.dump().size(), store::kStoredInputCutBytes + 512);
  EXPECT_EQ(record["cut"]["command"].get<std::string>().rfind("echo aaaa", 0), 0u);
  ExpectVerifiedTrail();
}

TEST_F(HookBudget, TheHostsOtherFieldsAreStoredBoundedToo) {
  // Not only the tool input: a megabyte of cwd, session id or tool name is
  // cut to store::kMaxStoredFieldBytes in the row.
  Settings("hook:\n  budget_ms: 60000\n");
  const std::string huge(1u << 20, 'x');
  json cwd = Event("Bash", {{"command", "ls"}});
  cwd["cwd"] = "/tmp/" + huge;
  json session = Event("Bash", {{"command", "ls"}});
  session["session_id"] = huge;
  json tool = Event(huge, json::object());
  for (const json& event : {cwd, session, tool}) {
    auto result =
        RunProcess({TogmalBinary(), "hook"}, event.dump(), env_, std::chrono::seconds(60));
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_LT(result.out.size(), 4096u);
  }
  const auto entries = Audit();
  ASSERT_EQ(entries.size(), 3u);
  for (const store::AuditEntry& entry : entries) {
    EXPECT_LT(store::CanonicalJson(entry).size(), 3 * store::kMaxStoredFieldBytes + (8u << 10));
  }
  ExpectVerifiedTrail();
}

TEST_F(HookBudget, ALockedDatabaseDoesNotDelayTheFallback) {
  // The watchdog answers first and records afterwards, so a lock held past
  // the hook's busy timeout does not push the answer past the budget.
  ASSERT_NO_FATAL_FAILURE(CreateDatabase());
  Settings("hook:\n  budget_ms: 300\n");
  const Clock::duration start_cost = StartCost(env_);
  SQLite::Database locker((root_ / "togmal.db").string(), SQLite::OPEN_READWRITE);
  auto lock = std::make_unique<SQLite::Transaction>(locker, SQLite::TransactionBehavior::IMMEDIATE);
  const auto started = Clock::now();
  ChildProcess hook({TogmalBinary(), "hook"}, env_);
  ASSERT_TRUE(hook.Send(R"({"tool_name": "Bash", "tool_input": {"command": )"));  // no EOF
  auto line = hook.ReadLine(std::chrono::seconds(20));
  const auto took = Clock::now() - started;
  ASSERT_TRUE(line.has_value()) << hook.Stderr();
  EXPECT_EQ(Decision(*line), "ask");
  EXPECT_LT(took, std::chrono::milliseconds(1000) + start_cost)
      << "300 ms budget, then the watchdog's own 120 ms lock wait";
  EXPECT_EQ(hook.Wait(std::chrono::seconds(20)), 0);
  lock.reset();  // rolled back: the lock is released
  ExpectVerifiedTrail();
}

TEST_F(HookBudget, TheLockWaitFollowsTheBudget) {
  // A hook waits two fifths of its budget for another process's write lock,
  // so a person who gives the hook more time on a busy machine also gives it
  // more time to record its decision. Here the lock is held 1.5 s: far past
  // the default budget's 400 ms wait, inside an 8 s budget's 3.2 s.
  ASSERT_NO_FATAL_FAILURE(CreateDatabase());
  // The lock is released after `hold`, or once the hook has answered.
  auto hold_lock_then_run_hook = [&](std::optional<std::chrono::milliseconds> hold) {
    SQLite::Database locker((root_ / "togmal.db").string(), SQLite::OPEN_READWRITE);
    auto lock =
        std::make_unique<SQLite::Transaction>(locker, SQLite::TransactionBehavior::IMMEDIATE);
    std::thread release;
    if (hold) {
      release = std::thread([&] {
        std::this_thread::sleep_for(*hold);
        lock.reset();  // rolled back: the lock is released
      });
    }
    auto result = RunProcess({TogmalBinary(), "hook"}, Event("Bash", {{"command", "ls"}}).dump(),
                             env_, std::chrono::seconds(60));
    if (release.joinable()) release.join();
    return result;
  };
  Settings("hook:\n  budget_ms: 8000\n");
  const auto waited = hold_lock_then_run_hook(std::chrono::milliseconds(1500));
  ASSERT_EQ(waited.exit_code, 0) << waited.err;
  EXPECT_EQ(Decision(waited.out), "allow") << waited.out << waited.err;

  // With the default budget a lock held throughout outlasts the wait: the
  // decision cannot be recorded, so it is not an approval.
  Settings("hook:\n  budget_ms: 1000\n");
  const auto gave_up = hold_lock_then_run_hook(std::nullopt);
  ASSERT_EQ(gave_up.exit_code, 0) << gave_up.err;
  EXPECT_EQ(Decision(gave_up.out), "ask") << gave_up.out << gave_up.err;
  ExpectVerifiedTrail();
}

TEST_F(HookBudget, TheWatchdogsRecordWaitsAtMostTwoSecondsForTheLock) {
  // Once the budget has run out the host has its answer but waits for the
  // process to end, so the watchdog's record waits at most 2 s for the lock,
  // not the 4 s that two fifths of a 10 s budget would give the decision.
  ASSERT_NO_FATAL_FAILURE(CreateDatabase());
  Settings("hook:\n  budget_ms: 10000\n");
  SQLite::Database locker((root_ / "togmal.db").string(), SQLite::OPEN_READWRITE);
  auto lock = std::make_unique<SQLite::Transaction>(locker, SQLite::TransactionBehavior::IMMEDIATE);
  ChildProcess hook({TogmalBinary(), "hook"}, env_);
  ASSERT_TRUE(hook.Send(R"({"tool_name": "Bash", "tool_input": {"command": )"));  // no EOF
  auto line = hook.ReadLine(std::chrono::seconds(40));
  const auto answered = Clock::now();
  ASSERT_TRUE(line.has_value()) << hook.Stderr();
  EXPECT_EQ(Decision(*line), "ask");
  EXPECT_EQ(hook.Wait(std::chrono::seconds(20)), 0);
  const auto lingered = Clock::now() - answered;
  EXPECT_LT(lingered, std::chrono::milliseconds(3500)) << hook.Stderr();
  EXPECT_NE(hook.Stderr().find("audit: "), std::string::npos) << hook.Stderr();
  lock.reset();  // rolled back: the lock is released
  ExpectVerifiedTrail();
}

}  // namespace
}  // namespace togmal
