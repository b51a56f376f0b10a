// hook_process_timer: times `togmal hook` as a whole process against the
// minimal baseline program, alternating the two so both see the same machine
// state (budget: togmal ≤ 1.5× the baseline, docs/performance.md).
//
//   hook_process_timer [--runs N] [--max-ratio R] [--baseline-is-togmal]
//                      TOGMAL BASELINE INPUT.json...
//
// --baseline-is-togmal runs BASELINE as `BASELINE hook` too, on its own
// database: an A/B comparison of two togmal builds in one run.
//
// Each run is fork + exec with stdin from the input file and stdout/stderr to
// /dev/null, no shell in between; 10 warm-up pairs per input, then N pairs.
// togmal runs with an isolated database and config (a fresh temporary folder),
// so it pays what a real first-time hook pays on every call: open the database,
// append the audit entry, close. Prints the median and 90th percentile
// of each and the ratio of the medians; exits 1 when a ratio exceeds
// --max-ratio (0 = report only).
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Sample {
  double median_us = 0;
  double p90_us = 0;
};

// One fork/exec/wait; returns wall microseconds, or a negative value when the
// child did not exit 0.
double RunOnce(const std::vector<std::string>& argv, const std::string& input) {
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  auto started = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    int in = open(input.c_str(), O_RDONLY);
    int null = open("/dev/null", O_WRONLY);
    if (in < 0 || null < 0) _exit(126);
    dup2(in, 0);
    dup2(null, 1);
    dup2(null, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return -1;
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - started).count();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? us : -1;
}

Sample Summarise(std::vector<double> times) {
  std::sort(times.begin(), times.end());
  return {times[times.size() / 2], times[times.size() * 9 / 10]};
}

int Usage() {
  std::fprintf(stderr,
               "usage: hook_process_timer [--runs N] [--max-ratio R] [--baseline-is-togmal] TOGMAL "
               "BASELINE INPUT.json...\n");
  return 64;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 200;
  double max_ratio = 0;
  bool baseline_is_togmal = false;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
    } else if (arg == "--max-ratio" && i + 1 < argc) {
      max_ratio = std::atof(argv[++i]);
    } else if (arg == "--baseline-is-togmal") {
      baseline_is_togmal = true;
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() < 3 || runs < 1) return Usage();

  // TMPDIR picks the file system the database lives on (e.g. /dev/shm to
  // take the disk's sync cost out of the comparison).
  const char* tmpdir = std::getenv("TMPDIR");
  std::string scratch_template =
      std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") +
      "/togmal-hook-bench-XXXXXX";
  if (mkdtemp(scratch_template.data()) == nullptr) return 70;
  const fs::path scratch = scratch_template;
  setenv("TOGMAL_DB", (scratch / "togmal.db").c_str(), 1);
  setenv("XDG_CONFIG_HOME", (scratch / "config").c_str(), 1);
  setenv("XDG_DATA_HOME", (scratch / "data").c_str(), 1);
  unsetenv("TOGMAL_LOG");

  std::vector<std::string> togmal = {positional[0], "hook"};
  std::vector<std::string> baseline = {positional[1]};
  if (baseline_is_togmal) {
    togmal = {positional[0], "hook", "--db", (scratch / "a.db").string()};
    baseline = {positional[1], "hook", "--db", (scratch / "b.db").string()};
  }
  bool over_budget = false;
  std::printf("%-24s %12s %12s %12s %12s %7s\n", "input", "base med µs", "base p90 µs",
              "togmal med", "togmal p90", "ratio");
  for (std::size_t i = 2; i < positional.size(); ++i) {
    const std::string& input = positional[i];
    std::vector<double> base_times;
    std::vector<double> togmal_times;
    bool failed = false;
    for (int run = 0; run < runs + 10 && !failed; ++run) {
      double base = RunOnce(baseline, input);
      double hook = RunOnce(togmal, input);
      failed = base < 0 || hook < 0;
      if (run < 10) continue;  // warm-up: page cache, database creation
      base_times.push_back(base);
      togmal_times.push_back(hook);
    }
    if (failed) {
      std::fprintf(stderr, "%s: a run did not exit 0\n", input.c_str());
      fs::remove_all(scratch);
      return 70;
    }
    Sample base = Summarise(base_times);
    Sample hook = Summarise(togmal_times);
    double ratio = hook.median_us / base.median_us;
    over_budget = over_budget || (max_ratio > 0 && ratio > max_ratio);
    std::printf("%-24s %12.0f %12.0f %12.0f %12.0f %7.2f\n", fs::path(input).filename().c_str(),
                base.median_us, base.p90_us, hook.median_us, hook.p90_us, ratio);
  }
  std::error_code ignored;
  fs::remove_all(scratch, ignored);
  return over_budget ? 1 : 0;
}
