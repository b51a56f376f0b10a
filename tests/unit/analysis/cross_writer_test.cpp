// Choosing the model's settings across writers: each writer scored by models
// that never saw it, the selection file, training with a selection, and the
// built-in selection matching the built-in corpus.

#include "togmal/analysis/cross_writer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "togmal/analysis/active_model.h"
#include "togmal/analysis/training.h"

namespace togmal::analysis {
namespace {

const DetectorBank& Bank() {
  auto bank = SharedDetectorBank();
  EXPECT_TRUE(bank) << bank.error();
  return **bank;
}

/// Every 25th text of the built-in corpus, with the writers it came from.
std::vector<Example> Slice() {
  auto corpus = ParseCorpus(BuiltInCorpus(), "built-in corpus");
  EXPECT_TRUE(corpus) << corpus.error();
  std::vector<Example> slice;
  for (std::size_t i = 0; i < corpus->size(); i += 25) slice.push_back((*corpus)[i]);
  return slice;
}

CrossWriterOptions QuickOptions() {
  CrossWriterOptions options;
  options.c_grid = {4.0, 16.0};
  return options;
}

TEST(CrossWriter, EveryWriterIsScoredByModelsThatNeverSawIt) {
  const std::vector<Example> slice = Slice();
  std::set<std::string> writers;
  for (const Example& e : slice) writers.insert(e.writer);
  ASSERT_GE(writers.size(), 2u) << "the built-in corpus names its writers";

  auto result = SelectAcrossWriters(Bank(), slice, QuickOptions());
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->per_writer.size(), writers.size());
  EXPECT_EQ(result->trials.size(), 2u) << "one line per C tried";
  int texts = 0;
  double worst = 1;
  for (const auto& [writer, figures] : result->per_writer) {
    EXPECT_TRUE(writers.count(writer)) << writer;
    for (const CategoryFigures& c : figures.categories) texts += c.positives + c.negatives;
    worst = std::min(worst, figures.MacroF1());
  }
  EXPECT_EQ(texts, static_cast<int>(slice.size())) << "each text scored once, in its category";
  // The pooled figures are every writer's held-out texts together.
  EXPECT_GE(result->pooled.MacroF1(), worst);

  const Selection& selection = result->selection;
  EXPECT_TRUE(selection.c == 4.0 || selection.c == 16.0);
  ASSERT_EQ(selection.categories.size(), Bank().catalogue().categories.size());
  for (const CategorySelection& c : selection.categories) {
    EXPECT_GT(c.threshold, 0.0) << c.name;
    EXPECT_LT(c.threshold, 1.0) << c.name;
    EXPECT_GT(c.platt_a, 0.0) << c.name << ": a higher score is a likelier failure";
  }
  EXPECT_EQ(selection.corpus_digest, CorpusDigest(slice));
  EXPECT_EQ(selection.writer_json.size(), writers.size());
}

TEST(CrossWriter, NeedsTwoWriters) {
  std::vector<Example> one = Slice();
  for (Example& e : one) e.writer = "only";
  auto result = SelectAcrossWriters(Bank(), one, QuickOptions());
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().find("two writers"), std::string::npos) << result.error();
}

TEST(CrossWriter, TheSelectionFileRoundTripsAndRejectsNonsense) {
  Selection selection;
  selection.c = 8;
  selection.corpus_digest = "00ff";
  selection.categories = {{"unsupported_claims", 1.5, -2.25, 0.7}};
  selection.pooled_json = R"({"macro_f1":0.8})";
  selection.writer_json = {{"w1", R"({"macro_f1":0.7})"}};
  auto parsed = Selection::Parse(selection.Json(), "test");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed->Json(), selection.Json());
  ASSERT_NE(parsed->Find("unsupported_claims"), nullptr);
  EXPECT_DOUBLE_EQ(parsed->Find("unsupported_claims")->platt_b, -2.25);
  EXPECT_EQ(parsed->Find("missing"), nullptr);

  auto broken = Selection::Parse("{\"c\": 4}", "selection.json");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().find("selection.json"), std::string::npos) << broken.error();
  EXPECT_FALSE(Selection::Parse(R"({"c": 0, "categories": {}})", "test")) << "C must be > 0";
}

TEST(CrossWriter, TrainingWithASelectionTakesItsSettingsAndUsesEveryText) {
  const std::vector<Example> slice = Slice();
  Selection selection;
  selection.c = 4;
  selection.pooled_json = R"({"macro_f1":0.5})";
  for (const CategorySpec& category : Bank().catalogue().categories) {
    selection.categories.push_back({category.name, 2.0, -1.0, 0.6});
  }
  TrainOptions options;
  options.trained_at = "2026-01-01T00:00:00Z";
  options.selection = &selection;
  auto trained = Train(Bank(), slice, options);
  ASSERT_TRUE(trained) << trained.error();
  for (const ModelCategory& c : trained->model.categories) {
    EXPECT_DOUBLE_EQ(c.platt_a, 2.0) << c.name;
    EXPECT_DOUBLE_EQ(c.platt_b, -1.0) << c.name;
    EXPECT_DOUBLE_EQ(c.threshold, 0.6) << c.name;
  }
  EXPECT_EQ(trained->model.validation_json, selection.pooled_json);
  EXPECT_TRUE(trained->validation.categories.empty()) << "no split was held back";

  // Every text trained: the model differs from one trained without the
  // validation fifth.
  TrainOptions split = options;
  split.selection = nullptr;
  auto without = Train(Bank(), slice, split);
  ASSERT_TRUE(without);
  EXPECT_NE(
      std::vector<std::int8_t>(trained->model.weights().begin(), trained->model.weights().end()),
      std::vector<std::int8_t>(without->model.weights().begin(), without->model.weights().end()));
}

// The committed data/corpus/selection.json was chosen on the corpus the
// build trained on: a changed corpus needs a new selection
// (togmal_train_builtin_model ... --select data/corpus/selection.json).
TEST(CrossWriter, TheBuiltInSelectionWasChosenOnTheBuiltInCorpus) {
  ASSERT_FALSE(BuiltInSelection().empty()) << "the build passes data/corpus/selection.json";
  auto selection = Selection::Parse(std::string(BuiltInSelection()), "built-in selection");
  ASSERT_TRUE(selection) << selection.error();
  auto corpus = ParseCorpus(BuiltInCorpus(), "built-in corpus");
  ASSERT_TRUE(corpus) << corpus.error();
  EXPECT_EQ(selection->corpus_digest, CorpusDigest(*corpus));
  for (const CategorySpec& category : Bank().catalogue().categories) {
    const CategorySelection* chosen = selection->Find(category.name);
    ASSERT_NE(chosen, nullptr) << category.name;
    const int index = BuiltInModel().Find(category.name);
    ASSERT_GE(index, 0);
    EXPECT_DOUBLE_EQ(BuiltInModel().categories[static_cast<std::size_t>(index)].threshold,
                     chosen->threshold);
  }
}

// `togmal train` checks a retrained model on the sealed writers' texts: they
// are compiled in, and no text of theirs is in the corpus either model trains on.
TEST(CrossWriter, TheCheckSetIsWritersTheCorpusNeverHeard) {
  ASSERT_FALSE(BuiltInCheckSet().empty()) << "the build passes data/corpus/sealed";
  auto check = ParseCorpus(BuiltInCheckSet(), "built-in check set");
  ASSERT_TRUE(check) << check.error();
  auto corpus = ParseCorpus(BuiltInCorpus(), "built-in corpus");
  ASSERT_TRUE(corpus) << corpus.error();
  std::set<std::string> corpus_writers, corpus_texts;
  for (const Example& e : *corpus) {
    corpus_writers.insert(e.writer);
    corpus_texts.insert(e.text);
  }
  std::set<std::string> check_writers;
  for (const Example& e : *check) {
    check_writers.insert(e.writer);
    EXPECT_EQ(corpus_texts.count(e.text), 0u) << e.writer << ": " << e.text.substr(0, 80);
  }
  EXPECT_GE(check->size(), 500u);
  for (const std::string& writer : check_writers) {
    EXPECT_EQ(corpus_writers.count(writer), 0u) << writer << " also wrote training texts";
  }
}

}  // namespace
}  // namespace togmal::analysis
