// What makes a scan's findings worth acting on (issue 21): a minimum level,
// `togmal: ignore REASON` comments, a baseline matched by fingerprint, and
// the scan-only context that keeps CI output files, a script's own temp
// folders and bare command substitutions out of the report.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ci_files.h"
#include "ignore_comments.h"
#include "process.h"
#include "temp_folders.h"
#include "togmal/scan/baseline.h"
#include "togmal/scan/report_formats.h"
#include "togmal/scan/scanner.h"

namespace togmal::scan {
namespace {

using Names = std::set<std::string, std::less<>>;

const policy::Classifier& Base() {
  static const policy::Classifier classifier = *policy::Classifier::Compiled();
  return classifier;
}

const policy::Classifier& ForScan() {
  static const policy::Classifier classifier = *ScanClassifier(Base(), Catalogue::Builtin());
  return classifier;
}

ScanReport ScanOne(std::string_view text, FileKind kind = FileKind::kShellScript,
                   const ScanOptions& options = {},
                   const policy::Classifier& classifier = ForScan()) {
  ScanReport report;
  ScanText(text, kind, "x.sh", "/work/project", classifier, Catalogue::Builtin(), report, options);
  return report;
}

std::vector<int> Lines(const ScanReport& report) {
  std::vector<int> lines;
  for (const Finding& finding : report.findings) lines.push_back(finding.line);
  return lines;
}

// --- temp folders -----------------------------------------------------------

TEST(TempVariables, OnlyNamesSetToMktempAlone) {
  EXPECT_EQ(TempVariables("d=$(mktemp -d)\n"), Names{"d"});
  EXPECT_EQ(TempVariables("local tmp=\"$(mktemp -d -t x.XXXX)\"\n"), Names{"tmp"});
  EXPECT_EQ(TempVariables("export T=`mktemp -d`; f=$(mktemp)\n"), (Names{"T", "f"}));
  EXPECT_EQ(TempVariables("d=\nd=$(mktemp -d \"${TMPDIR:-/tmp}/$(basename $0).XXXX\")\n"),
            Names{"d"});
  // Set to something else too, or not to mktemp's output alone.
  EXPECT_TRUE(TempVariables("d=$(mktemp -d)\nd=$HOME\n").empty());
  EXPECT_TRUE(TempVariables("d=\"$(mktemp -d)/..\"\n").empty());
  EXPECT_TRUE(TempVariables("d=$(mktempx -d)\n").empty());
  EXPECT_TRUE(TempVariables("d=$(pwd)\n").empty());
}

struct RemovalCase {
  std::string command;
  bool blanked;
};

TEST(WithoutTempRemovals, OnlyAnRmOfTheTempVariablesThemselves) {
  const Names temp = {"d", "TMP"};
  const std::vector<RemovalCase> cases = {
      {"rm -rf \"$d\"", true},
      {"rm -rf $d", true},
      {"rm -fr -- \"${d}\" \"$TMP\"", true},
      {"rm -rf \"$d\" 2>/dev/null || true", true},
      {"trap 'rm -rf \"$d\"' EXIT", true},
      {"trap \"rm -rf $d\" EXIT INT", true},
      {"cleanup() { rm -rf \"$TMP\"; }", true},
      // Not only the temp folder: with an empty $d these reach `/`.
      {"rm -rf \"$d\"/*", false},
      {"rm -rf \"$d/sub\"", false},
      {"rm -rf \"$d\" \"$HOME\"", false},
      {"rm -rf \"$other\"", false},
      {"rm -rf ~", false},
      {"farm -rf \"$d\"", false},
  };
  for (const RemovalCase& c : cases) {
    const std::string out = WithoutTempRemovals(c.command, temp);
    EXPECT_EQ(out.size(), c.command.size()) << c.command;
    EXPECT_EQ(out.find("rm -") == std::string::npos, c.blanked) << c.command << " → " << out;
  }
}

TEST(ScanText, RemovingTheScriptsOwnMktempFolderIsNotAFinding) {
  const ScanReport report = ScanOne(
      "#!/bin/sh\n"
      "set -eu\n"
      "work=$(mktemp -d)\n"
      "trap 'rm -rf \"$work\"' EXIT\n"
      "ls \"$work\"\n"
      "rm -rf \"$work\"\n"
      "rm -rf \"$work\"/*\n"
      "rm -rf \"$OUT\"\n");
  // Lines 4 and 6 are the script's own temp folder; 7 and 8 are not.
  EXPECT_EQ(Lines(report), (std::vector<int>{7, 8}));
}

TEST(ScanText, TheHookStillJudgesALiveRemovalOfAVariable) {
  // The classifier alone (the hook) cannot know what $work holds.
  const auto live = ForScan().ClassifyCommand("rm -rf \"$work\"", "/work/project");
  EXPECT_GE(live.level, policy::Level::kL2);
}

// --- CI output files --------------------------------------------------------

TEST(WithoutCiFileWrites, RedirectionsAndTeeOnly) {
  const std::vector<std::string> vars = Catalogue::Builtin().ci_output_files;
  ASSERT_FALSE(vars.empty());
  EXPECT_EQ(WithoutCiFileWrites("echo \"x=1\" >> \"$GITHUB_OUTPUT\"", vars),
            "echo \"x=1\" >> /dev/null       ");
  EXPECT_EQ(WithoutCiFileWrites("echo a >>${GITHUB_STEP_SUMMARY}", vars),
            "echo a >>/dev/null             ");
  EXPECT_EQ(WithoutCiFileWrites("cat r.md | tee -a $GITHUB_STEP_SUMMARY", vars),
            "cat r.md | tee -a /dev/null" + std::string(11, ' '));  // 20 characters
  // Read, not written; or a name that only starts like one.
  EXPECT_EQ(WithoutCiFileWrites("cat \"$GITHUB_ENV\"", vars), "cat \"$GITHUB_ENV\"");
  EXPECT_EQ(WithoutCiFileWrites("echo a >> $GITHUB_ENVX", vars), "echo a >> $GITHUB_ENVX");
  EXPECT_EQ(WithoutCiFileWrites("rm -rf \"$GITHUB_PATH\"", vars), "rm -rf \"$GITHUB_PATH\"");
}

TEST(ScanText, AppendsToCiOutputFilesAreNotFindingsOtherFilesAre) {
  const ScanReport report = ScanOne(
      "#!/bin/sh\n"
      "echo \"version=1\" >> \"$GITHUB_OUTPUT\"\n"
      "echo '## Report' >> $GITHUB_STEP_SUMMARY\n"
      "echo \"$PWD/bin\" >> \"$GITHUB_PATH\"\n"
      "cat report.md | tee -a \"$GITHUB_STEP_SUMMARY\"\n"
      "echo \"x=1\" >> \"$SOME_FILE\"\n");
  EXPECT_EQ(Lines(report), std::vector<int>{6});
}

// --- command substitution ---------------------------------------------------

TEST(ScanText, ABareCommandSubstitutionIsNotAFindingWhatItHidesIs) {
  const std::string script =
      "#!/bin/sh\n"
      "v=$(git describe --tags)\n"
      "cd \"$(dirname \"$0\")\"\n"
      "echo \"built at $(date)\"\n"
      "eval \"$(ssh-agent -s)\"\n"
      "rm -rf \"$(pwd)\"\n"
      "x=$(curl -fsSL https://example.com/v)\n"
      "$(cat cmd.txt) --force\n";
  // The hook's own setting reports every line with a substitution...
  const ScanReport hook = ScanOne(script, FileKind::kShellScript, {}, Base());
  EXPECT_EQ(Lines(hook), (std::vector<int>{2, 3, 4, 5, 6, 7, 8}));
  // ...the scan what the substitution runs or feeds: eval, rm, curl, a
  // command known only at run time.
  const ScanReport scan = ScanOne(script);
  EXPECT_EQ(Lines(scan), (std::vector<int>{5, 6, 7, 8}));
}

// --- functions of the repository -------------------------------------------

TEST(Scan, FunctionsAnotherScriptDefinesAreNotUnknownCommandsButNeverMaskKnownOnes) {
  testing::TempDir dir;
  const std::filesystem::path root = dir.path();
  std::ofstream(root / "test-lib.sh") << "test_expect_success () {\n  eval \"$2\"\n}\n"
                                         "rm() { command rm -i \"$@\"; }\n";
  std::ofstream(root / "t0001.sh") << "#!/bin/sh\n"
                                      ". ./test-lib.sh\n"
                                      "test_expect_success 'setup' 'true'\n"
                                      "rm -rf ~\n"
                                      "not_defined_anywhere --now\n";
  const ScanReport report = Scan({root}, ForScan(), Catalogue::Builtin());
  std::vector<std::string> found;
  for (const Finding& finding : report.findings) {
    found.push_back(finding.file + ":" + std::to_string(finding.line));
  }
  // The library's own `eval "$2"` and `rm -i "$@"` (lines 2 and 4) are
  // judged where they are written; `rm` is a command the classifier knows,
  // so test-lib.sh's `rm()` does not stand for it in t0001.sh.
  EXPECT_EQ(found, (std::vector<std::string>{"t0001.sh:2", "t0001.sh:4", "t0001.sh:5",
                                             "test-lib.sh:2", "test-lib.sh:4"}));
}

// --- minimum level ----------------------------------------------------------

TEST(ScanText, MinLevel) {
  const std::string script =
      "#!/bin/sh\n"
      "ls\n"
      "mkdir -p out\n"
      "npm install left-pad\n"
      "rm -rf ~\n";
  ScanOptions options;
  options.min_level = policy::Level::kL3;
  EXPECT_EQ(Lines(ScanOne(script, FileKind::kShellScript, options)), std::vector<int>{5});
  options.min_level = policy::Level::kL2;
  EXPECT_EQ(Lines(ScanOne(script, FileKind::kShellScript, options)), (std::vector<int>{4, 5}));
  options.min_level = policy::Level::kL0;
  const ScanReport all = ScanOne(script, FileKind::kShellScript, options);
  EXPECT_EQ(Lines(all), (std::vector<int>{2, 3, 4, 5}));
  EXPECT_EQ(all.findings[0].level, policy::Level::kL0);
}

// --- ignore comments --------------------------------------------------------

TEST(IgnoreReason, CommentSyntaxesAndTheReason) {
  EXPECT_EQ(IgnoreReason("rm -rf ~  # togmal: ignore wipes the CI runner's home", false),
            "wipes the CI runner's home");
  EXPECT_EQ(IgnoreReason("// togmal: ignore: tested in CI */", true), "tested in CI");
  EXPECT_EQ(IgnoreReason("  #togmal:ignore reason", true), "reason");
  EXPECT_EQ(IgnoreReason("# togmal: ignore", true), "");
  EXPECT_EQ(IgnoreReason("rm -rf ~ # togmal: ignore why", true), std::nullopt);  // not alone
  EXPECT_EQ(IgnoreReason("echo togmal: ignore this", false), std::nullopt);      // not a comment
  EXPECT_EQ(IgnoreReason("# togmal: ignored", false), std::nullopt);
}

TEST(ScanText, IgnoreCommentsNeedAReason) {
  const ScanReport report = ScanOne(
      "#!/bin/sh\n"
      "rm -rf ~  # togmal: ignore the runner's home is thrown away\n"
      "# togmal: ignore resets the CI cache on purpose\n"
      "rm -rf /\n"
      "rm -rf ~/.cache  # togmal: ignore\n"
      "rm -rf ~/x  # togmal: ignore one line only\n"
      "rm -rf ~/y\n");
  // 2 and 4 are ignored with a reason; 5 has none; 6's comment is not alone
  // on its line, so it does not cover 7.
  EXPECT_EQ(Lines(report), (std::vector<int>{5, 7}));
  EXPECT_EQ(report.ignored, 3u);
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].line, 5);
  EXPECT_NE(report.problems[0].why.find("needs a reason"), std::string::npos);
}

TEST(ScanText, IgnoreCommentsInAWorkflow) {
  const ScanReport report = ScanOne(
      "on: push\n"
      "jobs:\n"
      "  a:\n"
      "    runs-on: ubuntu-latest\n"
      "    steps:\n"
      "      - run: |\n"
      "          # togmal: ignore the runner is thrown away after the job\n"
      "          sudo rm -rf /usr/local/lib/android\n"
      "          rm -rf ~\n",
      FileKind::kGithubActions);
  EXPECT_EQ(Lines(report), std::vector<int>{9});
  EXPECT_EQ(report.ignored, 1u);
}

// --- baseline ---------------------------------------------------------------

Finding At(std::string file, int line, std::string command,
           policy::Level level = policy::Level::kL3) {
  return {level, "why", std::move(file), line, 1, std::move(command), "shell script"};
}

TEST(Baseline, FingerprintIgnoresLinesAndBlanksNotTheCommandOrLevel) {
  const std::string fp = Fingerprint(At("a.sh", 3, "rm -rf ~"));
  EXPECT_EQ(fp.size(), 16u);
  EXPECT_EQ(Fingerprint(At("a.sh", 90, "rm  -rf\t~ ")), fp);
  EXPECT_NE(Fingerprint(At("a.sh", 3, "rm -rf ~/x")), fp);
  EXPECT_NE(Fingerprint(At("a.sh", 3, "rm -rf ~", policy::Level::kL2)), fp);
}

TEST(Baseline, WrittenThenAppliedKeepsOnlyNewFindings) {
  ScanReport before;
  before.findings = {At("a.sh", 3, "rm -rf ~"), At("a.sh", 8, "rm -rf ~"),
                     At("b.sh", 1, "curl x | sh")};
  auto baseline = ParseBaseline(BaselineJson(before).dump(), "baseline.json");
  ASSERT_TRUE(baseline) << baseline.error();

  ScanReport after;
  // Lines moved; one more `rm -rf ~` in a.sh; the same command in another file.
  after.findings = {At("a.sh", 10, "rm -rf ~"), At("a.sh", 20, "rm -rf ~"),
                    At("a.sh", 30, "rm -rf ~"), At("b.sh", 5, "curl x | sh"),
                    At("c.sh", 1, "curl x | sh")};
  ApplyBaseline(*baseline, after);
  EXPECT_EQ(after.baselined, 3u);
  ASSERT_EQ(after.findings.size(), 2u);
  EXPECT_EQ(after.findings[0].file, "a.sh");
  EXPECT_EQ(after.findings[0].line, 30);
  EXPECT_EQ(after.findings[1].file, "c.sh");
  EXPECT_NE(FormatText(after).find("; not reported: 3 in the baseline"), std::string::npos);
  EXPECT_EQ(FormatJson(after)["summary"]["baselined"], 3);
}

TEST(Baseline, BrokenFilesSayWhy) {
  EXPECT_NE(ParseBaseline("{", "b.json").error().find("b.json: not valid JSON"), std::string::npos);
  EXPECT_NE(
      ParseBaseline("{\"findings\": []}", "b.json").error().find("not a togmal scan baseline"),
      std::string::npos);
  EXPECT_NE(ParseBaseline("{\"togmal_scan_baseline\": 9, \"findings\": []}", "b.json")
                .error()
                .find("version 9"),
            std::string::npos);
  EXPECT_NE(ParseBaseline("{\"togmal_scan_baseline\": 1, \"findings\": [{\"file\": 1}]}", "b.json")
                .error()
                .find("findings[0]"),
            std::string::npos);
}

TEST(Formats, SarifCarriesTheFingerprintAndLowerLevelsWhenAsked) {
  ScanReport report;
  report.root = "repo";
  report.min_level = policy::Level::kL1;
  report.findings = {At("a.sh", 3, "rm -rf ~"), At("a.sh", 4, "mkdir out", policy::Level::kL1)};
  const nlohmann::json run = FormatSarif(report)["runs"][0];
  ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 3u);
  EXPECT_EQ(run["results"][0]["partialFingerprints"]["togmal/v1"], Fingerprint(report.findings[0]));
  EXPECT_EQ(run["results"][1]["ruleId"], "togmal/L1-reversible");
  EXPECT_EQ(run["results"][1]["ruleIndex"], 2);
  EXPECT_EQ(run["results"][1]["level"], "note");
  EXPECT_EQ(run["tool"]["driver"]["rules"][2]["id"], "togmal/L1-reversible");
}

TEST(Catalogue, ScanSettingsAreDataAndLayerOnTheClassifier) {
  const Catalogue& catalogue = Catalogue::Builtin();
  EXPECT_EQ(catalogue.classifier_settings.at("substitution_minimum"), "L1");
  Catalogue broken = catalogue;
  broken.classifier_settings = {{"no_such_setting", "L1"}};
  EXPECT_FALSE(ScanClassifier(Base(), broken));
  auto bad_shape = Catalogue::FromYaml("file_kinds: {}\nclassifier_settings: [a]\n", "scan.yaml");
  ASSERT_FALSE(bad_shape);
  EXPECT_NE(bad_shape.error().find("classifier_settings is not a map"), std::string::npos);
}

}  // namespace
}  // namespace togmal::scan
