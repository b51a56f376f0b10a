#include "dying_answer.h"

#include <pthread.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace togmal::hook {
namespace {

// A handler cannot be given state, so everything it reads is here, and only
// through lock-free atomics.
std::atomic<bool> answer_claimed{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// The answer a handler prints: one of three views, published by index. View 0
// is the static answer; 1 and 2 alternate as SetDyingAnswer's copies, so a
// handler that interrupts SetDyingAnswer reads the previous, complete one.
struct AnswerView {
  const char* data = nullptr;
  std::size_t size = 0;
};
std::array<AnswerView, 3> views{};
std::array<std::array<char, kMaxDyingAnswerBytes>, 2> copies{};
std::atomic<int> published{-1};
static_assert(std::atomic<int>::is_always_lock_free);

// Every signal whose default action ends the process and that can be caught,
// but those of a crash (SIGSEGV, SIGBUS, …, whose state cannot be trusted and
// which sanitizers report) and of a debugger (SIGTRAP).
constexpr std::array<int, 11> kAnsweredSignals = {SIGTERM, SIGHUP,    SIGINT,  SIGQUIT,
                                                  SIGXCPU, SIGXFSZ,   SIGALRM, SIGUSR1,
                                                  SIGUSR2, SIGVTALRM, SIGPROF};

// write(2) until all of `size` bytes are out; false if stdout refuses them.
bool WriteAll(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t wrote = ::write(fd, data, size);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    data += wrote;
    size -= static_cast<std::size_t>(wrote);
  }
  return true;
}

void WriteNote(const char* text) {
  [[maybe_unused]] const bool ignored = WriteAll(STDERR_FILENO, text, std::strlen(text));
}

// Async-signal-safe: atomics, write(2), _exit(2) and nothing else.
extern "C" void AnswerAndExit(int signal_number) {
  if (answer_claimed.exchange(true)) return;  // another writer is answering
  const int index = published.load(std::memory_order_acquire);
  if (index < 0) _exit(2);  // not installed: cannot happen, but never exit 0 silently
  const AnswerView view = views[static_cast<std::size_t>(index)];
  // " 15": by hand, since snprintf and strsignal are not async-signal-safe.
  char digits[4] = {'\0', '\0', '\0', '\0'};
  char* number = digits + 3;
  int value = signal_number;
  do {
    *--number = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value > 0 && number > digits + 1);
  *--number = ' ';
  if (!WriteAll(STDOUT_FILENO, view.data, view.size)) {
    WriteNote("togmal hook: stopped by signal");
    WriteNote(number);
    WriteNote(
        " and could not write the fail-safe decision to stdout; exiting 2 so that the call "
        "is blocked\n");
    _exit(2);
  }
  WriteNote("togmal hook: stopped by signal");
  WriteNote(number);
  WriteNote(" before it decided; answered the fail-safe decision (not recorded)\n");
  _exit(0);  // the host reads the answer of a hook that exits 0
}

}  // namespace

std::span<const int> AnsweredSignals() { return kAnsweredSignals; }

bool ClaimTheAnswer() { return !answer_claimed.exchange(true); }

void InstallDyingAnswer(std::string_view static_answer) {
  views[0] = {static_answer.data(), static_answer.size()};
  published.store(0, std::memory_order_release);
  struct sigaction action {};
  action.sa_handler = AnswerAndExit;
  // Every answered signal is blocked while one is handled, so two cannot
  // interleave; SA_RESTART keeps the other threads' reads and writes going.
  sigemptyset(&action.sa_mask);
  for (int signal_number : kAnsweredSignals) sigaddset(&action.sa_mask, signal_number);
  action.sa_flags = SA_RESTART;
  for (int signal_number : kAnsweredSignals) sigaction(signal_number, &action, nullptr);
  // A closed stdout must be an EPIPE the writer can report (exit 2), not a
  // silent death; a closed stderr must not end the process either.
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  sigaction(SIGPIPE, &ignore, nullptr);
}

namespace {

sigset_t AnsweredSet() {
  sigset_t set{};
  sigemptyset(&set);
  for (int signal_number : kAnsweredSignals) sigaddset(&set, signal_number);
  return set;
}

}  // namespace

HeldSignals::HeldSignals() {
  const sigset_t set = AnsweredSet();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

HeldSignals::~HeldSignals() {
  // A signal that arrived meanwhile is delivered here, before this returns.
  const sigset_t set = AnsweredSet();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void SetDyingAnswer(std::string_view answer) {
  if (answer.empty() || answer.size() > kMaxDyingAnswerBytes) return;
  const int current = published.load(std::memory_order_relaxed);
  const int next = current == 1 ? 2 : 1;
  std::array<char, kMaxDyingAnswerBytes>& copy = copies[static_cast<std::size_t>(next - 1)];
  std::memcpy(copy.data(), answer.data(), answer.size());
  views[static_cast<std::size_t>(next)] = {copy.data(), answer.size()};
  published.store(next, std::memory_order_release);
}

}  // namespace togmal::hook
