// `togmal train` through the built binary: it retrains on the whole built-in
// corpus, so it is also where its memory budget (400 MB, docs/detection.md) is held.

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <filesystem>

#include "build_tree.h"
#include "serve_client.h"

namespace togmal::testing {
namespace {

TEST(TrainCommand, RetrainsOnTheWholeCorpusWithinFourHundredMegabytes) {
  if (SanitizedBuild()) GTEST_SKIP() << "a sanitizer's shadow memory says nothing of the budget";
  TempDir dir;
  const EnvChanges env = {{"TOGMAL_DB", dir.path() + "/togmal.db"},
                          {"XDG_DATA_HOME", dir.path() + "/data"},
                          {"XDG_CONFIG_HOME", dir.path() + "/config"},
                          {"HOME", dir.path()}};
  ProcessOutput trained = RunProcess({TogmalBinary(), "train"}, "", env, std::chrono::seconds(600));
  ASSERT_EQ(trained.exit_code, 0) << trained.out << trained.err;
  EXPECT_NE(trained.out.find("training on 17"), std::string::npos) << trained.out;
  EXPECT_NE(trained.out.find("\nafter, check set"), std::string::npos) << trained.out;
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/data/togmal/model.bin")) << trained.out;

  // The largest resident set of any child this process has waited for: the
  // training run (the only child of this test; others, if any, are smaller).
  rusage usage{};
  ASSERT_EQ(getrusage(RUSAGE_CHILDREN, &usage), 0);
  const long peak_kib = usage.ru_maxrss;
  RecordProperty("train_peak_kib", static_cast<int>(peak_kib));
  EXPECT_LE(peak_kib, 400L * 1024) << "togmal train peaked at " << peak_kib / 1024 << " MiB";
}

}  // namespace
}  // namespace togmal::testing
