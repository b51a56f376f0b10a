#pragma once
/// The byte side of MCP over stdio: one JSON-RPC message per line. The server
/// only ever sees whole lines and hands back whole messages; it never touches
/// a file descriptor (so tests drive it through an in-memory transport,
/// tests/support/memory_transport.h).

#include <cstddef>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>

namespace togmal::mcp {

/// Lines longer than this are discarded (and answered with an error).
inline constexpr std::size_t kDefaultMaxLineBytes = 8u * 1024u * 1024u;

/// What Receive() yields.
struct IncomingLine {
  enum class Kind {
    kMessage,   ///< `text` holds one line, without its newline
    kOversize,  ///< a line over the cap was skipped up to its newline; `text` says why
    kClosed,    ///< end of input (EOF or Stop()); nothing more will come
  };
  Kind kind = Kind::kClosed;
  std::string text;
};

class Transport {
 public:
  virtual ~Transport() = default;
  /// Blocks until the next line. Called from one thread only.
  virtual IncomingLine Receive() = 0;
  /// Writes one message plus a newline, atomically with respect to other
  /// Send() calls. Thread-safe.
  virtual void Send(std::string_view message) = 0;
};

/// Reads fd 0 and writes fd 1 (or the descriptors given).
class StdioTransport final : public Transport {
 public:
  explicit StdioTransport(std::size_t max_line_bytes = kDefaultMaxLineBytes, int in_fd = 0,
                          int out_fd = 1);
  ~StdioTransport() override;
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  IncomingLine Receive() override;
  void Send(std::string_view message) override;

  /// Makes a blocked or later Receive() return kClosed. Async-signal-safe.
  void Stop();

  /// Installs handlers so that these signals call Stop() on this transport
  /// (one transport per process may do this).
  void StopOnSignals(std::initializer_list<int> signals);

 private:
  /// Fills `buffer_` with more input; false at EOF, error or Stop().
  bool Fill();
  IncomingLine Oversize() const;

  std::size_t max_line_bytes_;
  int in_fd_;
  int out_fd_;
  int wake_pipe_[2] = {-1, -1};
  std::string buffer_;
  /// Where the lines not yet returned begin in buffer_. The bytes before it
  /// are dropped only before the next read, not per line: one read brings
  /// hundreds of lines, and erasing each from the front moved the rest.
  std::size_t start_ = 0;
  std::size_t scan_from_ = 0;  ///< bytes of buffer_ already known to hold no newline
  bool closed_ = false;
  std::mutex write_mutex_;
  bool write_failed_ = false;
};

}  // namespace togmal::mcp
