// Analysis in-process: the shared detector bank on realistic 1 KB and 25 KB
// texts (budget: ≤ 300 µs for 25,000 characters, docs/performance.md), plus the cost
// of compiling the catalogue once.

#include <benchmark/benchmark.h>

#include <string>

#include "togmal/analysis/catalogue.h"
#include "togmal/analysis/detector_bank.h"
#include "togmal/util/embedded.h"

namespace {

using togmal::analysis::DetectorBank;

// A mix of prose, markdown, a code block and a few things that do trigger
// detectors, so both the set scan and the span pass do real work.
constexpr const char* kParagraph =
    "## Deploying the service\n\n"
    "Most teams usually start with a small prototype, then iterate. According to the 2023 "
    "survey, about 40% of developers use containers. Before cleaning up, make a backup first:\n\n"
    "```bash\ncp -r data data.bak\nrm -rf ./build\nnpm ci && npm run build\n```\n\n"
    "If you have a headache after a long day, consider a break. The theory of relativity is "
    "well tested; quantum gravity remains an open problem. You should definitely review the "
    "config before shipping, because 95% of outages come from bad changes.\n\n";

std::string TextOfSize(std::size_t size) {
  std::string text;
  while (text.size() < size) text += kParagraph;
  text.resize(size);
  return text;
}

const DetectorBank& Bank() {
  auto bank = togmal::analysis::SharedDetectorBank();
  if (!bank) throw std::runtime_error(bank.error());
  return **bank;
}

void BM_AnalyzePrompt(benchmark::State& state) {
  const std::string text = TextOfSize(static_cast<std::size_t>(state.range(0)));
  const DetectorBank& bank = Bank();
  (void)bank.Analyze(text);  // warm the DFA cache, as a running server would be
  for (auto _ : state) {
    benchmark::DoNotOptimize(bank.Analyze(text));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_AnalyzePrompt)->Arg(1000)->Arg(25000)->Arg(100000)->Unit(benchmark::kMicrosecond);

void BM_AnalyzeResponseWithContext(benchmark::State& state) {
  const std::string text = TextOfSize(static_cast<std::size_t>(state.range(0)));
  const std::string context = TextOfSize(2000);
  const DetectorBank& bank = Bank();
  (void)bank.Analyze(text, context);
  for (auto _ : state) {
    benchmark::DoNotOptimize(bank.Analyze(text, context));
  }
}
BENCHMARK(BM_AnalyzeResponseWithContext)->Arg(25000)->Unit(benchmark::kMicrosecond);

void BM_CompileCatalogue(benchmark::State& state) {
  const std::string yaml(*togmal::util::FindEmbeddedFile("detectors.yaml"));
  for (auto _ : state) {
    auto catalogue = togmal::analysis::ParseCatalogue(yaml, "detectors.yaml");
    auto bank = DetectorBank::Build(std::move(catalogue.value()));
    benchmark::DoNotOptimize(bank);
  }
}
BENCHMARK(BM_CompileCatalogue)->Unit(benchmark::kMillisecond);

}  // namespace
