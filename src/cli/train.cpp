// `togmal train`: retrain the detection model from the built-in corpus plus
// the verdicts in the evidence database, and install it as the user model if
// it is no worse than the built-in one on the built-in validation split.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include "command.h"
#include "database_option.h"
#include "togmal/analysis/active_model.h"
#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/training.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/store/taxonomy.h"

namespace togmal::cli {
namespace {

// How much worse than the built-in model a retrained one may score on the
// built-in validation split before it is refused: noise of one or two texts.
constexpr double kMacroF1Slack = 0.01;
constexpr double kHardRateSlack = 0.01;

/// The half of a pair `togmal evidence` did not have (see evidence.cpp).
constexpr const char* kNotGiven = "-";

struct TrainCommandOptions {
  DatabaseOption db;
};

/// The database's verdicts as training examples: the response is the judged
/// text (its prompt the context), or the prompt when no response was given.
Result<std::vector<analysis::Example>> EvidenceExamples(const std::filesystem::path& path) {
  std::vector<analysis::Example> examples;
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return examples;
  auto settings = store::LoadStoreSettings();
  if (!settings) return Fail(settings.error());
  auto db = store::Database::Open(path);
  if (!db) return Fail(db.error());
  auto entries = store::Taxonomy(*db, settings->taxonomy_capacity).All();
  if (!entries) return Fail(entries.error());
  for (const store::Evidence& entry : *entries) {
    analysis::Example example;
    example.category = entry.category;
    example.label = entry.verdict == "false_positive" ? "negative" : "positive";
    example.from_user = true;
    if (entry.response != kNotGiven) {
      example.kind = "response";
      example.text = entry.response;
      if (entry.prompt != kNotGiven) example.context = entry.prompt;
    } else {
      example.kind = "prompt";
      example.text = entry.prompt;
    }
    examples.push_back(std::move(example));
  }
  return examples;
}

int Train(const TrainCommandOptions& options) {
  auto bank = analysis::SharedDetectorBank();
  if (!bank) {
    std::cerr << "togmal train: " << bank.error() << "\n";
    return kExitConfig;
  }
  auto corpus = analysis::ParseCorpus(analysis::BuiltInCorpus(), "built-in corpus");
  if (!corpus) {
    std::cerr << "togmal train: " << corpus.error() << "\n";
    return kExitSoftware;
  }
  const auto db_path = options.db.Resolve();
  auto user = EvidenceExamples(db_path);
  if (!user) {
    std::cerr << "togmal train: " << user.error() << "\n";
    return kExitFailure;
  }
  std::cout << "training on " << corpus->size() << " built-in texts and " << user->size()
            << " verdicts from " << db_path.string() << "\n";
  const std::vector<analysis::Example> validation = analysis::ValidationSplit(*corpus);
  const std::shared_ptr<const analysis::Model> current = analysis::ActiveModel();
  const analysis::Figures before = analysis::Evaluate(**bank, current.get(), validation);
  const analysis::Figures built_in =
      current.get() == &analysis::BuiltInModel()
          ? before
          : analysis::Evaluate(**bank, &analysis::BuiltInModel(), validation);
  std::cout << "\nbefore (" << current->origin << ", trained " << current->trained_at
            << "), built-in validation split:\n"
            << before.Table();

  std::vector<analysis::Example> examples = std::move(*corpus);
  examples.insert(examples.end(), user->begin(), user->end());
  analysis::TrainOptions train_options;
  train_options.trained_on = "the built-in corpus and " + std::to_string(user->size()) +
                             " verdicts from " + db_path.string();
  auto trained = analysis::Train(**bank, examples, train_options);
  if (!trained) {
    std::cerr << "togmal train: " << trained.error() << "\n";
    return kExitSoftware;
  }
  const analysis::Figures& after = trained->validation;
  std::cout << "\nafter, built-in validation split:\n" << after.Table();
  if (after.MacroF1() < built_in.MacroF1() - kMacroF1Slack ||
      after.HardRate() > built_in.HardRate() + kHardRateSlack) {
    std::cerr << "togmal train: the new model is worse than the built-in one on the built-in "
                 "validation split (macro-F1 "
              << after.MacroF1() << " vs " << built_in.MacroF1() << ", hard negatives flagged "
              << after.HardRate() << " vs " << built_in.HardRate() << "); not installed\n";
    return kExitFailure;
  }
  const std::filesystem::path path = analysis::UserModelPath();
  std::error_code error;
  std::filesystem::create_directories(path.parent_path(), error);
  const std::filesystem::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << trained->model.Serialize();
    if (!out.flush()) {
      std::cerr << "togmal train: cannot write " << temporary.string() << "\n";
      return kExitCantCreat;
    }
  }
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::cerr << "togmal train: cannot write " << path.string() << ": " << error.message() << "\n";
    return kExitCantCreat;
  }
  std::cout << "\nwrote " << path.string() << " (used by `togmal analyze` and `togmal serve`)\n";
  return kExitOk;
}

}  // namespace

Action DefineTrain(CLI::App& command) {
  auto options = std::make_shared<TrainCommandOptions>();
  options->db = AddDatabaseOption(command);
  command.footer(
      "Retrains the detection model from the built-in corpus and the evidence database's "
      "verdicts (togmal_submit_evidence, togmal evidence), prints the validation figures before "
      "and after, and writes $XDG_DATA_HOME/togmal/model.bin unless the new model is worse on "
      "the built-in validation split. Exit 1 when refused.");
  return [options] { return Train(*options); };
}

}  // namespace togmal::cli
