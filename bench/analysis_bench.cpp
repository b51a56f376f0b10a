// Analysis in-process on realistic 1 KB and 25 KB texts: the RE2 detector bank
// alone, and the bank with the built-in detection model (what the tools run;
// budget ≤ 300 µs for 25,000 characters), plus the cost of compiling the
// catalogue once.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "togmal/analysis/active_model.h"
#include "togmal/analysis/analyzer.h"
#include "togmal/analysis/catalogue.h"
#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/training.h"
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

void BM_AnalyzePromptWithModel(benchmark::State& state) {
  const std::string text = TextOfSize(static_cast<std::size_t>(state.range(0)));
  const DetectorBank& bank = Bank();
  const togmal::analysis::Model& model = togmal::analysis::BuiltInModel();
  (void)togmal::analysis::AnalyzeWithModel(bank, &model, text);
  for (auto _ : state) {
    benchmark::DoNotOptimize(togmal::analysis::AnalyzeWithModel(bank, &model, text));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_AnalyzePromptWithModel)
    ->Arg(1000)
    ->Arg(25000)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond);

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

// The built-in corpus's texts (16 writers) joined into pieces of at least
// `size` bytes, in corpus order.
std::vector<std::string> CorpusPieces(std::size_t size) {
  std::vector<std::string> out(1);
  auto corpus = togmal::analysis::ParseCorpus(std::string(togmal::analysis::BuiltInCorpus()),
                                              "built-in corpus");
  if (!corpus) throw std::runtime_error(corpus.error());
  for (const togmal::analysis::Example& example : *corpus) {
    if (out.back().size() >= size) out.emplace_back();
    out.back() += example.text + "\n\n";
  }
  return out;
}

// A bank of its own, whose patterns' DFAs have seen no text yet: what a
// server's bank is when it meets its first prompts.
std::unique_ptr<DetectorBank> FreshBank() {
  auto catalogue = togmal::analysis::LoadCatalogue();
  if (!catalogue) throw std::runtime_error(catalogue.error());
  auto bank = DetectorBank::Build(std::move(catalogue.value()));
  if (!bank) throw std::runtime_error(bank.error());
  return std::move(bank.value());
}

// Text the bank has not seen: the corpus in 25 KB pieces, each analysed once,
// as a server meets new prompts. The benchmarks above repeat one paragraph, so
// their DFA is warm.
void BM_AnalyzeUnseen25000(benchmark::State& state) {
  static const std::vector<std::string> pieces = CorpusPieces(25000);
  const DetectorBank& bank = Bank();
  std::size_t next = 0;
  for (auto _ : state) {
    if (next == pieces.size()) {
      state.SkipWithError("every piece was analysed once: no unseen text left");
      break;
    }
    benchmark::DoNotOptimize(bank.Analyze(pieces[next++]));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 25000);
}
BENCHMARK(BM_AnalyzeUnseen25000)->Iterations(150)->Unit(benchmark::kMicrosecond);

// What a tool call costs on text never seen before, model included: the
// corpus in pieces of at least `size` bytes (a text of the corpus runs to
// 2,500), each analysed once by a bank of its own.
void BM_AnalyzeUnseenWithModel(benchmark::State& state) {
  const auto size = static_cast<std::size_t>(state.range(0));
  const std::vector<std::string> pieces = CorpusPieces(size);
  const std::unique_ptr<DetectorBank> bank = FreshBank();
  const togmal::analysis::Model& model = togmal::analysis::BuiltInModel();
  std::size_t next = 0;
  std::int64_t bytes = 0;
  for (auto _ : state) {
    if (next == pieces.size()) {
      state.SkipWithError("every piece was analysed once: no unseen text left");
      break;
    }
    bytes += static_cast<std::int64_t>(pieces[next].size());
    benchmark::DoNotOptimize(togmal::analysis::AnalyzeWithModel(*bank, &model, pieces[next++]));
  }
  state.SetBytesProcessed(bytes);
}
BENCHMARK(BM_AnalyzeUnseenWithModel)->Arg(1000)->Iterations(2000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AnalyzeUnseenWithModel)->Arg(25000)->Iterations(150)->Unit(benchmark::kMicrosecond);

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
