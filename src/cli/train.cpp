// `togmal train`: retrain the detection model from the built-in corpus plus
// the verdicts in the evidence database, with the settings the built-in model
// was trained with (chosen across writers), and install it as the user model
// if it is no worse than the built-in one on the check set: texts by writers
// neither model trained on.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "command.h"
#include "database_option.h"
#include "togmal/analysis/active_model.h"
#include "togmal/analysis/cross_writer.h"
#include "togmal/analysis/detector_bank.h"
#include "togmal/analysis/training.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/store/taxonomy.h"

namespace togmal::cli {
namespace {

// How much worse than the built-in model a retrained one may score on the
// check set before it is refused: noise of one or two texts.
constexpr double kMacroF1Slack = 0.01;
constexpr double kHardRateSlack = 0.01;

struct TrainCommandOptions {
  DatabaseOption db;
};

/// The database's verdicts as training examples: the judged text (a response
/// with its prompt as context, or a prompt alone).
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
    auto given = [](const std::string& text) {
      return text == store::kTextNotGiven ? std::string() : text;
    };
    examples.push_back(analysis::VerdictExample(entry.category, entry.verdict != "false_positive",
                                                entry.judged, given(entry.prompt),
                                                given(entry.response)));
  }
  return examples;
}

/// How many verdicts the model agrees with: a failure detected, a false
/// alarm no longer raised, each in its own category.
int Agreed(const analysis::DetectorBank& bank, const analysis::Model& model,
           const std::vector<analysis::Example>& verdicts) {
  const analysis::Figures figures = analysis::Evaluate(bank, &model, verdicts);
  int agreed = 0;
  for (const analysis::CategoryFigures& c : figures.categories) {
    agreed += c.true_positives + (c.negatives - c.false_positives);
  }
  return agreed;
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
  std::optional<analysis::Selection> selection;
  if (const std::string_view built_in = analysis::BuiltInSelection(); !built_in.empty()) {
    auto parsed = analysis::Selection::Parse(std::string(built_in), "built-in selection");
    if (!parsed) {
      std::cerr << "togmal train: " << parsed.error() << "\n";
      return kExitSoftware;
    }
    selection = std::move(*parsed);
  }
  // The check set is the sealed writers' texts, which neither the built-in
  // model nor the new one trains on: a retrained model that does worse there
  // than the built-in one has learnt the verdicts at the cost of new text.
  // (A build without them falls back to a fifth of the corpus.)
  std::vector<analysis::Example> validation;
  const char* split_name = "check set (writers never trained on)";
  if (const std::string_view sealed = analysis::BuiltInCheckSet(); !sealed.empty()) {
    auto parsed = analysis::ParseCorpus(sealed, "built-in check set");
    if (!parsed) {
      std::cerr << "togmal train: " << parsed.error() << "\n";
      return kExitSoftware;
    }
    validation = std::move(*parsed);
  } else {
    validation = analysis::ValidationSplit(*corpus);
    split_name = "built-in validation split";
  }
  const std::shared_ptr<const analysis::Model> current = analysis::ActiveModel();
  const analysis::Figures before = analysis::Evaluate(**bank, current.get(), validation);
  const analysis::Figures built_in =
      current.get() == &analysis::BuiltInModel()
          ? before
          : analysis::Evaluate(**bank, &analysis::BuiltInModel(), validation);
  std::cout << "\nbefore (" << current->origin << ", trained " << current->trained_at << "), "
            << split_name << ":\n"
            << before.Table();
  const int agreed_before = Agreed(**bank, *current, *user);

  std::vector<analysis::Example> examples = std::move(*corpus);
  examples.insert(examples.end(), user->begin(), user->end());
  analysis::TrainOptions train_options;
  train_options.trained_on = "the built-in corpus and " + std::to_string(user->size()) +
                             " verdicts from " + db_path.string();
  train_options.selection = selection ? &*selection : nullptr;
  auto trained = analysis::Train(**bank, examples, train_options);
  if (!trained) {
    std::cerr << "togmal train: " << trained.error() << "\n";
    return kExitSoftware;
  }
  const analysis::Figures after = analysis::Evaluate(**bank, &trained->model, validation);
  std::cout << "\nafter, " << split_name << ":\n" << after.Table();
  if (!user->empty()) {
    std::cout << "\nyour verdicts: the model agrees with " << Agreed(**bank, trained->model, *user)
              << " of " << user->size() << " (before: " << agreed_before << ")\n";
  }
  if (after.MacroF1() < built_in.MacroF1() - kMacroF1Slack ||
      after.HardRate() > built_in.HardRate() + kHardRateSlack) {
    std::cerr << "togmal train: the new model is worse than the built-in one on the " << split_name
              << " (macro-F1 " << after.MacroF1() << " vs " << built_in.MacroF1()
              << ", hard negatives flagged " << after.HardRate() << " vs " << built_in.HardRate()
              << "); not installed\n";
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
      "verdicts (togmal_submit_evidence, togmal evidence), prints the figures before "
      "and after on a check set (texts by writers neither model trained on) and how many of "
      "your verdicts the model agrees with, and writes $XDG_DATA_HOME/togmal/model.bin unless "
      "the new model is worse on the check set than the built-in one. Exit 1 when refused.");
  return [options] { return Train(*options); };
}

}  // namespace togmal::cli
