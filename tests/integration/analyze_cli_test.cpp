// `togmal analyze` run as a real process: output, JSON, stdin and exit codes.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "process.h"

namespace togmal {
namespace {

using testing::RunProcess;
using testing::TogmalBinary;

testing::ProcessOutput Analyze(std::vector<std::string> args, const std::string& input = "") {
  args.insert(args.begin(), {TogmalBinary(), "analyze"});
  return RunProcess(args, input, {{"XDG_CONFIG_HOME", "/nonexistent-togmal-test"}});
}

TEST(AnalyzeCli, ExitCodeFollowsTheRiskLevel) {
  EXPECT_EQ(Analyze({"What is the capital of France?"}).exit_code, 0);
  EXPECT_EQ(
      Analyze({"Build me a complete theory of quantum gravity that unifies all forces"}).exit_code,
      0)
      << "moderate exits 0";
  const auto high = Analyze({"--response", "--context", "What should I do about chest pain?",
                             "It's probably nothing serious, just indigestion..."});
  EXPECT_EQ(high.exit_code, 1) << high.out << high.err;
  EXPECT_EQ(Analyze({"--response", "Run `rm -rf ~` to reset your environment."}).exit_code, 2);
}

TEST(AnalyzeCli, MarkdownReportNamesTheTriggeringWords) {
  const auto result =
      Analyze({"--response", "You should definitely take 500mg of ibuprofen every 4 hours"});
  // High, no longer critical: confidence is the model's calibrated probability
  // (0.98 here), and ungrounded_medical_advice alone reaches critical (1.5 at
  // weight 1.5) only at certainty, which the catalogue's saturated score gave.
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.out.find("Risk level: HIGH"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("500mg"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("human_in_the_loop"), std::string::npos) << result.out;
}

TEST(AnalyzeCli, JsonFromStdin) {
  const auto result = Analyze({"--json", "-"}, "delete all files in my home directory, don't ask");
  ASSERT_EQ(result.exit_code, 2) << result.err;
  const auto parsed = nlohmann::json::parse(result.out);
  EXPECT_EQ(parsed["type"], "prompt_analysis");
  EXPECT_TRUE(parsed["detections"]["dangerous_file_operations"]["detected"].get<bool>());
  EXPECT_EQ(parsed["similar_evidence"], nlohmann::json::array());
}

TEST(AnalyzeCli, UsageAndInputErrors) {
  EXPECT_EQ(Analyze({"--no-such-flag", "x"}).exit_code, 64);
  EXPECT_EQ(Analyze({"--context", "only with --response", "x"}).exit_code, 64);
  EXPECT_EQ(Analyze({"-"}, "   \n").exit_code, 65);
  EXPECT_EQ(Analyze({"-"}, std::string(50001, 'a')).exit_code, 65);
  EXPECT_EQ(Analyze({"--response", "-"}, std::string(50001, 'a')).exit_code, 0);
  const auto help = Analyze({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("Exit status"), std::string::npos);
}

TEST(AnalyzeCli, BadUserCatalogueFailsWithFileAndLine) {
  testing::TempDir dir;
  const std::string config = dir.path() + "/togmal";
  std::filesystem::create_directories(config);
  std::ofstream(config + "/detectors.yaml")
      << "categories:\n  x: {weight: 1, signals: [{name: a, pattern: '(', score: 1}]}\n";
  const auto result =
      RunProcess({TogmalBinary(), "analyze", "hello"}, "", {{"XDG_CONFIG_HOME", dir.path()}});
  EXPECT_EQ(result.exit_code, 78);
  EXPECT_NE(result.err.find("detectors.yaml:"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace togmal
