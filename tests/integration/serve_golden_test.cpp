// Golden transcripts: each golden/<name>.in is played into `togmal serve`
// (with TOGMAL_TEST_TOOLS=1); stdout must equal golden/<name>.out and stderr
// golden/<name>.err. Only what must vary is normalised: log timestamps, and
// the value of a `requestState` (signed with a per-process random key).
//
// Lines are sent one at a time so that the transcript is deterministic even
// though tool calls run concurrently: after a request the runner waits for
// its response (collecting any notifications and server requests that come
// first); after a notification or a client response it waits for nothing.
// A line starting with `~N ` is sent and then exactly N output lines are
// awaited (for listen acknowledgements and server→client requests). Lines
// starting with `#` are comments. At the end stdin is closed, the rest of
// stdout is collected and the exit code must be 0.
//
// To regenerate after an intended change: TOGMAL_UPDATE_GOLDEN=1 and review
// the diff.
#include <gtest/gtest.h>
#include <re2/re2.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "process.h"

namespace togmal::testing {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

fs::path GoldenDir() { return fs::path(TOGMAL_SOURCE_DIR) / "tests/integration/golden"; }

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::string NormaliseStdout(const std::string& line) {
  static const RE2 kState(R"("requestState":"[A-Za-z0-9_.-]+")");
  std::string out = line;
  RE2::GlobalReplace(&out, kState, R"("requestState":"<requestState>")");
  return out;
}

std::string NormaliseStderr(const std::string& text) {
  static const RE2 kTime(R"(\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\])");
  std::string out = text;
  RE2::GlobalReplace(&out, kTime, "[<time>]");
  return out;
}

/// Whether sending `line` obliges the server to answer it.
bool ExpectsResponse(const std::string& line) {
  json message = json::parse(line, nullptr, false);
  if (message.is_discarded() || !message.is_object()) return true;  // errors get answers
  if (!message.contains("method")) return !message.contains("result") && !message.contains("error");
  return message.contains("id");
}

bool IsResponse(const std::string& line) {
  json message = json::parse(line, nullptr, false);
  return message.is_array() || (message.is_object() && !message.contains("method"));
}

class GoldenTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTest, MatchesTranscript) {
  const std::string name = GetParam();
  std::istringstream input(ReadFile(GoldenDir() / (name + ".in")));
  ChildProcess child({TogmalBinary(), "serve"},
                     {{"TOGMAL_TEST_TOOLS", "1"}, {"TOGMAL_LOG", std::nullopt}});
  std::string out;
  auto collect = [&](const std::string& after) -> std::optional<std::string> {
    auto line = child.ReadLine(std::chrono::seconds(10));
    if (!line) {
      ADD_FAILURE() << "no output after sending: " << after << "\nso far:\n" << out;
      return std::nullopt;
    }
    out += NormaliseStdout(*line) + "\n";
    return line;
  };
  for (std::string line; std::getline(input, line);) {
    if (line.empty() || line[0] == '#') continue;
    int wait_lines = -1;
    if (line[0] == '~') {
      std::size_t space = line.find(' ');
      wait_lines = std::stoi(line.substr(1, space - 1));
      line = line.substr(space + 1);
    }
    ASSERT_TRUE(child.Send(line));
    if (wait_lines >= 0) {
      for (int i = 0; i < wait_lines; ++i) ASSERT_TRUE(collect(line));
    } else if (ExpectsResponse(line)) {
      for (;;) {
        auto got = collect(line);
        ASSERT_TRUE(got);
        if (IsResponse(*got)) break;
      }
    }
  }
  child.CloseStdin();
  EXPECT_EQ(child.Wait(std::chrono::seconds(10)), 0);
  while (auto line = child.ReadLine(std::chrono::seconds(2))) out += NormaliseStdout(*line) + "\n";
  std::string err = NormaliseStderr(child.Stderr());

  if (const char* update = std::getenv("TOGMAL_UPDATE_GOLDEN");
      update && std::string(update) == "1") {
    std::ofstream(GoldenDir() / (name + ".out"), std::ios::binary) << out;
    std::ofstream(GoldenDir() / (name + ".err"), std::ios::binary) << err;
    GTEST_SKIP() << "golden files rewritten";
  }
  EXPECT_EQ(out, ReadFile(GoldenDir() / (name + ".out"))) << "stdout of " << name;
  EXPECT_EQ(err, ReadFile(GoldenDir() / (name + ".err"))) << "stderr of " << name;
}

std::vector<std::string> Transcripts() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(GoldenDir())) {
    if (entry.path().extension() == ".in") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Golden, GoldenTest, ::testing::ValuesIn(Transcripts()),
                         [](const auto& param_info) { return param_info.param; });

}  // namespace
}  // namespace togmal::testing
