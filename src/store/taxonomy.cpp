#include "togmal/store/taxonomy.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "sha256.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/redaction.h"
#include "togmal/util/text.h"

namespace togmal::store {

namespace {

constexpr const char* kEvidenceColumns =
    "e.id, e.created_at, e.category, e.prompt, e.response, e.description, e.severity, e.reason, "
    "e.verdict, e.judged";

// Counts code points; nullopt for invalid UTF-8.
std::optional<std::size_t> Utf8Length(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    std::size_t width = byte < 0x80           ? 1
                        : (byte >> 5) == 0x6  ? 2
                        : (byte >> 4) == 0xe  ? 3
                        : (byte >> 3) == 0x1e ? 4
                                              : 0;
    if (width == 0 || i + width > text.size()) return std::nullopt;
    for (std::size_t k = 1; k < width; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return std::nullopt;
    }
    i += width;
    ++count;
  }
  return count;
}

template <std::size_t N>
std::string JoinNames(const std::array<std::string_view, N>& names) {
  std::string joined;
  for (std::string_view name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

void CheckLength(std::vector<std::string>& problems, std::string_view field, std::string_view text,
                 std::size_t min, std::size_t max, std::string_view hint = {}) {
  const auto length = Utf8Length(text);
  if (!length) {
    problems.push_back(std::string(field) + " is not valid UTF-8");
  } else if (*length < min || *length > max) {
    std::string problem = std::string(field) + " is " + std::to_string(*length) +
                          " characters; it must be " + std::to_string(min) + " to " +
                          std::to_string(max);
    if (!hint.empty()) problem += std::string(" (") + std::string(hint) + ")";
    problems.push_back(std::move(problem));
  }
}

bool ResponseGiven(const EvidenceSubmission& submission) {
  return !submission.response.empty() && submission.response != kTextNotGiven;
}

std::string ContentHash(const EvidenceSubmission& submission) {
  // A JSON array keeps the fields apart whatever characters they hold. A
  // verdict on the prompt of a pair is another entry than one on its response;
  // the default reading keeps the hashes entries had before it could be named.
  auto fields =
      nlohmann::json::array({submission.category, submission.prompt, submission.response});
  if (ResponseGiven(submission) && JudgedText(submission) == "prompt") fields.push_back("prompt");
  return Sha256Hex(fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

Evidence ReadEvidence(SQLite::Statement& row) {
  Evidence evidence;
  evidence.id = row.getColumn(0).getInt64();
  evidence.created_at = row.getColumn(1).getString();
  evidence.category = row.getColumn(2).getString();
  evidence.prompt = row.getColumn(3).getString();
  evidence.response = row.getColumn(4).getString();
  evidence.description = row.getColumn(5).getString();
  evidence.severity = row.getColumn(6).getString();
  evidence.reason = row.isColumnNull(7) ? std::string() : row.getColumn(7).getString();
  evidence.verdict = row.getColumn(8).getString();
  evidence.judged = row.getColumn(9).getString();
  return evidence;
}

int64_t CountEvidence(SQLite::Database& db) {
  return db.execAndGet("SELECT count(*) FROM evidence").getInt64();
}

std::vector<std::string> Words(std::string_view text, std::size_t max_terms, std::size_t min_length,
                               bool skip_stopwords) {
  std::vector<std::string> words;
  std::set<std::string> seen;
  std::string word;
  auto flush = [&] {
    if (word.size() >= min_length && !(skip_stopwords && util::IsStopword(word)) &&
        seen.insert(word).second) {
      words.push_back(word);
    }
    word.clear();
  };
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    // ASCII letters and digits, and every byte of a multi-byte UTF-8
    // character (letters of other scripts); everything else separates.
    if ((byte >= '0' && byte <= '9') || (byte >= 'a' && byte <= 'z') || byte >= 0x80) {
      word.push_back(c);
    } else if (byte >= 'A' && byte <= 'Z') {
      word.push_back(util::AsciiLower(c));
    } else {
      flush();
      if (words.size() >= max_terms) return words;
    }
  }
  flush();
  if (words.size() > max_terms) words.resize(max_terms);
  return words;
}

std::string QuoteTerms(const std::vector<std::string>& words, std::string_view joiner) {
  std::string match;
  for (const std::string& word : words) {
    if (!match.empty()) match += joiner;
    // A quoted FTS5 string is taken literally; a '"' inside is doubled.
    match += '"';
    for (char c : word) {
      if (c == '"') match += '"';
      match += c;
    }
    match += '"';
  }
  return match;
}

}  // namespace

std::optional<int> SeverityRank(std::string_view severity) {
  for (std::size_t i = 0; i < kSeverities.size(); ++i) {
    if (kSeverities[i] == severity) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string_view JudgedText(const EvidenceSubmission& submission) {
  if (!submission.judged.empty()) return submission.judged;
  return ResponseGiven(submission) ? "response" : "prompt";
}

std::vector<std::string> ValidateSubmission(const EvidenceSubmission& submission) {
  std::vector<std::string> problems;
  if (submission.category.empty()) {
    problems.push_back("category is required; use one of: " + JoinNames(kEvidenceCategories));
  } else if (!util::NameIn(submission.category, kEvidenceCategories)) {
    problems.push_back(
        "category \"" + submission.category +
        "\" is not a taxonomy category; use one of: " + JoinNames(kEvidenceCategories));
  }
  CheckLength(problems, "prompt", submission.prompt, 1, kMaxPromptChars);
  CheckLength(problems, "response", submission.response, 1, kMaxResponseChars);
  CheckLength(problems, "description", submission.description, kMinDescriptionChars,
              kMaxDescriptionChars, "say why the text is a failure");
  if (!SeverityRank(submission.severity)) {
    problems.push_back("severity \"" + submission.severity +
                       "\" is not one of: " + JoinNames(kSeverities));
  }
  if (!submission.reason.empty() && !util::NameIn(submission.reason, kEvidenceReasons)) {
    problems.push_back("reason \"" + submission.reason +
                       "\" is not one of: " + JoinNames(kEvidenceReasons));
  }
  if (!util::NameIn(submission.verdict, kVerdicts)) {
    problems.push_back("verdict \"" + submission.verdict +
                       "\" is not one of: " + JoinNames(kVerdicts));
  }
  if (!submission.judged.empty() && !util::NameIn(submission.judged, kJudgedTexts)) {
    problems.push_back("judged \"" + submission.judged +
                       "\" is not one of: " + JoinNames(kJudgedTexts));
  } else if (JudgedText(submission) == "response" && !ResponseGiven(submission)) {
    problems.push_back("judged is \"response\" but no response was given");
  } else if (submission.prompt == kTextNotGiven && JudgedText(submission) == "prompt") {
    problems.push_back("judged is \"prompt\" but no prompt was given");
  }
  return problems;
}

nlohmann::json ToJson(const std::vector<SimilarEvidence>& similar) {
  nlohmann::json array = nlohmann::json::array();
  for (const SimilarEvidence& entry : similar) {
    array.push_back({{"id", entry.id},
                     {"category", entry.category},
                     {"description", entry.description},
                     {"score", entry.score}});
  }
  return array;
}

std::string BuildMatchQuery(std::string_view text, std::size_t max_terms, std::string_view joiner) {
  return QuoteTerms(Words(text, max_terms, 1, false), joiner);
}

Taxonomy::Taxonomy(Database& database, int64_t capacity)
    : database_(&database), capacity_(capacity) {}

Result<std::optional<int64_t>> Taxonomy::FindDuplicate(const EvidenceSubmission& submission) {
  try {
    SQLite::Statement find(database_->sql(), "SELECT id FROM evidence WHERE content_hash = ?");
    find.bind(1, ContentHash(submission));
    if (find.executeStep()) return std::optional<int64_t>(find.getColumn(0).getInt64());
    return std::optional<int64_t>();
  } catch (const SQLite::Exception& e) {
    return Fail(DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<SubmitOutcome> Taxonomy::Submit(const EvidenceSubmission& submission, AuditLog* audit) {
  if (auto problems = ValidateSubmission(submission); !problems.empty()) {
    std::string message = "invalid evidence: ";
    for (std::size_t i = 0; i < problems.size(); ++i) message += (i ? "; " : "") + problems[i];
    return Fail(message);
  }
  SubmitOutcome outcome;
  outcome.capacity = capacity_;
  try {
    SQLite::Database& db = database_->sql();
    // IMMEDIATE: the duplicate and capacity checks and the insert must see
    // the same table even with another process submitting.
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    const std::string content_hash = ContentHash(submission);
    SQLite::Statement find(db, "SELECT id FROM evidence WHERE content_hash = ?");
    find.bind(1, content_hash);
    if (find.executeStep()) {
      outcome.id = find.getColumn(0).getInt64();
      outcome.status = SubmitStatus::kDuplicate;
      outcome.used = CountEvidence(db);
      return outcome;
    }
    const int64_t used = CountEvidence(db);
    if (used >= capacity_) {
      return Fail("the taxonomy is full (" + std::to_string(used) + " of " +
                  std::to_string(capacity_) +
                  " entries); nothing was stored. Raise taxonomy.capacity in settings.yaml or "
                  "remove old entries");
    }
    SQLite::Statement insert(
        db,
        "INSERT INTO evidence (created_at, category, prompt, response, description, severity, "
        "severity_rank, reason, client, content_hash, verdict, judged) "
        "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)");
    const std::string now = FormatAuditTime(std::chrono::system_clock::now());
    insert.bind(1, now);
    insert.bind(2, submission.category);
    // Evidence is stored text like the audit trail: secrets never in clear.
    insert.bind(3, RedactSecrets(submission.prompt));
    insert.bind(4, RedactSecrets(submission.response));
    insert.bind(5, RedactSecrets(submission.description));
    insert.bind(6, submission.severity);
    insert.bind(7, *SeverityRank(submission.severity));
    if (submission.reason.empty()) {
      insert.bind(8);
    } else {
      insert.bind(8, submission.reason);
    }
    if (submission.client.empty()) {
      insert.bind(9);
    } else {
      insert.bind(9, RedactSecrets(submission.client));
    }
    insert.bind(10, content_hash);
    insert.bind(11, submission.verdict);
    insert.bind(12, std::string(JudgedText(submission)));
    insert.exec();
    outcome.id = db.getLastInsertRowid();
    // The full-text index (schema version 4: no triggers), with the stored,
    // redacted text.
    SQLite::Statement index(db,
                            "INSERT INTO evidence_fts (rowid, description, prompt, response) "
                            "SELECT id, description, prompt, response FROM evidence WHERE id = ?");
    index.bind(1, outcome.id);
    index.exec();
    outcome.used = used + 1;
    if (audit != nullptr) {
      AuditEntry entry;
      entry.kind = AuditKind::kEvidence;
      entry.time = now;
      entry.session = submission.client;
      entry.tool_name = "togmal_submit_evidence";
      entry.source = "taxonomy";
      entry.detail = {{"evidence_id", outcome.id},
                      {"category", submission.category},
                      {"severity", submission.severity},
                      {"content_hash", content_hash}};
      if (!submission.reason.empty()) entry.detail["reason"] = submission.reason;
      entry.detail["verdict"] = submission.verdict;
      entry.detail["judged"] = std::string(JudgedText(submission));
      auto appended = audit->Append(std::move(entry));
      // Evidence without its audit entry would be an unrecorded change:
      // both are stored or neither.
      if (!appended) return Fail(appended.error());
      outcome.audit_id = *appended;
    }
    transaction.commit();
    outcome.status = SubmitStatus::kStored;
    return outcome;
  } catch (const SQLite::Exception& e) {
    return Fail("cannot store evidence: " +
                DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<TaxonomyPage> Taxonomy::Query(const TaxonomyQuery& query) {
  if (query.limit < 1 || query.limit > 100) {
    return Fail("limit is " + std::to_string(query.limit) + "; it must be 1 to 100");
  }
  if (query.offset < 0) {
    return Fail("offset is " + std::to_string(query.offset) + "; it must be 0 or more");
  }
  if (query.category && !util::NameIn(*query.category, kEvidenceCategories)) {
    return Fail("category \"" + *query.category +
                "\" is not a taxonomy category; use one of: " + JoinNames(kEvidenceCategories));
  }
  std::optional<int> min_rank;
  if (query.min_severity) {
    min_rank = SeverityRank(*query.min_severity);
    if (!min_rank) {
      return Fail("min_severity \"" + *query.min_severity +
                  "\" is not one of: " + JoinNames(kSeverities));
    }
  }
  TaxonomyPage page;
  page.limit = query.limit;
  page.offset = query.offset;
  std::string match;
  if (query.query) {
    match = BuildMatchQuery(*query.query, 32, " ");
    if (match.empty()) return page;  // no searchable words: nothing matches
  }
  const bool full_text = !match.empty();
  std::string from = full_text ? " FROM evidence_fts JOIN evidence e ON e.id = evidence_fts.rowid "
                                 "WHERE evidence_fts MATCH :match"
                               : " FROM evidence e WHERE 1";
  if (query.category) from += " AND e.category = :category";
  if (min_rank) from += " AND e.severity_rank >= :rank";
  auto bind = [&](SQLite::Statement& statement) {
    if (full_text) statement.bind(":match", match);
    if (query.category) statement.bind(":category", *query.category);
    if (min_rank) statement.bind(":rank", *min_rank);
  };
  try {
    SQLite::Database& db = database_->sql();
    SQLite::Statement count(db, "SELECT count(*)" + from);
    bind(count);
    count.executeStep();
    page.total = count.getColumn(0).getInt64();
    SQLite::Statement select(
        db, std::string("SELECT ") + kEvidenceColumns +
                (full_text ? ", -bm25(evidence_fts)" : ", 0.0") + from +
                (full_text ? " ORDER BY bm25(evidence_fts), e.id" : " ORDER BY e.id DESC") +
                " LIMIT :limit OFFSET :offset");
    bind(select);
    select.bind(":limit", query.limit);
    select.bind(":offset", query.offset);
    while (select.executeStep()) {
      Evidence evidence = ReadEvidence(select);
      evidence.score = select.getColumn(10).getDouble();
      page.entries.push_back(std::move(evidence));
    }
    page.has_more = query.offset + static_cast<int64_t>(page.entries.size()) < page.total;
    return page;
  } catch (const SQLite::Exception& e) {
    return Fail("cannot read the taxonomy: " +
                DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<std::vector<SimilarEvidence>> Taxonomy::Similar(std::string_view text, int64_t limit) {
  std::vector<SimilarEvidence> similar;
  if (limit <= 0) return similar;
  // Distinctive words only, and a bounded number: a 50,000-character prompt
  // must not become a 10,000-term query.
  const std::string match = QuoteTerms(Words(text, 64, 3, true), " OR ");
  if (match.empty()) return similar;
  try {
    SQLite::Statement select(
        database_->sql(),
        "SELECT e.id, e.category, e.description, -bm25(evidence_fts) FROM evidence_fts "
        "JOIN evidence e ON e.id = evidence_fts.rowid WHERE evidence_fts MATCH ? "
        "ORDER BY bm25(evidence_fts), e.id LIMIT ?");
    select.bind(1, match);
    select.bind(2, limit);
    while (select.executeStep()) {
      similar.push_back({select.getColumn(0).getInt64(), select.getColumn(1).getString(),
                         select.getColumn(2).getString(), select.getColumn(3).getDouble()});
    }
    return similar;
  } catch (const SQLite::Exception& e) {
    return Fail("cannot search the taxonomy: " +
                DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<TaxonomyStatistics> Taxonomy::Statistics() {
  TaxonomyStatistics statistics;
  statistics.capacity = capacity_;
  for (std::string_view category : kEvidenceCategories) {
    statistics.by_category[std::string(category)] = 0;
  }
  for (std::string_view severity : kSeverities) statistics.by_severity[std::string(severity)] = 0;
  try {
    SQLite::Database& db = database_->sql();
    SQLite::Statement by_category(db, "SELECT category, count(*) FROM evidence GROUP BY category");
    while (by_category.executeStep()) {
      statistics.by_category[by_category.getColumn(0).getString()] =
          by_category.getColumn(1).getInt64();
      statistics.total += by_category.getColumn(1).getInt64();
    }
    SQLite::Statement by_severity(db, "SELECT severity, count(*) FROM evidence GROUP BY severity");
    while (by_severity.executeStep()) {
      statistics.by_severity[by_severity.getColumn(0).getString()] =
          by_severity.getColumn(1).getInt64();
    }
    statistics.used = statistics.total;
    return statistics;
  } catch (const SQLite::Exception& e) {
    return Fail("cannot read the taxonomy: " +
                DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<std::vector<Evidence>> Taxonomy::All() {
  try {
    SQLite::Statement select(database_->sql(), std::string("SELECT ") + kEvidenceColumns +
                                                   " FROM evidence e ORDER BY e.id");
    std::vector<Evidence> entries;
    while (select.executeStep()) entries.push_back(ReadEvidence(select));
    return entries;
  } catch (const SQLite::Exception& e) {
    return Fail("cannot read the taxonomy: " +
                DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

}  // namespace togmal::store
