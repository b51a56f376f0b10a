// serve_throughput: the serve budgets of docs/performance.md — `togmal_check_tool_call`
// calls per second over one stdio pipe with the audit on, and the server's
// memory after them.
//
//   serve_throughput [--calls N] [--window W] TOGMAL
//
// Starts `togmal serve` on a fresh database and config, initialises a
// 2025-11-25 session, writes N tools/call requests from one thread while
// another reads the answers (as a client pipelining its calls would, with at
// most W requests in flight; 0 = no limit), and
// prints calls/s plus the server's resident memory (VmRSS) and peak
// (VmHWM) and CPU time per call read from /proc before it is told to exit. Exits 1 if any call
// failed.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

bool WriteAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    ssize_t wrote = write(fd, text.data() + done, text.size() - done);
    if (wrote <= 0) return false;
    done += static_cast<std::size_t>(wrote);
  }
  return true;
}

// Reads newline-terminated lines from a pipe.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  bool Next(std::string& line) {
    while (true) {
      std::size_t newline = buffer_.find('\n', start_);
      if (newline != std::string::npos) {
        line.assign(buffer_, start_, newline - start_);
        start_ = newline + 1;
        if (start_ > (1 << 20)) {
          buffer_.erase(0, start_);
          start_ = 0;
        }
        return true;
      }
      char chunk[1 << 16];
      ssize_t got = read(fd_, chunk, sizeof chunk);
      if (got <= 0) return false;
      buffer_.append(chunk, static_cast<std::size_t>(got));
    }
  }

 private:
  int fd_;
  std::string buffer_;
  std::size_t start_ = 0;
};

std::string StatusField(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      std::size_t start = line.find_first_not_of(" \t", field.size() + 1);
      return start == std::string::npos ? "" : line.substr(start);
    }
  }
  return "?";
}

// User plus system CPU seconds the process `pid` has used so far (/proc/PID/stat).
double CpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t after_name = text.rfind(')');
  if (after_name == std::string::npos) return 0;
  std::istringstream fields(text.substr(after_name + 2));
  std::string field;
  long ticks = 0;
  // Fields 3..13 come first; utime and stime are fields 14 and 15.
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index >= 14) ticks += std::atol(field.c_str());
  }
  return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

int main(int argc, char** argv) {
  long calls = 100000;
  long window = 256;
  std::string togmal;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--calls" && i + 1 < argc) {
      calls = std::atol(argv[++i]);
    } else if (arg == "--window" && i + 1 < argc) {
      window = std::atol(argv[++i]);
    } else {
      togmal = arg;
    }
  }
  if (togmal.empty() || calls < 1) {
    std::fprintf(stderr, "usage: serve_throughput [--calls N] [--window W] TOGMAL\n");
    return 64;
  }
  char scratch_template[] = "/tmp/togmal-serve-bench-XXXXXX";
  if (mkdtemp(scratch_template) == nullptr) return 70;
  const fs::path scratch = scratch_template;
  setenv("TOGMAL_DB", (scratch / "togmal.db").c_str(), 1);
  setenv("XDG_CONFIG_HOME", (scratch / "config").c_str(), 1);
  setenv("XDG_DATA_HOME", (scratch / "data").c_str(), 1);
  unsetenv("TOGMAL_LOG");

  int to_child[2];
  int from_child[2];
  if (pipe(to_child) != 0 || pipe(from_child) != 0) return 70;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(to_child[0], 0);
    dup2(from_child[1], 1);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    close(to_child[1]);
    close(from_child[0]);
    execl(togmal.c_str(), togmal.c_str(), "serve", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  signal(SIGPIPE, SIG_IGN);
  LineReader reader(from_child[0]);
  std::string line;

  const json initialize = {{"jsonrpc", "2.0"},
                           {"id", "init"},
                           {"method", "initialize"},
                           {"params",
                            {{"protocolVersion", "2025-11-25"},
                             {"capabilities", json::object()},
                             {"clientInfo", {{"name", "serve_throughput"}, {"version", "1"}}}}}};
  WriteAll(to_child[1], initialize.dump() + "\n");
  if (!reader.Next(line)) return 70;
  WriteAll(to_child[1], R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                        "\n");

  std::atomic<long> answered{0};
  const auto started = std::chrono::steady_clock::now();
  std::thread writer([&] {
    for (long i = 0; i < calls; ++i) {
      // Blocks (no spinning) while the window is full: a spinning writer would
      // take a core from the server it measures.
      for (long seen = answered.load(); window > 0 && i - seen >= window; seen = answered.load()) {
        answered.wait(seen);
      }
      json request = {
          {"jsonrpc", "2.0"},
          {"id", i},
          {"method", "tools/call"},
          {"params",
           {{"name", "togmal_check_tool_call"},
            {"arguments",
             {{"tool_name", "Bash"},
              {"tool_input", {{"command", i % 2 == 0 ? "git status --short" : "ls -la src"}}},
              {"cwd", scratch.string()},
              {"session_id", "bench"},
              {"response_format", "json"}}}}}};
      if (!WriteAll(to_child[1], request.dump() + "\n")) return;
    }
  });
  long failed = 0;
  while (answered < calls && reader.Next(line)) {
    json message = json::parse(line, nullptr, false);
    if (!message.is_object() || !message.contains("id")) continue;  // notifications
    answered.fetch_add(1);
    answered.notify_one();
    if (!message.contains("result") || message["result"].value("isError", false)) ++failed;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  writer.join();
  const double server_cpu = CpuSeconds(pid);
  const std::string rss = StatusField(pid, "VmRSS");
  const std::string peak = StatusField(pid, "VmHWM");
  close(to_child[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  std::error_code ignored;
  fs::remove_all(scratch, ignored);

  std::printf(
      "calls %ld answered %ld failed %ld in %.2f s: %.0f calls/s; server CPU %.0f us/call; "
      "VmRSS %s, VmHWM %s\n",
      calls, answered.load(), failed, seconds, static_cast<double>(answered.load()) / seconds,
      server_cpu * 1e6 / static_cast<double>(std::max(1L, answered.load())), rss.c_str(),
      peak.c_str());
  return answered == calls && failed == 0 ? 0 : 1;
}
