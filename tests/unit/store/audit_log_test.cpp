#include "togmal/store/audit_log.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "store_test_support.h"
#include "togmal/store/database.h"

namespace togmal::store {
namespace {

using nlohmann::json;
using testing::TempDatabase;

AuditEntry Decision(int n) {
  AuditEntry entry;
  entry.kind = AuditKind::kDecision;
  entry.session = "session-" + std::to_string(n);
  entry.tool_name = "Bash";
  entry.input = {{"command", "echo " + std::to_string(n)}};
  entry.decision = n % 2 ? "allow" : "deny";
  entry.level = n % 2 ? "L0" : "L3";
  entry.rule = "rule-" + std::to_string(n);
  entry.source = "classifier";
  entry.reasons = json::array({{{"level", entry.level}, {"why", "because"}}});
  entry.latency_us = 100 + n;
  return entry;
}

class AuditLogTest : public ::testing::Test {
 protected:
  void AppendDecisions(int count) {
    for (int i = 1; i <= count; ++i) {
      auto id = log_.Append(Decision(i));
      ASSERT_TRUE(id.ok()) << id.error();
    }
  }
  VerifyReport MustVerify() {
    auto report = log_.Verify();
    EXPECT_TRUE(report.ok()) << report.error();
    return report.ok() ? *report : VerifyReport{};
  }
  TempDatabase temp_;
  Database db_ = temp_.Open();
  AuditLog log_{db_};
};

TEST_F(AuditLogTest, FirstEntryChainsToGenesis) {
  auto id = log_.Append(Decision(1));
  ASSERT_TRUE(id.ok()) << id.error();
  EXPECT_EQ(*id, 1);
  auto tail = log_.Tail(1);
  ASSERT_TRUE(tail.ok());
  ASSERT_EQ(tail->size(), 1u);
  const AuditEntry& entry = tail->front();
  EXPECT_EQ(entry.prev_hash, kGenesisHash);
  EXPECT_EQ(entry.hash.size(), 64u);
  EXPECT_EQ(entry.hash, ComputeEntryHash(entry, kGenesisHash));
  EXPECT_FALSE(entry.time.empty());
}

TEST_F(AuditLogTest, EachEntryChainsToThePreviousHash) {
  AppendDecisions(5);
  auto tail = log_.Tail(5);
  ASSERT_TRUE(tail.ok());
  ASSERT_EQ(tail->size(), 5u);
  for (std::size_t i = 1; i < tail->size(); ++i) {
    EXPECT_EQ((*tail)[i].prev_hash, (*tail)[i - 1].hash);
    EXPECT_EQ((*tail)[i].id, (*tail)[i - 1].id + 1);
  }
  VerifyReport report = MustVerify();
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.checked, 5);
  EXPECT_EQ(report.tip_hash, tail->back().hash);
}

TEST_F(AuditLogTest, HashIsSha256OfCanonicalJsonPlusPrevHash) {
  AuditEntry entry = Decision(1);
  entry.id = 1;
  entry.time = "2026-01-01T00:00:00.000000Z";
  const std::string canonical = CanonicalJson(entry);
  // Sorted keys, no whitespace.
  EXPECT_EQ(canonical.rfind("{\"decision\":\"allow\",\"detail\":null,\"id\":1,", 0), 0u)
      << canonical;
  EXPECT_EQ(canonical.find(' '), canonical.find("echo 1") + 4);  // only inside the command
  // Changing any field changes the hash; so does prev_hash.
  const std::string hash = ComputeEntryHash(entry, kGenesisHash);
  AuditEntry changed = entry;
  changed.latency_us += 1;
  EXPECT_NE(ComputeEntryHash(changed, kGenesisHash), hash);
  EXPECT_NE(ComputeEntryHash(entry, std::string(64, '1')), hash);
}

TEST(AuditHash, KnownAnswer) {
  // Pinned with Python's hashlib: the canonical form and the hash are a
  // format others re-verify exports with, so they must never drift.
  AuditEntry entry;
  entry.id = 1;
  entry.time = "t";
  EXPECT_EQ(CanonicalJson(entry),
            R"({"decision":"","detail":null,"id":1,"input":null,"kind":"decision",)"
            R"("latency_us":0,"level":"","reasons":null,"rule":"","session":"","source":"",)"
            R"("time":"t","tool_name":""})");
  EXPECT_EQ(ComputeEntryHash(entry, kGenesisHash),
            "b88970d110b81b6dad261a55ca3efb9449da3b1a895c6910672d144a3ec858eb");
}

TEST(AuditHash, CanonicalJsonIsTheDumpOfTheWholeEntry) {
  // The canonical text is composed from the fields' own serialisations; it
  // must be byte for byte what dumping the entry as one object gives, for
  // every kind of value a call can carry.
  AuditEntry entry;
  entry.id = 9007199254740993;
  entry.time = "2026-11-28T19:00:00.000001Z";
  entry.kind = AuditKind::kOutcome;
  entry.session = std::string("s\xc3 \"quoted\" \u00e9\n\t");
  entry.tool_name = "mcp__x__y";
  entry.input = {{"command", std::string("echo \xff\xfe bad \x01")},
                 {"n", -0.0},
                 {"f", 0.1},
                 {"big", 18446744073709551615u},
                 {"nested", {{"z", json::array({1, "2", nullptr, true})}, {"a", json::object()}}}};
  entry.decision = "ask";
  entry.level = "L2";
  entry.rule = "r";
  entry.source = "classifier";
  entry.reasons = json::array({{{"why", "\u2028 line"}}});
  entry.latency_us = -5;
  entry.detail = {{"cwd", "/tmp/\xc3\x28"}};
  const json object = {{"id", entry.id},
                       {"time", entry.time},
                       {"kind", "outcome"},
                       {"session", entry.session},
                       {"tool_name", entry.tool_name},
                       {"input", entry.input},
                       {"decision", entry.decision},
                       {"level", entry.level},
                       {"rule", entry.rule},
                       {"source", entry.source},
                       {"reasons", entry.reasons},
                       {"latency_us", entry.latency_us},
                       {"detail", entry.detail}};
  EXPECT_EQ(CanonicalJson(entry), object.dump(-1, ' ', false, json::error_handler_t::replace));
  // Reading the stored text back and writing it again gives the same bytes,
  // which is why the stored fields need no normalising before they are hashed.
  const std::string stored = entry.input.dump(-1, ' ', false, json::error_handler_t::replace);
  EXPECT_EQ(json::parse(stored).dump(-1, ' ', false, json::error_handler_t::replace), stored);
}

TEST_F(AuditLogTest, AwkwardValuesVerifyAfterStorage) {
  AuditEntry entry = Decision(1);
  entry.input = {{"command", "ls"}, {"n", -0.0}, {"f", 1e300}, {"g", 0.30000000000000004}};
  entry.detail = {{"big", 18446744073709551615u}, {"neg", -9223372036854775807 - 1}};
  ASSERT_TRUE(log_.Append(entry).ok());
  VerifyReport report = MustVerify();
  EXPECT_TRUE(report.ok) << report.problem;
}

TEST_F(AuditLogTest, RedactsInputAndReasonsUnlessRawIsOptedIn) {
  AuditEntry entry = Decision(1);
  entry.input = {{"command", "curl -H 'Authorization: Bearer abcdefghijk' https://x"}};
  entry.reasons = json::array({{{"why", "uses sk-ant-abcdefghijklmnopqrstu"}}});
  ASSERT_TRUE(log_.Append(entry).ok());
  AuditLog raw_log(db_, {.store_raw_input = true});
  ASSERT_TRUE(raw_log.Append(entry).ok());
  auto tail = log_.Tail(2);
  ASSERT_TRUE(tail.ok());
  EXPECT_EQ((*tail)[0].input["command"], "curl -H 'Authorization: Bearer [REDACTED]' https://x");
  EXPECT_EQ((*tail)[0].reasons[0]["why"], "uses [REDACTED]");
  EXPECT_EQ((*tail)[1].input, entry.input);
  // Nothing secret reached the file.
  auto raw = temp_.Raw();
  EXPECT_EQ(raw.execAndGet("SELECT count(*) FROM audit WHERE id = 1 AND input LIKE '%abcdefghijk%'")
                .getInt(),
            0);
  EXPECT_TRUE(MustVerify().ok);
}

TEST_F(AuditLogTest, InvalidUtf8InputStillVerifies) {
  AuditEntry entry = Decision(1);
  entry.input = {{"command", std::string("echo \xff\xfe bad")}};
  entry.session = std::string("s\xc3");
  ASSERT_TRUE(log_.Append(entry).ok());
  VerifyReport report = MustVerify();
  EXPECT_TRUE(report.ok) << report.problem;
}

struct TamperCase {
  const char* name;
  const char* sql;  // applied to entry 3 of 5
  const char* problem_fragment;
  int64_t broken_id;
};

class AuditTamper : public AuditLogTest, public ::testing::WithParamInterface<TamperCase> {};

TEST_P(AuditTamper, VerifyNamesTheBrokenEntry) {
  AppendDecisions(5);
  ASSERT_TRUE(MustVerify().ok);
  temp_.Raw().exec(GetParam().sql);
  VerifyReport report = MustVerify();
  EXPECT_FALSE(report.ok);
  ASSERT_TRUE(report.broken_id.has_value());
  EXPECT_EQ(*report.broken_id, GetParam().broken_id);
  EXPECT_NE(report.problem.find(GetParam().problem_fragment), std::string::npos) << report.problem;
}

INSTANTIATE_TEST_SUITE_P(
    Edits, AuditTamper,
    ::testing::Values(
        TamperCase{"decision", "UPDATE audit SET decision = 'allow' WHERE id = 2",
                   "does not match its hash", 2},
        TamperCase{"input", "UPDATE audit SET input = '{\"command\":\"ls\"}' WHERE id = 3",
                   "does not match its hash", 3},
        TamperCase{"input_not_json", "UPDATE audit SET input = '{broken' WHERE id = 3",
                   "does not match its hash", 3},
        TamperCase{"time", "UPDATE audit SET time = '2000-01-01T00:00:00.000000Z' WHERE id = 3",
                   "does not match its hash", 3},
        TamperCase{"kind", "UPDATE audit SET kind = 'evidence' WHERE id = 3",
                   "does not match its hash", 3},
        TamperCase{"hash", "UPDATE audit SET hash = lower(hex(randomblob(32))) WHERE id = 3",
                   "does not match its hash", 3},
        TamperCase{"prev_hash",
                   "UPDATE audit SET prev_hash = lower(hex(randomblob(32))) WHERE id = 3",
                   "does not chain", 3},
        TamperCase{"deleted_middle", "DELETE FROM audit WHERE id = 3", "missing", 4},
        TamperCase{"deleted_first", "DELETE FROM audit WHERE id = 1", "missing", 2},
        TamperCase{"fake_anchor",
                   "DELETE FROM audit WHERE id <= 2; INSERT INTO audit_anchor VALUES "
                   "(1, 2, (SELECT prev_hash FROM audit WHERE id = 3))",
                   "not recorded by the newest checkpoint", 3}),
    [](const auto& test_info) { return std::string(test_info.param.name); });

TEST_F(AuditLogTest, TamperWithTheSqlite3CommandLineIsFound) {
  AppendDecisions(4);
  db_ = Database::OpenInMemory().value();  // let go of the file
  const std::string command =
      "sqlite3 '" + temp_.path() + "' \"UPDATE audit SET level = 'L0' WHERE id = 2\" 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << "sqlite3 CLI missing?";
  auto reopened = Database::Open(temp_.path());
  ASSERT_TRUE(reopened.ok()) << reopened.error();
  AuditLog log(*reopened);
  auto report = log.Verify();
  ASSERT_TRUE(report.ok()) << report.error();
  EXPECT_FALSE(report->ok);
  EXPECT_EQ(report->broken_id, 2);
}

TEST_F(AuditLogTest, EmptyTrailVerifies) {
  VerifyReport report = MustVerify();
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(report.checked, 0);
  EXPECT_EQ(report.tip_hash, kGenesisHash);
}

TEST_F(AuditLogTest, TailAfterAndForEach) {
  AppendDecisions(7);
  auto tail = log_.Tail(3);
  ASSERT_TRUE(tail.ok());
  ASSERT_EQ(tail->size(), 3u);
  EXPECT_EQ(tail->front().id, 5);
  EXPECT_EQ(tail->back().id, 7);
  auto after = log_.After(2, 2);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 2u);
  EXPECT_EQ(after->front().id, 3);
  int64_t seen = 0, last = 0;
  auto count = log_.ForEach([&](const AuditEntry& entry) {
    ++seen;
    EXPECT_EQ(entry.id, last + 1);
    last = entry.id;
  });
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 7);
  EXPECT_EQ(seen, 7);
}

TEST_F(AuditLogTest, ToJsonCarriesTheChainAndReverifies) {
  AppendDecisions(2);
  auto tail = log_.Tail(1);
  ASSERT_TRUE(tail.ok());
  json exported = ToJson(tail->front());
  EXPECT_EQ(exported["hash"], tail->front().hash);
  EXPECT_EQ(exported["prev_hash"], tail->front().prev_hash);
  EXPECT_EQ(exported["kind"], "decision");
  // An export consumer re-verifies: drop the chain fields, dump, append prev_hash.
  const std::string prev = exported["prev_hash"];
  const std::string hash = exported["hash"];
  exported.erase("prev_hash");
  exported.erase("hash");
  AuditEntry same = tail->front();
  EXPECT_EQ(exported.dump(), CanonicalJson(same));
  EXPECT_EQ(ComputeEntryHash(same, prev), hash);
}

TEST_F(AuditLogTest, DecisionsSinceCountsOnlyWhatCameAfter) {
  AuditEntry old;
  old.time = "2020-01-01T00:00:00.000000Z";
  old.decision = "deny";
  ASSERT_TRUE(log_.Append(old).ok());
  AppendDecisions(5);  // 3 allow, 2 deny, now
  auto counts = log_.DecisionsSince("2026-01-01T00:00:00.000000Z");
  ASSERT_TRUE(counts.ok()) << counts.error();
  EXPECT_EQ((*counts)["allow"], 3);
  EXPECT_EQ((*counts)["deny"], 2);
  EXPECT_EQ(counts->count("ask"), 0u);
  auto all = log_.DecisionsSince("");
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)["deny"], 3);
}

TEST_F(AuditLogTest, CountsByKindAndDecision) {
  AppendDecisions(5);  // 3 allow, 2 deny
  AuditEntry change;
  change.kind = AuditKind::kConfigChange;
  change.detail = {{"file", "rules.yaml"}};
  ASSERT_TRUE(log_.Append(change).ok());
  auto counts = log_.Counts();
  ASSERT_TRUE(counts.ok()) << counts.error();
  EXPECT_EQ(counts->total, 6);
  EXPECT_EQ(counts->by_kind["decision"], 5);
  EXPECT_EQ(counts->by_kind["config_change"], 1);
  EXPECT_EQ(counts->by_decision["allow"], 3);
  EXPECT_EQ(counts->by_decision["deny"], 2);
  EXPECT_FALSE(counts->last_time.empty());
}

TEST_F(AuditLogTest, PruningKeepsTheRestVerifiable) {
  for (int i = 1; i <= 6; ++i) {
    AuditEntry entry = Decision(i);
    entry.time = i <= 4 ? "2020-01-0" + std::to_string(i) + "T00:00:00.000000Z" : "";
    ASSERT_TRUE(log_.Append(entry).ok());
  }
  auto pruned = log_.PruneBefore(std::chrono::system_clock::now() - std::chrono::hours(24));
  ASSERT_TRUE(pruned.ok()) << pruned.error();
  EXPECT_EQ(pruned->pruned, 4);
  EXPECT_EQ(pruned->through_id, 4);
  EXPECT_EQ(pruned->checkpoint_id, 7);
  VerifyReport report = MustVerify();
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.anchor_id, 4);
  EXPECT_EQ(report.checked, 3);  // 5, 6 and the checkpoint
  // Appending after pruning continues the same chain, and a second pruning
  // moves the anchor.
  ASSERT_TRUE(log_.Append(Decision(8)).ok());
  auto again = log_.PruneBefore(std::chrono::system_clock::now() + std::chrono::hours(1));
  ASSERT_TRUE(again.ok()) << again.error();
  EXPECT_EQ(again->through_id, 8);
  report = MustVerify();
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.anchor_id, 8);
}

TEST_F(AuditLogTest, NothingOldMeansNoPruning) {
  AppendDecisions(3);
  auto pruned = log_.ApplyRetention(30);
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(pruned->pruned, 0);
  EXPECT_FALSE(pruned->checkpoint_id.has_value());
  auto counts = log_.Counts();
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ(counts->total, 3);
}

TEST_F(AuditLogTest, DeletedAnchorIsFound) {
  AuditEntry old = Decision(1);
  old.time = "2020-01-01T00:00:00.000000Z";
  ASSERT_TRUE(log_.Append(old).ok());
  ASSERT_TRUE(log_.Append(Decision(2)).ok());
  ASSERT_TRUE(log_.ApplyRetention(1).ok());
  ASSERT_TRUE(MustVerify().ok);
  temp_.Raw().exec("DELETE FROM audit_anchor");
  VerifyReport report = MustVerify();
  EXPECT_FALSE(report.ok);
  // Without the anchor the remaining entries no longer start the chain.
  EXPECT_EQ(report.broken_id, 2);
  EXPECT_NE(report.problem.find("missing"), std::string::npos) << report.problem;
}

TEST(AuditKindNames, RoundTrip) {
  for (AuditKind kind : {AuditKind::kDecision, AuditKind::kConfigChange, AuditKind::kEvidence,
                         AuditKind::kCheckpoint}) {
    EXPECT_EQ(ParseAuditKind(AuditKindName(kind)), kind);
  }
  EXPECT_FALSE(ParseAuditKind("other").has_value());
}

TEST(AuditTime, FormatIsSortableUtc) {
  const auto epoch = std::chrono::system_clock::time_point{} + std::chrono::microseconds(1500001);
  EXPECT_EQ(FormatAuditTime(epoch), "1970-01-01T00:00:01.500001Z");
  using std::chrono::seconds;
  const std::chrono::system_clock::time_point origin{};
  EXPECT_EQ(FormatAuditTime(origin + seconds(1709210096)), "2024-02-29T12:34:56.000000Z");
  EXPECT_EQ(FormatAuditTime(origin + seconds(1798761599) + std::chrono::microseconds(999999)),
            "2026-12-31T23:59:59.999999Z");
}

// Bounds as people write them: durations back from now, UTC dates.
TEST(AuditTime, TimeBoundsReadDurationsAndDates) {
  const auto now =
      std::chrono::sys_days{std::chrono::year{2026} / 11 / 27} + std::chrono::hours(12);
  EXPECT_EQ(*ParseTimeBound("2h", now), "2026-11-27T10:00:00.000000Z");
  EXPECT_EQ(*ParseTimeBound("7d", now), "2026-11-20T12:00:00.000000Z");
  EXPECT_EQ(*ParseTimeBound("1w", now), "2026-11-20T12:00:00.000000Z");
  EXPECT_EQ(*ParseTimeBound("30m", now), "2026-11-27T11:30:00.000000Z");
  EXPECT_EQ(*ParseTimeBound("2026-11-01", now), "2026-11-01");
  EXPECT_EQ(*ParseTimeBound("2026-11-01 14:05", now), "2026-11-01T14:05");
  EXPECT_EQ(*ParseTimeBound("2026-11-01T14:05:09", now), "2026-11-01T14:05:09");
  for (const char* wrong : {"", "yesterday", "7", "d", "2026-13-01", "2026-11-01T25:00", "7y",
                            "2026-11-01T14", "-3d"}) {
    EXPECT_FALSE(ParseTimeBound(wrong, now).ok()) << wrong;
  }
}

}  // namespace
}  // namespace togmal::store
