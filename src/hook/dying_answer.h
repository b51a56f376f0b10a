#pragma once
// What `togmal hook` prints when it is told to stop before it has answered.
//
// A host reads a hook that dies without printing as "no objection" (Claude
// Code: a failed hook does not block), so SIGTERM, SIGHUP, SIGINT and SIGQUIT
// are caught: the handler prints the fail-safe answer (hook.on_error: ask, or
// deny) with write(2) and ends the process with _exit(0), so that the host
// reads the answer like any other. The answer is formatted before any slow
// work, because a signal handler may not allocate, lock or format; it is
// replaced once settings.yaml has said what on_error is.
//
// Only one answer may reach stdout: the deciding thread, the watchdog and the
// handler each claim it first (ClaimTheAnswer). A signal that arrives after
// another writer claimed the answer does nothing; that writer finishes.
//
// SIGPIPE is ignored rather than answered: the hook keeps going and writes its
// real decision, and if stdout itself is the closed pipe, the write fails with
// EPIPE and the hook exits 2 (a block). SIGKILL cannot be caught.

#include <cstddef>
#include <span>
#include <string_view>

namespace togmal::hook {

/// The signals whose arrival is answered (SIGTERM, SIGHUP, SIGINT, SIGQUIT).
std::span<const int> AnsweredSignals();

/// True for the first caller in the process: that caller, and only it, writes
/// the answer to stdout. Async-signal-safe.
bool ClaimTheAnswer();

/// Installs the handlers of AnsweredSignals() and ignores SIGPIPE. Until
/// SetDyingAnswer is called, a signal is answered with `answer`, which must
/// stay valid for the life of the process (a string literal). Cheap: one
/// sigaction per signal, nothing formatted.
void InstallDyingAnswer(std::string_view static_answer);

/// Replaces what a signal is answered with (copied; one JSON line, at most
/// kMaxDyingAnswerBytes, else the previous answer stays). Not thread-safe:
/// the deciding thread calls it.
void SetDyingAnswer(std::string_view answer);

/// Holds the answered signals back in the calling thread while it lives, so
/// that one arriving while settings.yaml is read is answered after it, with
/// the on_error it sets. Create it before any other thread exists (threads
/// inherit the mask); the settings files are bounded reads, so a signal waits
/// milliseconds at most.
class HeldSignals {
 public:
  HeldSignals();
  ~HeldSignals();
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;
};

/// The longest answer SetDyingAnswer keeps.
inline constexpr std::size_t kMaxDyingAnswerBytes = 2048;

}  // namespace togmal::hook
