#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "togmal/mcp/transport.h"

namespace togmal::mcp {
namespace {

// The write end of the wake pipe of the transport that handles signals. A
// plain atomic int: no constructor runs at start-up, and a signal handler may
// read it.
std::atomic<int> g_signal_wake_fd{-1};

void WakeOnSignal(int /*signal*/) {
  int fd = g_signal_wake_fd.load();
  if (fd >= 0) {
    char byte = 's';
    [[maybe_unused]] ssize_t ignored = write(fd, &byte, 1);
  }
}

constexpr std::size_t kReadChunk = 64 * 1024;

}  // namespace

StdioTransport::StdioTransport(std::size_t max_line_bytes, int in_fd, int out_fd)
    : max_line_bytes_(max_line_bytes), in_fd_(in_fd), out_fd_(out_fd) {
  if (pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) {
    throw std::runtime_error(std::string("cannot create the wake pipe: ") + std::strerror(errno));
  }
}

StdioTransport::~StdioTransport() {
  int expected = wake_pipe_[1];
  g_signal_wake_fd.compare_exchange_strong(expected, -1);
  close(wake_pipe_[0]);
  close(wake_pipe_[1]);
}

void StdioTransport::Stop() {
  char byte = 'x';
  [[maybe_unused]] ssize_t ignored = write(wake_pipe_[1], &byte, 1);
}

void StdioTransport::StopOnSignals(std::initializer_list<int> signals) {
  g_signal_wake_fd.store(wake_pipe_[1]);
  struct sigaction action {};
  action.sa_handler = WakeOnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int signal_number : signals) sigaction(signal_number, &action, nullptr);
}

bool StdioTransport::Fill() {
  for (;;) {
    pollfd fds[2] = {{in_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    int ready = poll(fds, 2, -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      spdlog::error("poll on stdin failed: {}", std::strerror(errno));
      return false;
    }
    if (fds[1].revents != 0) return false;  // Stop() or a signal
    if (fds[0].revents == 0) continue;
    char chunk[kReadChunk];
    ssize_t got = read(in_fd_, chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      spdlog::error("reading stdin failed: {}", std::strerror(errno));
      return false;
    }
    if (got == 0) return false;
    buffer_.append(chunk, static_cast<std::size_t>(got));
    return true;
  }
}

IncomingLine StdioTransport::Oversize() const {
  return {IncomingLine::Kind::kOversize,
          "message longer than the limit of " + std::to_string(max_line_bytes_) + " bytes"};
}

IncomingLine StdioTransport::Receive() {
  bool discarding = false;  // inside an oversize line, looking for its end
  for (;;) {
    if (closed_) return {IncomingLine::Kind::kClosed, {}};
    std::size_t newline = buffer_.find('\n', scan_from_);
    if (newline != std::string::npos) {
      const std::size_t begin = start_;
      start_ = newline + 1;
      scan_from_ = start_;
      if (discarding || newline - begin > max_line_bytes_) return Oversize();
      std::string line = buffer_.substr(begin, newline - begin);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      return {IncomingLine::Kind::kMessage, std::move(line)};
    }
    // Only the unread rest is kept before reading more.
    buffer_.erase(0, start_);
    start_ = 0;
    if (buffer_.size() > max_line_bytes_) {
      // Keep memory bounded: drop what we have and skip to the newline.
      discarding = true;
      buffer_.clear();
    }
    scan_from_ = buffer_.size();
    if (!Fill()) {
      closed_ = true;
      if (discarding) return Oversize();
      if (!buffer_.empty()) {
        // A last line without its newline is still a message.
        std::string line = std::move(buffer_);
        buffer_.clear();
        scan_from_ = 0;
        if (line.size() > max_line_bytes_) return Oversize();
        return {IncomingLine::Kind::kMessage, std::move(line)};
      }
      return {IncomingLine::Kind::kClosed, {}};
    }
  }
}

void StdioTransport::Send(std::string_view message) {
  std::string line;
  line.reserve(message.size() + 1);
  line.append(message);
  line.push_back('\n');
  int failure = 0;
  {
    std::lock_guard lock(write_mutex_);
    if (write_failed_) return;
    std::size_t written = 0;
    while (written < line.size()) {
      ssize_t n = write(out_fd_, line.data() + written, line.size() - written);
      if (n < 0) {
        if (errno == EINTR) continue;
        failure = errno;
        write_failed_ = true;  // client went away; keep reading until EOF
        break;
      }
      written += static_cast<std::size_t>(n);
    }
  }
  // Logged outside the lock: a log record may itself be forwarded to the
  // client through Send().
  if (failure != 0) {
    spdlog::warn("writing to stdout failed: {}; further output is dropped", std::strerror(failure));
  }
}

}  // namespace togmal::mcp
