// The store on the hook's path: one audit append including opening and
// closing the database, exactly as `togmal hook` does once per tool call.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/taxonomy.h"

namespace {

using togmal::store::AuditEntry;
using togmal::store::AuditLog;
using togmal::store::Database;

// A fresh database file that lives for one benchmark.
class BenchDatabase {
 public:
  BenchDatabase() {
    std::string pattern = (std::filesystem::temp_directory_path() / "togmal-bench-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    dir_ = pattern;
    path_ = dir_ + "/togmal.db";
  }
  ~BenchDatabase() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

AuditEntry HookDecision(int64_t n) {
  AuditEntry entry;
  entry.session = "7f1c0d2e-5b7a-4c1e-9d2f-3a4b5c6d7e8f";
  entry.tool_name = "Bash";
  entry.input = {{"command", "git status && npm test -- --watch=false " + std::to_string(n)},
                 {"description", "Run the tests"}};
  entry.decision = "allow";
  entry.level = "L1";
  entry.source = "classifier";
  entry.reasons = nlohmann::json::array({{{"level", "L1"}, {"why", "runs the test suite"}}});
  entry.latency_us = 180;
  return entry;
}

// state.range(0): 1 = as `togmal hook` opens it (short-lived writer: one
// fsync per commit, no checkpoint on close), 0 = a default connection (its
// last close checkpoints the WAL).
void BM_AuditAppendOpenClose(benchmark::State& state) {
  BenchDatabase bench;
  { auto created = Database::Open(bench.path()); }
  // 0: a default connection; 1: the hook's (audit.sync: normal); 2: the
  // hook's with audit.sync: full.
  const togmal::store::OpenOptions options{.sync_every_commit = state.range(0) == 2,
                                           .short_lived_writer = state.range(0) >= 1};
  int64_t n = 0;
  for (auto _ : state) {
    auto db = Database::Open(bench.path(), options);
    if (!db) {
      state.SkipWithError(db.error().c_str());
      break;
    }
    auto id = AuditLog(*db).Append(HookDecision(++n));
    if (!id) {
      state.SkipWithError(id.error().c_str());
      break;
    }
    benchmark::DoNotOptimize(*id);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AuditAppendOpenClose)->Arg(1)->Arg(2)->Arg(0)->Unit(benchmark::kMicrosecond);

void BM_AuditAppendOpenConnection(benchmark::State& state) {
  BenchDatabase bench;
  auto db = Database::Open(bench.path());
  if (!db) {
    state.SkipWithError(db.error().c_str());
    return;
  }
  AuditLog log(*db);
  int64_t n = 0;
  for (auto _ : state) {
    auto id = log.Append(HookDecision(++n));
    benchmark::DoNotOptimize(id.ok());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AuditAppendOpenConnection)->Unit(benchmark::kMicrosecond);

void BM_OpenCurrentDatabase(benchmark::State& state) {
  BenchDatabase bench;
  { auto created = Database::Open(bench.path()); }
  for (auto _ : state) {
    auto db = Database::Open(bench.path());
    benchmark::DoNotOptimize(db.ok());
  }
}
BENCHMARK(BM_OpenCurrentDatabase)->Unit(benchmark::kMicrosecond);

void BM_VerifyTenThousand(benchmark::State& state) {
  BenchDatabase bench;
  auto db = Database::Open(bench.path());
  AuditLog log(*db);
  for (int64_t n = 0; n < 10000; ++n) (void)log.Append(HookDecision(n));
  for (auto _ : state) {
    auto report = log.Verify();
    benchmark::DoNotOptimize(report.ok());
  }
  state.SetItemsProcessed(state.iterations() * 10000);
}
BENCHMARK(BM_VerifyTenThousand)->Unit(benchmark::kMillisecond);

void BM_SimilarEvidenceFullTaxonomy(benchmark::State& state) {
  BenchDatabase bench;
  auto db = Database::Open(bench.path());
  togmal::store::Taxonomy taxonomy(*db);
  const char* words[] = {"chest", "pain",   "delete", "folder",     "quantum",    "energy",
                         "cure",  "cancer", "deploy", "production", "statistics", "percent"};
  for (int i = 0; i < 1000; ++i) {
    std::string text;
    for (int k = 0; k < 12; ++k) text += std::string(words[(i * 7 + k * 5) % 12]) + " ";
    (void)taxonomy.Submit({.category = "unsupported_claims",
                           .prompt = "prompt " + std::to_string(i) + " " + text,
                           .response = "response " + text,
                           .description = "description " + text,
                           .severity = "moderate",
                           .reason = "",
                           .client = ""});
  }
  std::string prompt;
  while (prompt.size() < 25000) prompt += "I have chest pain and want a cure, delete the folder. ";
  for (auto _ : state) {
    auto similar = taxonomy.Similar(prompt, 5);
    benchmark::DoNotOptimize(similar.ok());
  }
}
BENCHMARK(BM_SimilarEvidenceFullTaxonomy)->Unit(benchmark::kMicrosecond);

}  // namespace
