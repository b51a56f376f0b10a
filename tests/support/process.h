#pragma once
// Runs the built togmal binary (or any program) the way a client would: over
// pipes, with no shell in between. Used by integration tests.

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "build_tree.h"

namespace togmal::testing {

struct ProcessOutput {
  int exit_code = -1;  ///< exit status, or 128+signal
  std::string out;     ///< everything written to stdout
  std::string err;     ///< everything written to stderr
};

/// Extra environment for a child: name → value (std::nullopt removes it).
using EnvChanges = std::map<std::string, std::optional<std::string>>;

/// Runs argv to completion with `input` on stdin; kills it after `timeout`.
ProcessOutput RunProcess(const std::vector<std::string>& argv, const std::string& input,
                         const EnvChanges& env = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(30));

/// A child with pipes kept open, for conversations (send a line, read a line).
class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv, const EnvChanges& env = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  /// Writes `line` plus a newline to the child's stdin.
  bool Send(const std::string& line);
  /// Next stdout line (without the newline), or nullopt on EOF or timeout.
  std::optional<std::string> ReadLine(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  /// Closes stdin (EOF for the child).
  void CloseStdin();
  /// Sends a signal.
  void Kill(int signal);
  /// Waits for exit; returns the exit code (128+signal) or -1 on timeout.
  int Wait(std::chrono::milliseconds timeout = std::chrono::seconds(30));
  /// Everything the child wrote to stderr so far (after Wait: all of it).
  std::string Stderr();
  pid_t pid() const { return pid_; }

 private:
  void DrainStderr();
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1, err_ = -1;
  std::string out_buffer_, err_buffer_;
  int exit_code_ = -1;
  bool exited_ = false;
};

/// A fresh empty directory under $TMPDIR, removed by the destructor.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace togmal::testing
