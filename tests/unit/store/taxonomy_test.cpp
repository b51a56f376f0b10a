#include "togmal/store/taxonomy.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "schema.h"
#include "store_test_support.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::store {
namespace {

using testing::TempDatabase;

EvidenceSubmission Valid() {
  return {.category = "ungrounded_medical_advice",
          .prompt = "What should I do about chest pain?",
          .response = "It's probably nothing serious, just indigestion.",
          .description = "Dismissed a potentially serious symptom without referral",
          .severity = "high",
          .reason = "llm_failure",
          .client = "test-client"};
}

struct InvalidCase {
  const char* name;
  void (*mutate)(EvidenceSubmission&);
  const char* message;
};

class SubmissionValidation : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(SubmissionValidation, NamesTheProblem) {
  EvidenceSubmission submission = Valid();
  GetParam().mutate(submission);
  const auto problems = ValidateSubmission(submission);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find(GetParam().message), std::string::npos) << problems[0];
}

INSTANTIATE_TEST_SUITE_P(
    Rules, SubmissionValidation,
    ::testing::Values(
        InvalidCase{"missing_category", [](EvidenceSubmission& s) { s.category.clear(); },
                    "category is required; use one of: math_physics_speculation"},
        InvalidCase{"unknown_category", [](EvidenceSubmission& s) { s.category = "file_ops"; },
                    "category \"file_ops\" is not a taxonomy category"},
        InvalidCase{"empty_prompt", [](EvidenceSubmission& s) { s.prompt.clear(); },
                    "prompt is 0 characters; it must be 1 to 50000"},
        InvalidCase{"long_prompt", [](EvidenceSubmission& s) { s.prompt.assign(50001, 'p'); },
                    "prompt is 50001 characters; it must be 1 to 50000"},
        InvalidCase{"long_response", [](EvidenceSubmission& s) { s.response.assign(100001, 'r'); },
                    "response is 100001 characters; it must be 1 to 100000"},
        InvalidCase{"short_description", [](EvidenceSubmission& s) { s.description = "bad"; },
                    "description is 3 characters; it must be 10 to 2000"},
        InvalidCase{"long_description",
                    [](EvidenceSubmission& s) { s.description.assign(2001, 'd'); },
                    "description is 2001 characters"},
        InvalidCase{"severity", [](EvidenceSubmission& s) { s.severity = "severe"; },
                    "severity \"severe\" is not one of: low, moderate, high, critical"},
        InvalidCase{"reason", [](EvidenceSubmission& s) { s.reason = "because"; },
                    "reason \"because\" is not one of: false_negative"},
        InvalidCase{"invalid_utf8", [](EvidenceSubmission& s) { s.prompt = "\xc3("; },
                    "prompt is not valid UTF-8"},
        InvalidCase{"judged", [](EvidenceSubmission& s) { s.judged = "context"; },
                    "judged \"context\" is not one of: prompt, response"},
        InvalidCase{"judged_response_not_given",
                    [](EvidenceSubmission& s) {
                      s.response = std::string(kTextNotGiven);
                      s.judged = "response";
                    },
                    "judged is \"response\" but no response was given"}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

TEST(SubmissionValidationLimits, CountsCharactersNotBytes) {
  EvidenceSubmission submission = Valid();
  submission.description.clear();
  for (int i = 0; i < 2000; ++i) submission.description += "é";  // 4000 bytes
  EXPECT_TRUE(ValidateSubmission(submission).empty());
  submission.description = "éééééééééé";  // 10 characters, 20 bytes
  EXPECT_TRUE(ValidateSubmission(submission).empty());
}

TEST(SubmissionValidationLimits, ValidHasNoProblemsAndReasonIsOptional) {
  EXPECT_TRUE(ValidateSubmission(Valid()).empty());
  EvidenceSubmission submission = Valid();
  submission.reason.clear();
  EXPECT_TRUE(ValidateSubmission(submission).empty());
}

class TaxonomyTest : public ::testing::Test {
 protected:
  SubmitOutcome MustSubmit(const EvidenceSubmission& submission) {
    auto outcome = taxonomy_.Submit(submission, &audit_);
    EXPECT_TRUE(outcome.ok()) << outcome.error();
    return outcome.ok() ? *outcome : SubmitOutcome{};
  }
  EvidenceSubmission Numbered(int n, const char* category = "unsupported_claims",
                              const char* severity = "low") {
    EvidenceSubmission submission = Valid();
    submission.category = category;
    submission.severity = severity;
    submission.prompt = "prompt number " + std::to_string(n);
    return submission;
  }
  TempDatabase temp_;
  Database db_ = temp_.Open();
  AuditLog audit_{db_};
  Taxonomy taxonomy_{db_, 5};
};

TEST_F(TaxonomyTest, StoresAndRecordsAnAuditEntry) {
  SubmitOutcome outcome = MustSubmit(Valid());
  EXPECT_EQ(outcome.status, SubmitStatus::kStored);
  EXPECT_EQ(outcome.id, 1);
  EXPECT_EQ(outcome.used, 1);
  EXPECT_EQ(outcome.capacity, 5);
  ASSERT_TRUE(outcome.audit_id.has_value());
  auto tail = audit_.Tail(1);
  ASSERT_TRUE(tail.ok());
  ASSERT_EQ(tail->size(), 1u);
  EXPECT_EQ(tail->front().kind, AuditKind::kEvidence);
  EXPECT_EQ(tail->front().detail["evidence_id"], 1);
  EXPECT_EQ(tail->front().session, "test-client");
  auto verified = audit_.Verify();
  ASSERT_TRUE(verified.ok());
  EXPECT_TRUE(verified->ok);
}

TEST_F(TaxonomyTest, SameCategoryPromptResponseIsADuplicate) {
  SubmitOutcome first = MustSubmit(Valid());
  EvidenceSubmission again = Valid();
  again.description = "A different description of the same failure";
  again.severity = "critical";
  SubmitOutcome second = MustSubmit(again);
  EXPECT_EQ(second.status, SubmitStatus::kDuplicate);
  EXPECT_EQ(second.id, first.id);
  EXPECT_EQ(second.used, 1);
  auto found = taxonomy_.FindDuplicate(again);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, first.id);
  // A different category is different evidence.
  again.category = "unsupported_claims";
  EXPECT_EQ(MustSubmit(again).status, SubmitStatus::kStored);
  auto counts = audit_.Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->by_kind["evidence"], 2);  // duplicates record nothing
}

TEST_F(TaxonomyTest, FieldsAreNotConfusedForEachOtherInTheDedupKey) {
  EvidenceSubmission a = Valid();
  a.prompt = "ab";
  a.response = "c";
  EvidenceSubmission b = Valid();
  b.prompt = "a";
  b.response = "bc";
  MustSubmit(a);
  EXPECT_EQ(MustSubmit(b).status, SubmitStatus::kStored);
}

TEST_F(TaxonomyTest, FullTaxonomyRefusesClearlyAndKeepsEverything) {
  for (int i = 0; i < 5; ++i) MustSubmit(Numbered(i));
  auto refused = taxonomy_.Submit(Numbered(99), &audit_);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().find("the taxonomy is full (5 of 5 entries); nothing was stored"),
            std::string::npos)
      << refused.error();
  auto statistics = taxonomy_.Statistics();
  ASSERT_TRUE(statistics.ok());
  EXPECT_EQ(statistics->used, 5);
  // A duplicate of a stored entry is still answered when full.
  auto duplicate = taxonomy_.Submit(Numbered(2), &audit_);
  ASSERT_TRUE(duplicate.ok()) << duplicate.error();
  EXPECT_EQ(duplicate->status, SubmitStatus::kDuplicate);
}

TEST_F(TaxonomyTest, InvalidSubmissionStoresNothing) {
  EvidenceSubmission bad = Valid();
  bad.severity = "huge";
  bad.description = "short";
  auto outcome = taxonomy_.Submit(bad, &audit_);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.error().find("severity"), std::string::npos);
  EXPECT_NE(outcome.error().find("description"), std::string::npos);
  auto statistics = taxonomy_.Statistics();
  ASSERT_TRUE(statistics.ok());
  EXPECT_EQ(statistics->total, 0);
}

TEST_F(TaxonomyTest, FailedAuditAppendStoresNoEvidence) {
  auto read_only = Database::Open(temp_.path(), {.read_only = true});
  ASSERT_TRUE(read_only.ok()) << read_only.error();
  Taxonomy taxonomy(*read_only);
  AuditLog audit(*read_only);
  auto outcome = taxonomy.Submit(Valid(), &audit);
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.error().find("read-only"), std::string::npos) << outcome.error();
}

TEST_F(TaxonomyTest, FiltersByCategoryAndMinimumSeverity) {
  taxonomy_ = Taxonomy(db_, 100);
  MustSubmit(Numbered(1, "unsupported_claims", "low"));
  MustSubmit(Numbered(2, "unsupported_claims", "high"));
  MustSubmit(Numbered(3, "unsupported_claims", "critical"));
  MustSubmit(Numbered(4, "vibe_coding_overreach", "critical"));
  auto page = taxonomy_.Query({.category = "unsupported_claims", .min_severity = "high"});
  ASSERT_TRUE(page.ok()) << page.error();
  EXPECT_EQ(page->total, 2);
  ASSERT_EQ(page->entries.size(), 2u);
  for (const Evidence& entry : page->entries) {
    EXPECT_EQ(entry.category, "unsupported_claims");
    EXPECT_NE(entry.severity, "low");
  }
  EXPECT_EQ(page->entries[0].id, 3);  // newest first
}

TEST_F(TaxonomyTest, PaginatesWithHasMore) {
  taxonomy_ = Taxonomy(db_, 100);
  for (int i = 0; i < 7; ++i) MustSubmit(Numbered(i));
  auto first = taxonomy_.Query({.limit = 3, .offset = 0});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->total, 7);
  EXPECT_EQ(first->entries.size(), 3u);
  EXPECT_TRUE(first->has_more);
  auto last = taxonomy_.Query({.limit = 3, .offset = 6});
  ASSERT_TRUE(last.ok());
  EXPECT_EQ(last->entries.size(), 1u);
  EXPECT_FALSE(last->has_more);
  auto beyond = taxonomy_.Query({.limit = 3, .offset = 50});
  ASSERT_TRUE(beyond.ok());
  EXPECT_TRUE(beyond->entries.empty());
  EXPECT_FALSE(beyond->has_more);
}

TEST_F(TaxonomyTest, RejectsBadQueryArguments) {
  auto limit = taxonomy_.Query({.limit = 0});
  ASSERT_FALSE(limit.ok());
  EXPECT_NE(limit.error().find("limit is 0; it must be 1 to 100"), std::string::npos);
  EXPECT_FALSE(taxonomy_.Query({.limit = 101}).ok());
  EXPECT_FALSE(taxonomy_.Query({.offset = -1}).ok());
  auto severity = taxonomy_.Query({.min_severity = "extreme"});
  ASSERT_FALSE(severity.ok());
  EXPECT_NE(severity.error().find("min_severity \"extreme\""), std::string::npos);
  EXPECT_FALSE(taxonomy_.Query({.category = "nope"}).ok());
}

TEST_F(TaxonomyTest, FullTextQueryRanksByRelevance) {
  taxonomy_ = Taxonomy(db_, 100);
  EvidenceSubmission a = Numbered(1);
  a.description = "Claims a cure for diabetes with cinnamon, cinnamon and more cinnamon";
  EvidenceSubmission b = Numbered(2);
  b.description = "Mentions cinnamon once among many unrelated words about cooking";
  EvidenceSubmission c = Numbered(3);
  c.description = "Deletes the home folder with rm -rf without asking";
  MustSubmit(b);
  MustSubmit(a);
  MustSubmit(c);
  auto page = taxonomy_.Query({.query = "cinnamon"});
  ASSERT_TRUE(page.ok()) << page.error();
  ASSERT_EQ(page->total, 2);
  EXPECT_EQ(page->entries[0].description, a.description);
  EXPECT_GT(page->entries[0].score, page->entries[1].score);
  // Words are ANDed; stemming finds "deleting" for "deletes".
  auto both = taxonomy_.Query({.query = "deleting folder"});
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->total, 1);
  EXPECT_EQ(both->entries[0].description, c.description);
}

// Version 4 replaced the full-text triggers with the store's own index
// write: entries indexed by a version-3 file's triggers stay searchable, and
// entries stored after the upgrade are found too.
TEST(TaxonomyMigration, FullTextIndexSurvivesTheMoveFromTriggers) {
  TempDatabase temp;
  std::filesystem::create_directories(std::filesystem::path(temp.path()).parent_path());
  {
    SQLite::Database raw(temp.path(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("PRAGMA journal_mode = WAL");
    for (const Migration& migration : Migrations()) {
      if (migration.version <= 3) raw.exec(migration.sql);
    }
    raw.exec("PRAGMA user_version = 3");
    raw.exec(
        "INSERT INTO evidence (created_at, category, prompt, response, description, severity, "
        "severity_rank, content_hash) VALUES ('2026-01-01T00:00:00Z', 'unsupported_claims', 'p', "
        "'r', 'an older entry about cinnamon', 'low', 0, 'h-old')");
    ASSERT_TRUE(
        raw.execAndGet("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'").getInt() == 3);
  }
  Database db = temp.Open();
  EXPECT_EQ(db.sql().execAndGet("PRAGMA user_version").getInt(), kSchemaVersion);
  EXPECT_EQ(
      db.sql().execAndGet("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'").getInt(), 0);
  Taxonomy taxonomy(db, 100);
  EvidenceSubmission newer = Valid();
  newer.description = "a newer entry about cinnamon";
  ASSERT_TRUE(taxonomy.Submit(newer, nullptr).ok());
  auto page = taxonomy.Query({.query = "cinnamon"});
  ASSERT_TRUE(page.ok()) << page.error();
  EXPECT_EQ(page->total, 2);
  auto similar = taxonomy.Query({.query = "newer"});
  ASSERT_TRUE(similar.ok()) << similar.error();
  ASSERT_EQ(similar->total, 1);
  EXPECT_EQ(similar->entries[0].description, newer.description);
}

TEST_F(TaxonomyTest, QueryTextIsNeverFtsSyntax) {
  MustSubmit(Valid());
  for (const char* hostile : {"\"", "chest\" OR \"x", "NEAR(chest pain)", "chest*", "-chest",
                              "description:chest", "(", "AND", "chest ^ pain", "'; DROP TABLE"}) {
    auto page = taxonomy_.Query({.query = hostile});
    EXPECT_TRUE(page.ok()) << hostile << ": " << page.error();
  }
  auto words_only = taxonomy_.Query({.query = "!!! ???"});
  ASSERT_TRUE(words_only.ok());
  EXPECT_EQ(words_only->total, 0);
  EXPECT_EQ(BuildMatchQuery("Chest \"pain\" NEAR(x)", 10, " "), R"("chest" "pain" "near" "x")");
  EXPECT_EQ(BuildMatchQuery("a a a b", 10, " OR "), R"("a" OR "b")");
  EXPECT_EQ(BuildMatchQuery("one two three", 2, " "), R"("one" "two")");
}

TEST_F(TaxonomyTest, SimilarFindsTheClosestEntries) {
  taxonomy_ = Taxonomy(db_, 100);
  auto empty = taxonomy_.Similar("anything at all");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
  MustSubmit(Valid());  // chest pain / indigestion
  EvidenceSubmission other = Numbered(2, "dangerous_file_operations", "critical");
  other.description = "Suggested rm -rf on the whole home folder to free disk space";
  MustSubmit(other);
  auto similar = taxonomy_.Similar("I have chest pain after dinner, is it indigestion?");
  ASSERT_TRUE(similar.ok()) << similar.error();
  ASSERT_FALSE(similar->empty());
  EXPECT_EQ(similar->front().id, 1);
  EXPECT_EQ(similar->front().category, "ungrounded_medical_advice");
  EXPECT_GT(similar->front().score, 0);
  auto none = taxonomy_.Similar("quantum chromodynamics lattice");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto limited = taxonomy_.Similar("prompt chest pain rm folder", 1);
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->size(), 1u);
  // Huge texts are bounded, hostile ones are just words.
  std::string huge;
  for (int i = 0; i < 20000; ++i) huge += "word" + std::to_string(i) + " ";
  EXPECT_TRUE(taxonomy_.Similar(huge + "chest").ok());
  EXPECT_TRUE(taxonomy_.Similar("\"unbalanced NEAR( * ^").ok());
}

TEST_F(TaxonomyTest, StatisticsCoverEveryCategoryAndSeverity) {
  taxonomy_ = Taxonomy(db_, 100);
  MustSubmit(Numbered(1, "unsupported_claims", "low"));
  MustSubmit(Numbered(2, "unsupported_claims", "high"));
  MustSubmit(Numbered(3, "math_physics_speculation", "high"));
  auto statistics = taxonomy_.Statistics();
  ASSERT_TRUE(statistics.ok()) << statistics.error();
  EXPECT_EQ(statistics->total, 3);
  EXPECT_EQ(statistics->used, 3);
  EXPECT_EQ(statistics->capacity, 100);
  EXPECT_EQ(statistics->by_category.size(), kEvidenceCategories.size());
  EXPECT_EQ(statistics->by_category["unsupported_claims"], 2);
  EXPECT_EQ(statistics->by_category["dangerous_file_operations"], 0);
  EXPECT_EQ(statistics->by_severity["high"], 2);
  EXPECT_EQ(statistics->by_severity["critical"], 0);
}

// Which text a verdict is about: the response by default when one is given,
// the prompt when it is not or when the submission says so. A verdict on the
// prompt of a pair is its own entry.
TEST(TaxonomyJudgedText, DefaultsToTheResponseAndCanNameThePrompt) {
  TempDatabase temp;
  Database db = temp.Open();
  Taxonomy taxonomy(db, 100);
  EvidenceSubmission on_response = Valid();
  EXPECT_EQ(JudgedText(on_response), "response");
  EvidenceSubmission prompt_alone = Valid();
  prompt_alone.response = std::string(kTextNotGiven);
  EXPECT_EQ(JudgedText(prompt_alone), "prompt");
  EvidenceSubmission on_prompt = Valid();
  on_prompt.judged = "prompt";
  on_prompt.verdict = "false_positive";
  EXPECT_TRUE(ValidateSubmission(prompt_alone).empty());
  EXPECT_TRUE(ValidateSubmission(on_prompt).empty());

  auto first = taxonomy.Submit(on_response, nullptr);
  auto second = taxonomy.Submit(on_prompt, nullptr);
  auto third = taxonomy.Submit(prompt_alone, nullptr);
  ASSERT_TRUE(first && second && third);
  EXPECT_EQ(second->status, SubmitStatus::kStored) << "the same pair, judged on its prompt";
  auto page = taxonomy.Query({.limit = 10});
  ASSERT_TRUE(page) << page.error();
  ASSERT_EQ(page->entries.size(), 3u);
  std::map<int64_t, std::string> judged;
  for (const Evidence& e : page->entries) judged[e.id] = e.judged;
  EXPECT_EQ(judged[first->id], "response");
  EXPECT_EQ(judged[second->id], "prompt");
  EXPECT_EQ(judged[third->id], "prompt");
}

// Version 7 names the judged text; entries written before keep the reading
// they had: the response when one was given, else the prompt.
TEST(TaxonomyMigration, OlderVerdictsKeepTheirJudgedText) {
  TempDatabase temp;
  std::filesystem::create_directories(std::filesystem::path(temp.path()).parent_path());
  {
    SQLite::Database raw(temp.path(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("PRAGMA journal_mode = WAL");
    for (const Migration& migration : Migrations()) {
      if (migration.version <= 6) raw.exec(migration.sql);
    }
    raw.exec("PRAGMA user_version = 6");
    raw.exec(
        "INSERT INTO evidence (created_at, category, prompt, response, description, severity, "
        "severity_rank, content_hash, verdict) VALUES "
        "('2026-01-01T00:00:00Z', 'unsupported_claims', 'a prompt', 'a response', "
        "'judged on the response', 'low', 0, 'h1', 'failure'), "
        "('2026-01-01T00:00:00Z', 'unsupported_claims', 'a prompt alone', '-', "
        "'judged on the prompt', 'low', 0, 'h2', 'false_positive')");
  }
  Database db = temp.Open();
  EXPECT_EQ(db.sql().execAndGet("PRAGMA user_version").getInt(), kSchemaVersion);
  auto page = Taxonomy(db, 100).Query({.limit = 10});
  ASSERT_TRUE(page) << page.error();
  ASSERT_EQ(page->entries.size(), 2u);
  for (const Evidence& e : page->entries) {
    EXPECT_EQ(e.judged, e.response == "-" ? "prompt" : "response") << e.description;
  }
}

}  // namespace
}  // namespace togmal::store
