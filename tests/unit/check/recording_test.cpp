// check/recording.h and check/outcomes.h: how a one-call process reaches the
// audit database, what is stored for input that could not be parsed, and a
// call's outcome.
#include "togmal/check/recording.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "store_test_support.h"
#include "togmal/check/outcomes.h"
#include "togmal/store/allow_grants.h"
#include "togmal/store/audit_log.h"

namespace togmal::check {
namespace {

namespace fs = std::filesystem;

util::SettingsLayers Layers(std::string_view user_yaml) {
  util::SettingsLayers layers;
  auto parsed = util::ParseSettingsLayer(user_yaml, "settings.yaml");
  EXPECT_TRUE(parsed.ok()) << parsed.error();
  if (parsed) layers.layers.push_back(std::move(*parsed));
  return layers;
}

store::AuditEntry Decision(std::string tool_use_id, std::string decision) {
  store::AuditEntry entry;
  entry.kind = store::AuditKind::kDecision;
  entry.session = "s1";
  entry.tool_name = "Bash";
  entry.decision = std::move(decision);
  entry.input = {{"command", "npm install x"}};
  entry.detail = {{"tool_use_id", std::move(tool_use_id)}};
  return entry;
}

TEST(AuditTarget, SettingsThatCannotBeReadKeepTheSafeReading) {
  std::vector<std::string> broken;
  AuditTarget target;
  ReadAuditSettings(Layers("audit:\n  store_raw_input: true\n  sync: normal\n"), target, broken);
  EXPECT_TRUE(broken.empty());
  EXPECT_TRUE(target.store_raw_input);
  EXPECT_FALSE(target.sync_every_commit);

  AuditTarget safe;
  ReadAuditSettings(Layers("audit:\n  store_raw_input: maybe\n"), safe, broken);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_NE(broken[0].find("redacting inputs and syncing every entry"), std::string::npos)
      << broken[0];
  EXPECT_FALSE(safe.store_raw_input);
  EXPECT_TRUE(safe.sync_every_commit);
}

TEST(AuditTarget, TheLockWaitIsTwoFifthsOfTheBudget) {
  EXPECT_EQ(LockWaitForBudget(1000), 400);
  EXPECT_EQ(LockWaitForBudget(5000), 2000);
  EXPECT_EQ(LockWaitForBudget(1), 1);  // never zero: zero would not wait at all
}

TEST(OneCallSinks, NothingIsOpenedUntilASinkIsUsedThenOneConnectionServesBoth) {
  store::testing::TempDatabase db;
  JudgeSinks sinks = OneCallSinks({.database = db.path()});
  EXPECT_FALSE(fs::exists(db.path()));  // an allow that needs no grant opens nothing early
  auto none = sinks.grants("0123456789abcdef", false);
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_FALSE(none->has_value());
  EXPECT_TRUE(fs::exists(db.path()));
  auto appended = sinks.audit(Decision("t1", "allow"));
  ASSERT_TRUE(appended.ok()) << appended.error();
  auto second = sinks.audit(Decision("t2", "ask"));
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(*second, *appended + 1);
  store::Database reopened = db.Open();
  EXPECT_TRUE(store::AuditLog(reopened).Verify().value().ok);
}

TEST(OneCallSinks, RedactsUnlessRawInputIsAsked) {
  store::testing::TempDatabase db;
  const std::string secret = "ghp_" + std::string(36, 'a');
  store::AuditEntry entry = Decision("t1", "ask");
  entry.input = {{"command", "curl -H 'Authorization: token " + secret + "' x"}};
  ASSERT_TRUE(OneCallSinks({.database = db.path()}).audit(entry).ok());
  ASSERT_TRUE(OneCallSinks({.database = db.path(), .store_raw_input = true}).audit(entry).ok());
  store::Database reopened = db.Open();
  auto entries = store::AuditLog(reopened).Tail(10);
  ASSERT_TRUE(entries.ok()) << entries.error();
  ASSERT_EQ(entries->size(), 2u);
  int raw = 0;
  for (const store::AuditEntry& stored : *entries) {
    raw += stored.input.dump().find(secret) != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(raw, 1);
}

TEST(OneCallSinks, AnUnopenableDatabaseIsAnErrorNotACrash) {
  JudgeSinks sinks = OneCallSinks({.database = "/proc/togmal-cannot-be-here/togmal.db"});
  EXPECT_FALSE(sinks.audit(Decision("t1", "allow")).ok());
  EXPECT_FALSE(sinks.grants("0123456789abcdef", false).ok());
}

TEST(MalformedInput, KeepsTheStartAndTheDigestOfWhatWasCut) {
  const nlohmann::json small = MalformedInput("{not json");
  EXPECT_EQ(small.at("bytes"), 9);
  EXPECT_FALSE(small.contains("sha256"));
  const std::string big(kMalformedCutBytes + 10, 'x');
  const nlohmann::json cut = MalformedInput(big);
  EXPECT_EQ(cut.at("bytes"), big.size());
  EXPECT_EQ(cut.at("sha256").get<std::string>().size(), 64u);
  // The cut text as a JSON string: two quotes and the ellipsis (3 bytes) added.
  EXPECT_LE(cut.at("malformed_input").get<std::string>().size(), kMalformedCutBytes + 5);
}

TEST(RecordOutcomes, OnlyAPassedOrAskedCallGetsOneInTheTargetsDatabase) {
  store::testing::TempDatabase db;
  {
    store::Database open = db.Open();
    store::AuditLog log(open);
    ASSERT_TRUE(log.Append(Decision("passed", "pass")).ok());
    ASSERT_TRUE(log.Append(Decision("allowed", "allow")).ok());
  }
  CallOutcomes outcomes;
  outcomes.event = "PostToolUse";
  outcomes.session_id = "s1";
  for (const char* id : {"passed", "allowed"}) {
    CallOutcomes::Call call;
    call.tool_use_id = id;
    call.tool_name = "Bash";
    call.outcome = "ran";
    outcomes.calls.push_back(call);
  }
  auto recorded = RecordOutcomes(outcomes, AuditTarget{.database = db.path()});
  ASSERT_TRUE(recorded.ok()) << recorded.error();
  EXPECT_EQ(*recorded, 1);
  EXPECT_FALSE(RecordOutcomes(outcomes, AuditTarget{.database = "/proc/nope/x.db"}).ok());
}

}  // namespace
}  // namespace togmal::check
