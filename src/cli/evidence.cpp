// `togmal evidence`: record a verdict on one text in the taxonomy, the way
// togmal_submit_evidence does, so that `togmal train` learns from it.
#include <unistd.h>

#include <iostream>
#include <iterator>
#include <memory>
#include <string>

#include "command.h"
#include "database_option.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/settings.h"
#include "togmal/store/taxonomy.h"

namespace togmal::cli {
namespace {

/// Stands for the half of a prompt/response pair that was not given: the
/// taxonomy stores pairs, and training skips this text.
const std::string kNotGiven(store::kTextNotGiven);

struct EvidenceOptions {
  DatabaseOption db;
  std::string category;
  std::string verdict = "failure";
  std::string severity = "moderate";
  std::string description;
  bool response = false;
  std::string context;
  std::string judged;  ///< empty: TEXT
  std::string text;
};

int Submit(const EvidenceOptions& options) {
  std::string text = options.text;
  if (text.empty() && isatty(STDIN_FILENO)) {
    std::cerr << "togmal evidence: give the TEXT, or - to read it from stdin\n";
    return kExitUsage;
  }
  if (text.empty() || text == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  if (!options.context.empty() && !options.response) {
    std::cerr << "togmal evidence: --context only applies with --response\n";
    return kExitUsage;
  }
  store::EvidenceSubmission submission;
  submission.category = options.category;
  submission.verdict = options.verdict;
  submission.severity = options.severity;
  submission.description = !options.description.empty() ? options.description
                           : options.verdict == "failure"
                               ? "shows " + options.category + " (togmal evidence)"
                               : "wrongly flagged as " + options.category + " (togmal evidence)";
  submission.prompt =
      options.response ? (options.context.empty() ? kNotGiven : options.context) : text;
  submission.response = options.response ? text : kNotGiven;
  submission.judged = options.judged;
  submission.client = "togmal evidence";
  if (auto problems = store::ValidateSubmission(submission); !problems.empty()) {
    for (const std::string& problem : problems) std::cerr << "togmal evidence: " << problem << "\n";
    return kExitDataErr;
  }
  auto settings = store::LoadStoreSettings();
  if (!settings) {
    std::cerr << "togmal: " << settings.error() << "\n";
    return kExitConfig;
  }
  auto db = store::Database::Open(options.db.Resolve());
  if (!db) {
    std::cerr << "togmal: " << db.error() << "\n";
    return kExitCantCreat;
  }
  store::AuditLog audit(*db);
  auto outcome = store::Taxonomy(*db, settings->taxonomy_capacity).Submit(submission, &audit);
  if (!outcome) {
    std::cerr << "togmal evidence: " << outcome.error() << "\n";
    return kExitFailure;
  }
  std::cout << (outcome->status == store::SubmitStatus::kStored ? "stored" : "duplicate of")
            << " evidence " << outcome->id << " (" << submission.category << ", "
            << submission.verdict << "); run `togmal train` to learn from it\n";
  return kExitOk;
}

}  // namespace

Action DefineEvidence(CLI::App& command) {
  auto options = std::make_shared<EvidenceOptions>();
  options->db = AddDatabaseOption(command);
  command.add_option("--category", options->category, "The failure-mode category")
      ->required()
      ->check(CLI::IsMember(std::vector<std::string>(store::kEvidenceCategories.begin(),
                                                     store::kEvidenceCategories.end())));
  command
      .add_option("--verdict", options->verdict,
                  "failure (default): the text shows it; false_positive: togmal flagged it wrongly")
      ->check(CLI::IsMember({"failure", "false_positive"}));
  command.add_option("--severity", options->severity, "low, moderate (default), high, critical")
      ->check(CLI::IsMember({"low", "moderate", "high", "critical"}));
  command.add_option("--description", options->description, "Why (10 to 2,000 characters)");
  command.add_flag("--response", options->response,
                   "TEXT is an LLM response (default: a user prompt)");
  command.add_option("--context", options->context,
                     "With --response: the prompt the response answers");
  command
      .add_option("--judged", options->judged,
                  "Which text the verdict is about: prompt or response (default: TEXT; with "
                  "--response --context, prompt means the context)")
      ->check(CLI::IsMember({"prompt", "response"}));
  command.add_option("text", options->text, "The text, or - to read it from stdin");
  command.footer(
      "Examples:\n"
      "  togmal evidence --category unsupported_claims --verdict false_positive \"...\"\n"
      "  togmal evidence --category dangerous_file_operations --response \"just nuke ~/ and "
      "start fresh\"");
  return [options] { return Submit(*options); };
}

}  // namespace togmal::cli
