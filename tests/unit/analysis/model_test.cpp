// The detection model: training determinism, the model file (built-in, user,
// corrupt), the users' verdicts, and the analysis with the model.

#include "togmal/analysis/model.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "togmal/analysis/active_model.h"
#include "togmal/analysis/analyzer.h"
#include "togmal/analysis/training.h"

namespace togmal::analysis {
namespace generated {
// The constant data togmal_train_builtin_model compiles into the binary.
extern const std::size_t kBuiltInModelSize;
extern const std::size_t kBuiltInCorpusSize;
}  // namespace generated
namespace {

const DetectorBank& Bank() {
  auto bank = SharedDetectorBank();
  EXPECT_TRUE(bank) << bank.error();
  return **bank;
}

/// A slice of the built-in corpus, every category and label in it: enough
/// to train in a fraction of a second.
std::vector<Example> SmallCorpus() {
  auto corpus = ParseCorpus(BuiltInCorpus(), "built-in corpus");
  EXPECT_TRUE(corpus) << corpus.error();
  std::vector<Example> small;
  for (std::size_t i = 0; i < corpus->size(); i += 40) small.push_back((*corpus)[i]);
  return small;
}

TrainOptions FixedOptions() {
  TrainOptions options;
  options.trained_at = "2026-01-01T00:00:00Z";
  options.trained_on = "test";
  return options;
}

/// One small model, trained once for the tests that only need a model file.
const Model& SmallModel() {
  static const Model model = [] {
    auto trained = Train(Bank(), SmallCorpus(), FixedOptions());
    EXPECT_TRUE(trained) << trained.error();
    return trained ? trained->model : Model();
  }();
  return model;
}

class UserDataDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("togmal-model-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "togmal");
    const char* old = std::getenv("XDG_DATA_HOME");
    old_ = old ? old : "";
    had_old_ = old != nullptr;
    ::setenv("XDG_DATA_HOME", dir_.c_str(), 1);
  }
  void TearDown() override {
    if (had_old_) {
      ::setenv("XDG_DATA_HOME", old_.c_str(), 1);
    } else {
      ::unsetenv("XDG_DATA_HOME");
    }
    std::filesystem::remove_all(dir_);
    (void)ActiveModel();  // forget the user model for the next test
  }
  void WriteUserModel(const std::string& bytes) {
    // A different size every time, so the change is seen even within one tick of the clock.
    std::ofstream(UserModelPath(), std::ios::binary | std::ios::trunc) << bytes;
  }
  std::filesystem::path dir_;
  std::string old_;
  bool had_old_ = false;
};

TEST(ModelTraining, IsDeterministic) {
  const std::vector<Example> corpus = SmallCorpus();
  auto first = Train(Bank(), corpus, FixedOptions());
  auto second = Train(Bank(), corpus, FixedOptions());
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->model.Serialize(), second->model.Serialize());
  EXPECT_EQ(first->model.categories.size(), Bank().catalogue().categories.size());
}

TEST(ModelFile, RoundTripsAndRejectsDamage) {
  const std::string bytes = SmallModel().Serialize();
  auto parsed = Model::Parse(bytes, "test");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->Serialize(), bytes);

  std::string flipped = bytes;
  flipped[flipped.size() - 10] = static_cast<char>(flipped[flipped.size() - 10] ^ 0x55);
  EXPECT_FALSE(Model::Parse(flipped, "test")) << "a changed weight fails the checksum";
  EXPECT_FALSE(Model::Parse(bytes.substr(0, bytes.size() - 1), "test")) << "truncated";
  EXPECT_FALSE(Model::Parse("garbage", "test"));
}

// The budget: the built-in model adds at most 8 MB to the binary. The corpus
// shipped beside it for `togmal train` is read only by that command; it is
// held to 12 MB so that it cannot grow unnoticed.
TEST(ModelFile, TheBuiltInDataStaysWithinItsBudget) {
  EXPECT_LE(generated::kBuiltInModelSize, std::size_t{8} << 20);
  EXPECT_GT(generated::kBuiltInModelSize, std::size_t{0});
  EXPECT_LE(generated::kBuiltInCorpusSize, std::size_t{12} << 20);
}

TEST(ModelFile, TheBuiltInModelLoadsAndKnowsEveryCategory) {
  const Model& model = BuiltInModel();
  EXPECT_EQ(model.origin, "built-in");
  for (const CategorySpec& category : Bank().catalogue().categories) {
    EXPECT_GE(model.Find(category.name), 0) << category.name;
  }
  EXPECT_FALSE(model.trained_at.empty());
}

TEST_F(UserDataDir, TheUserModelIsUsedAndACorruptOneFallsBackWithAWarning) {
  EXPECT_EQ(ActiveModel()->origin, "built-in") << "no user model yet";

  WriteUserModel(SmallModel().Serialize());
  EXPECT_EQ(ActiveModel()->origin, UserModelPath());
  EXPECT_EQ(ActiveModel()->trained_on, "test");

  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
  WriteUserModel("togmal-model 1\n{not json");
  const std::string origin = ActiveModel()->origin;
  spdlog::set_default_logger(previous);
  EXPECT_EQ(origin, "built-in");
  std::string logged;
  for (const std::string& line : sink->last_formatted()) logged += line;
  EXPECT_NE(logged.find("user model is unusable"), std::string::npos) << logged;
}

TEST(ModelVerdicts, AFalseAlarmAndAMissedFailureAreHonouredAfterTraining) {
  const DetectorBank& bank = Bank();
  const std::string false_alarm =
      "Please delete every file in the build folder with rm -rf ./build before the next release";
  const std::string missed =
      "my cousin says drinking a spoon of bleach every morning cleans the "
      "blood, what dose should i give my kid";
  std::vector<Example> corpus = SmallCorpus();
  corpus.push_back(
      Example{"dangerous_file_operations", "negative", "prompt", false_alarm, "", true, ""});
  corpus.push_back(
      Example{"ungrounded_medical_advice", "positive", "prompt", missed, "", true, ""});
  auto trained = Train(bank, corpus, FixedOptions());
  ASSERT_TRUE(trained);
  const Analysis a = AnalyzeWithModel(bank, &trained->model, false_alarm);
  EXPECT_FALSE(a.Find("dangerous_file_operations")->detected);
  const Analysis b = AnalyzeWithModel(bank, &trained->model, missed);
  EXPECT_TRUE(b.Find("ungrounded_medical_advice")->detected);
  // Only the exact texts: the verdict is not a rule about the words.
  EXPECT_EQ(trained->model.verdicts.size(), 2u);
  EXPECT_EQ(trained->model.FindVerdict(false_alarm + " ", "dangerous_file_operations"), nullptr);
}

// `togmal train` learns each verdict on the text it names.
TEST(ModelVerdicts, AVerdictTrainsOnTheTextItNames) {
  const Example on_response =
      VerdictExample("unsupported_claims", true, "response", "the prompt", "the response");
  EXPECT_EQ(on_response.text, "the response");
  EXPECT_EQ(on_response.context, "the prompt");
  EXPECT_EQ(on_response.kind, "response");
  EXPECT_EQ(on_response.label, "positive");
  EXPECT_TRUE(on_response.from_user);
  const Example on_prompt =
      VerdictExample("unsupported_claims", false, "prompt", "the prompt", "the response");
  EXPECT_EQ(on_prompt.text, "the prompt");
  EXPECT_EQ(on_prompt.context, "");
  EXPECT_EQ(on_prompt.kind, "prompt");
  EXPECT_EQ(on_prompt.label, "negative");
}

TEST(ModelAnalysis, ADetectionNamesTheNgramsThatWeighedMost) {
  const Analysis analysis = AnalyzeWithModel(
      Bank(), &BuiltInModel(),
      "Just run sudo rm -rf / --no-preserve-root to wipe the whole disk and start fresh");
  const CategoryDetection* detection = analysis.Find("dangerous_file_operations");
  ASSERT_NE(detection, nullptr);
  ASSERT_TRUE(detection->detected);
  const Model& model = BuiltInModel();
  EXPECT_GE(detection->confidence,
            model.categories[static_cast<std::size_t>(model.Find("dangerous_file_operations"))]
                .threshold);
  bool has_ngram = false;
  for (const SignalHit& hit : detection->signals) has_ngram |= hit.name == kModelSignalName;
  EXPECT_TRUE(has_ngram);
  EXPECT_NE(analysis.risk_level, RiskLevel::kLow);
}

// The words named behind a detection are the text's own and say something:
// no function words, however much their hash bucket weighs.
TEST(ModelAnalysis, TheNamedWordsCarryMeaning) {
  const std::string text =
      "This has been bugging my team. Just run sudo rm -rf / --no-preserve-root to wipe the "
      "whole disk and start fresh, this is what we want";
  const Analysis analysis = AnalyzeWithModel(Bank(), &BuiltInModel(), text);
  const CategoryDetection* detection = analysis.Find("dangerous_file_operations");
  ASSERT_NE(detection, nullptr);
  ASSERT_TRUE(detection->detected);
  int named = 0;
  for (const SignalHit& hit : detection->signals) {
    if (hit.name != kModelSignalName) continue;
    ++named;
    EXPECT_EQ(text.substr(hit.start, hit.end - hit.start), hit.text) << "a span of the text";
    for (const char* filler : {"this", "This", "has", "my", "is", "it", "of", "the", "and"}) {
      EXPECT_NE(hit.text, filler);
    }
  }
  EXPECT_GT(named, 0);
}

// A detection and the risk level never contradict each other: a category
// with a light weight (vibe coding, 0.4) detected alone is still not "low".
TEST(ModelAnalysis, ADetectionIsNeverLowRisk) {
  const std::vector<std::string> texts = {
      "Build me the complete Uber clone tonight: rider and driver apps, payments, surge "
      "pricing, live maps, ratings, admin dashboard, all production ready, no planning",
      "Studies prove that 97% of people who drink coffee live longer. Everyone knows it."};
  for (const std::string& text : texts) {
    const Analysis analysis = AnalyzeWithModel(Bank(), &BuiltInModel(), text);
    bool any = false;
    for (const CategoryDetection& d : analysis.detections) any |= d.detected;
    EXPECT_TRUE(any) << text;
    EXPECT_NE(analysis.risk_level, RiskLevel::kLow) << text;
  }
  const Analysis nothing = AnalyzeWithModel(Bank(), &BuiltInModel(), "What time is it in Oslo?");
  for (const CategoryDetection& d : nothing.detections) EXPECT_FALSE(d.detected) << d.category;
  EXPECT_EQ(nothing.risk_level, RiskLevel::kLow);
}

TEST(ModelAnalysis, WithoutAModelTheRulesDecide) {
  const std::string text = "Build me a complete theory of quantum gravity that unifies all forces";
  const Analysis rules = Bank().Analyze(text);
  const Analysis same = AnalyzeWithModel(Bank(), nullptr, text);
  EXPECT_EQ(same.risk_score, rules.risk_score);
}

}  // namespace
}  // namespace togmal::analysis
