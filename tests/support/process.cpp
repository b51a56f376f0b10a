#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>

extern char** environ;

namespace togmal::testing {
namespace {

using Clock = std::chrono::steady_clock;

int ToExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// The environment a child gets: ours with `changes` applied.
std::vector<std::string> ChildEnvironment(const EnvChanges& changes) {
  std::vector<std::string> result;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string_view text = *entry;
    const std::string name(text.substr(0, text.find('=')));
    if (changes.find(name) == changes.end()) result.emplace_back(text);
  }
  for (const auto& [name, value] : changes) {
    if (value) result.push_back(name + "=" + *value);
  }
  return result;
}

// `program` itself when it names a path, else the first executable of that
// name on $PATH (as execvp would find it), or `program` when there is none.
std::string ResolveProgram(const std::string& program) {
  if (program.find('/') != std::string::npos) return program;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const std::size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return program;
    dirs.remove_prefix(colon + 1);
  }
}

// Everything the child needs is built before fork(): the tests start
// processes from several threads at once, and a child of a multi-threaded
// parent may only make async-signal-safe calls before exec. setenv() or a
// vector's malloc there deadlocks when another thread held the allocator's
// lock at the fork (it did, under ASan: hooks killed after 60 s).
pid_t Spawn(const std::vector<std::string>& argv, const EnvChanges& env, int* in, int* out,
            int* err) {
  const std::string program = ResolveProgram(argv.at(0));
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  const std::vector<std::string> environment = ChildEnvironment(env);
  std::vector<char*> envp;
  for (const auto& entry : environment) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);
  int pin[2], pout[2], perr[2];
  if (pipe2(pin, O_CLOEXEC) != 0 || pipe2(pout, O_CLOEXEC) != 0 || pipe2(perr, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(pin[0], 0);
    dup2(pout[1], 1);
    dup2(perr[1], 2);
    execve(program.c_str(), args.data(), envp.data());
    _exit(127);
  }
  close(pin[0]);
  close(pout[1]);
  close(perr[1]);
  *in = pin[1];
  *out = pout[0];
  *err = perr[0];
  return pid;
}

}  // namespace

ProcessOutput RunProcess(const std::vector<std::string>& argv, const std::string& input,
                         const EnvChanges& env, std::chrono::milliseconds timeout) {
  signal(SIGPIPE, SIG_IGN);
  int in, out, err;
  pid_t pid = Spawn(argv, env, &in, &out, &err);
  fcntl(in, F_SETFL, O_NONBLOCK);
  ProcessOutput result;
  std::size_t written = 0;
  if (input.empty()) {
    close(in);
    in = -1;
  }
  auto deadline = Clock::now() + timeout;
  bool out_open = true, err_open = true;
  char buffer[65536];
  while (out_open || err_open) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      kill(pid, SIGKILL);
      break;
    }
    pollfd fds[3] = {{out, POLLIN, 0}, {err, POLLIN, 0}, {in, POLLOUT, 0}};
    if (!out_open) fds[0].fd = -1;
    if (!err_open) fds[1].fd = -1;
    int n = poll(fds, 3, static_cast<int>(left.count()));
    if (n < 0 && errno != EINTR) break;
    if (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) {
      ssize_t w = write(in, input.data() + written, input.size() - written);
      if (w > 0) written += static_cast<std::size_t>(w);
      if (w < 0 && errno != EAGAIN) written = input.size();
      if (written == input.size()) {
        close(in);
        in = -1;
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        ssize_t r = read(fds[i].fd, buffer, sizeof buffer);
        if (r > 0) {
          (i == 0 ? result.out : result.err).append(buffer, static_cast<std::size_t>(r));
        } else if (r == 0 || errno != EINTR) {
          (i == 0 ? out_open : err_open) = false;
        }
      }
    }
  }
  if (in >= 0) close(in);
  close(out);
  close(err);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = ToExitCode(status);
  return result;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const EnvChanges& env) {
  signal(SIGPIPE, SIG_IGN);
  pid_ = Spawn(argv, env, &in_, &out_, &err_);
  fcntl(err_, F_SETFL, O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  if (!exited_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    Wait(std::chrono::seconds(5));
  }
  for (int fd : {in_, out_, err_}) {
    if (fd >= 0) close(fd);
  }
}

bool ChildProcess::Send(const std::string& line) {
  if (in_ < 0) return false;
  std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t w = write(in_, data.data() + done, data.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(w);
  }
  return true;
}

std::optional<std::string> ChildProcess::ReadLine(std::chrono::milliseconds timeout) {
  auto deadline = Clock::now() + timeout;
  char buffer[65536];
  while (true) {
    if (auto newline = out_buffer_.find('\n'); newline != std::string::npos) {
      std::string line = out_buffer_.substr(0, newline);
      out_buffer_.erase(0, newline + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd fd{out_, POLLIN, 0};
    int n = poll(&fd, 1, static_cast<int>(left.count()));
    DrainStderr();
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) continue;
    ssize_t r = read(out_, buffer, sizeof buffer);
    if (r <= 0) return std::nullopt;
    out_buffer_.append(buffer, static_cast<std::size_t>(r));
  }
}

void ChildProcess::CloseStdin() {
  if (in_ >= 0) close(in_);
  in_ = -1;
}

void ChildProcess::Kill(int signal) {
  if (!exited_) kill(pid_, signal);
}

int ChildProcess::Wait(std::chrono::milliseconds timeout) {
  if (exited_) return exit_code_;
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exited_ = true;
      exit_code_ = ToExitCode(status);
      DrainStderr();
      return exit_code_;
    }
    DrainStderr();
    usleep(2000);
  }
  return -1;
}

std::string ChildProcess::Stderr() {
  DrainStderr();
  return err_buffer_;
}

void ChildProcess::DrainStderr() {
  char buffer[65536];
  while (true) {
    ssize_t r = read(err_, buffer, sizeof buffer);
    if (r <= 0) break;
    err_buffer_.append(buffer, static_cast<std::size_t>(r));
  }
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "togmal-test-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace togmal::testing
