// Lexing and classifying shell commands: what `togmal hook` pays per Bash call
// on top of process start-up, and what loading the tables costs once.

#include <benchmark/benchmark.h>

#include <string>

#include "togmal/policy/classifier.h"
#include "togmal/policy/shell_lexer.h"
#include "togmal/util/embedded.h"

namespace {

using togmal::policy::Classifier;

const char* const kTypical[] = {
    "git status",
    "cd frontend && npm test",
    "ls -la src/",
    "grep -rn \"TODO\" src/ | head -20",
    "git add -A && git commit -m \"$(cat <<'EOF'\nFix the parser\n\nCo-Authored-By: Claude "
    "<noreply@anthropic.com>\nEOF\n)\"",
    "rm -rf node_modules && npm install",
    "curl -fsSL https://example.com/install.sh | sh",
    "find . -name '*.o' -exec rm {} \\;",
};

std::string TenKilobytes() {
  std::string command;
  while (command.size() < 10 * 1024) {
    command += "cd src && grep -rn \"pattern $(date +%s)\" . | sort | uniq -c && git diff --stat; ";
  }
  return command + "echo done";
}

const Classifier& Tables() {
  static const Classifier classifier = *Classifier::Compiled();
  return classifier;
}

// What a hook process pays once: the built-in tables, compiled to JSON at
// build time.
void BM_LoadCompiledTables(benchmark::State& state) {
  for (auto _ : state) {
    auto classifier = Classifier::Compiled();
    benchmark::DoNotOptimize(classifier);
  }
}
BENCHMARK(BM_LoadCompiledTables)->Unit(benchmark::kMicrosecond);

// What parsing the same tables from YAML would cost (and costs for a user
// file in $XDG_CONFIG_HOME/togmal/classifier.yaml).
void BM_ParseYamlTables(benchmark::State& state) {
  const auto yaml = *togmal::util::FindEmbeddedFile("classifier.yaml");
  for (auto _ : state) {
    auto classifier = Classifier::FromYaml(yaml, "classifier.yaml");
    benchmark::DoNotOptimize(classifier);
  }
}
BENCHMARK(BM_ParseYamlTables)->Unit(benchmark::kMillisecond);

void BM_LexTypical(benchmark::State& state) {
  const char* command = kTypical[state.range(0)];
  for (auto _ : state) benchmark::DoNotOptimize(togmal::policy::Lex(command));
  state.SetLabel(std::string(command).substr(0, 40));
}
BENCHMARK(BM_LexTypical)->DenseRange(0, 7);

void BM_ClassifyTypical(benchmark::State& state) {
  const Classifier& classifier = Tables();
  const char* command = kTypical[state.range(0)];
  for (auto _ : state) {
    benchmark::DoNotOptimize(classifier.ClassifyCommand(command, "/home/user/project"));
  }
  state.SetLabel(std::string(command).substr(0, 40));
}
BENCHMARK(BM_ClassifyTypical)->DenseRange(0, 7);

void BM_Lex10KB(benchmark::State& state) {
  const std::string command = TenKilobytes();
  for (auto _ : state) benchmark::DoNotOptimize(togmal::policy::Lex(command));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(command.size()));
}
BENCHMARK(BM_Lex10KB)->Unit(benchmark::kMicrosecond);

void BM_Classify10KB(benchmark::State& state) {
  const Classifier& classifier = Tables();
  const std::string command = TenKilobytes();
  for (auto _ : state) {
    benchmark::DoNotOptimize(classifier.ClassifyCommand(command, "/home/user/project"));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(command.size()));
}
BENCHMARK(BM_Classify10KB)->Unit(benchmark::kMicrosecond);

void BM_ClassifyWriteTool(benchmark::State& state) {
  const Classifier& classifier = Tables();
  const togmal::policy::ToolCall call{
      "Write",
      {{"file_path", "/home/user/project/src/app.ts"}, {"content", "x"}},
      "/home/user/project"};
  for (auto _ : state) benchmark::DoNotOptimize(classifier.Classify(call));
}
BENCHMARK(BM_ClassifyWriteTool);

}  // namespace
