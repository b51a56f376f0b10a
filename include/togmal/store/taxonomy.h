#pragma once
/// The evidence taxonomy: examples of LLM failures that people submit,
/// deduplicated, capped, searchable by category, severity and full text
/// (SQLite FTS5, bm25 ranking).

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "togmal/util/result.h"

namespace togmal::store {

class Database;
class AuditLog;

/// The taxonomy's categories (the analysis detectors use the same names).
inline constexpr std::array<std::string_view, 5> kEvidenceCategories = {
    "math_physics_speculation", "ungrounded_medical_advice", "dangerous_file_operations",
    "vibe_coding_overreach", "unsupported_claims"};

/// Severities, least severe first.
inline constexpr std::array<std::string_view, 4> kSeverities = {"low", "moderate", "high",
                                                                "critical"};

/// Why evidence was submitted (optional).
inline constexpr std::array<std::string_view, 5> kEvidenceReasons = {
    "false_negative", "false_positive", "new_pattern", "llm_failure", "edge_case"};

/// What a submission says about its text: it shows the failure (the default),
/// or the category was flagged wrongly. `togmal train` learns from both.
inline constexpr std::array<std::string_view, 2> kVerdicts = {"failure", "false_positive"};
/// Which text a verdict is about.
inline constexpr std::array<std::string_view, 2> kJudgedTexts = {"prompt", "response"};
/// Stands for the half of a prompt/response pair that was not given.
inline constexpr std::string_view kTextNotGiven = "-";

/// Limits on submitted text, in characters (UTF-8 code points).
inline constexpr std::size_t kMaxPromptChars = 50000;
inline constexpr std::size_t kMaxResponseChars = 100000;
inline constexpr std::size_t kMinDescriptionChars = 10;
inline constexpr std::size_t kMaxDescriptionChars = 2000;
/// Default number of entries the taxonomy holds.
inline constexpr int64_t kDefaultCapacity = 1000;

/// 0 for "low" … 3 for "critical"; nullopt for anything else.
std::optional<int> SeverityRank(std::string_view severity);

/// A submission as the tool receives it.
struct EvidenceSubmission {
  std::string category;
  std::string prompt;
  std::string response;
  std::string description;
  std::string severity;
  std::string reason;               ///< empty when not given
  std::string verdict = "failure";  ///< one of kVerdicts
  std::string client;               ///< who submitted (MCP client name), for the record
  /// Which text the verdict is about (one of kJudgedTexts); empty: the
  /// response when one was given, else the prompt (see JudgedText).
  std::string judged{};
};

/// The text a submission's verdict is about: `judged`, or its default.
std::string_view JudgedText(const EvidenceSubmission& submission);

/// A stored entry.
struct Evidence {
  int64_t id = 0;
  std::string created_at;
  std::string category;
  std::string prompt;
  std::string response;
  std::string description;
  std::string severity;
  std::string reason;
  std::string verdict = "failure";
  std::string judged = "response";  ///< one of kJudgedTexts
  double score = 0;                 ///< relevance for a full-text query (higher is closer), else 0
};

/// Every problem with a submission, one precise sentence each; empty = valid.
std::vector<std::string> ValidateSubmission(const EvidenceSubmission& submission);

enum class SubmitStatus { kStored, kDuplicate };

struct SubmitOutcome {
  int64_t id = 0;
  SubmitStatus status = SubmitStatus::kStored;
  int64_t used = 0;  ///< entries after this submission
  int64_t capacity = 0;
  std::optional<int64_t> audit_id;  ///< the evidence audit entry, when stored
};

struct TaxonomyQuery {
  std::optional<std::string> category = std::nullopt;
  std::optional<std::string> min_severity = std::nullopt;
  std::optional<std::string> query = std::nullopt;  ///< full text; plain words, not FTS syntax
  int64_t limit = 20;                               ///< 1..100
  int64_t offset = 0;                               ///< >= 0
};

struct TaxonomyPage {
  std::vector<Evidence> entries;
  int64_t total = 0;  ///< matches before pagination
  int64_t limit = 0;
  int64_t offset = 0;
  bool has_more = false;
};

/// One of the closest stored entries to an analysed text.
struct SimilarEvidence {
  int64_t id = 0;
  std::string category;
  std::string description;
  double score = 0;  ///< -bm25, higher is closer
};

struct TaxonomyStatistics {
  int64_t total = 0;
  std::map<std::string, int64_t> by_category;  ///< every category, 0 when empty
  std::map<std::string, int64_t> by_severity;  ///< every severity, 0 when empty
  int64_t capacity = 0;
  int64_t used = 0;
};

/// `[{id, category, description, score}]`, the `similar_evidence` field of an
/// analysis result.
nlohmann::json ToJson(const std::vector<SimilarEvidence>& similar);

/// An FTS5 MATCH expression built from the words of `text`: each word is
/// quoted, so no user text is ever read as FTS syntax; at most `max_terms`
/// distinct words joined by `joiner` (" OR " or " "). Empty when `text` has
/// no words.
std::string BuildMatchQuery(std::string_view text, std::size_t max_terms, std::string_view joiner);

/// The taxonomy in one database. Cheap to construct and copy; the database must outlive it.
class Taxonomy {
 public:
  explicit Taxonomy(Database& database, int64_t capacity = kDefaultCapacity);

  /// The id of an entry with the same category, prompt and response.
  Result<std::optional<int64_t>> FindDuplicate(const EvidenceSubmission& submission);

  /// Validates, deduplicates, checks capacity, stores, and (when `audit` is
  /// given) appends an `evidence` audit entry in the same transaction.
  /// A full taxonomy is an error with a message that says so.
  Result<SubmitOutcome> Submit(const EvidenceSubmission& submission, AuditLog* audit = nullptr);

  /// Filtered, paginated entries: by relevance for a full-text query, else
  /// newest first.
  Result<TaxonomyPage> Query(const TaxonomyQuery& query);

  /// The stored entries closest to `text` (FTS5 over description, prompt and
  /// response, bm25), at most `limit`. Empty when nothing is stored or no
  /// word matches.
  Result<std::vector<SimilarEvidence>> Similar(std::string_view text, int64_t limit = 5);

  Result<TaxonomyStatistics> Statistics();

  /// Every entry (oldest first), for training the detection model.
  Result<std::vector<Evidence>> All();

  int64_t capacity() const { return capacity_; }

 private:
  Database* database_;
  int64_t capacity_;
};

}  // namespace togmal::store
