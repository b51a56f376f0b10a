// Claude Code's after-the-call events: which are read, and which outcome each
// records for a call togmal handed to the person.

#include "after_tool_use.h"

#include <gtest/gtest.h>

#include <string>

#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::hook {
namespace {

using nlohmann::json;

std::string Event(std::string_view name, json extra) {
  json event = {{"session_id", "s1"}, {"cwd", "/p"}, {"hook_event_name", name}};
  event.update(extra);
  return event.dump();
}

json Call(std::string_view id, std::string_view command = "npm install x") {
  return {{"tool_name", "Bash"}, {"tool_input", {{"command", command}}}, {"tool_use_id", id}};
}

TEST(AfterToolUse, EachEventMeansItsOutcome) {
  auto ran = ParseAfterToolUse(Event("PostToolUse", Call("t1")));
  ASSERT_TRUE(ran);
  ASSERT_EQ(ran->calls.size(), 1u);
  EXPECT_EQ(ran->calls[0].outcome, "ran");
  EXPECT_EQ(ran->calls[0].tool_use_id, "t1");
  EXPECT_FALSE(ran->calls[0].only_if_none);

  json failure = Call("t2");
  failure["error"] = "exit 1";
  auto failed = ParseAfterToolUse(Event("PostToolUseFailure", failure));
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->calls.at(0).outcome, "failed");
  EXPECT_EQ(failed->calls.at(0).reason, "exit 1");

  json denial = Call("t3");
  denial["reason"] = "auto mode said no";
  auto denied = ParseAfterToolUse(Event("PermissionDenied", denial));
  ASSERT_TRUE(denied);
  EXPECT_EQ(denied->calls.at(0).outcome, "refused");
  EXPECT_EQ(denied->calls.at(0).reason, "auto mode said no");

  auto batch = ParseAfterToolUse(
      Event("PostToolBatch", {{"tool_calls", json::array({Call("t4"), Call("t5"), 7})}}));
  ASSERT_TRUE(batch);
  ASSERT_EQ(batch->calls.size(), 2u);  // the one that is not an object is skipped
  EXPECT_EQ(batch->calls[1].tool_use_id, "t5");
  EXPECT_TRUE(batch->calls[1].only_if_none);
  EXPECT_EQ(batch->session_id, "s1");
}

TEST(AfterToolUse, PreToolUseInputIsNotOne) {
  EXPECT_FALSE(ParseAfterToolUse(Event("PreToolUse", Call("t1"))));
  // Even when the command names one of the events.
  EXPECT_FALSE(ParseAfterToolUse(Event("PreToolUse", Call("t1", "grep PostToolUse log"))));
  EXPECT_FALSE(ParseAfterToolUse("{\"PostToolUse\": "));  // not JSON
  EXPECT_FALSE(ParseAfterToolUse(Event("Stop", Call("t1"))));
}

class AfterToolUseRecording : public ::testing::Test {
 protected:
  void Decided(std::string_view id, std::string_view decision) {
    store::AuditEntry entry;
    entry.kind = store::AuditKind::kDecision;
    entry.session = "s1";
    entry.tool_name = "Bash";
    entry.decision = decision;
    entry.detail = {{"tool_use_id", id}};
    ASSERT_TRUE(log_.Append(std::move(entry)).ok());
  }
  std::vector<std::pair<std::string, std::string>> Outcomes() {
    std::vector<std::pair<std::string, std::string>> outcomes;
    auto all = log_.Tail(100);
    for (const store::AuditEntry& entry : all.value()) {
      if (entry.kind == store::AuditKind::kOutcome) {
        outcomes.emplace_back(entry.detail.value("tool_use_id", ""), entry.decision);
      }
    }
    return outcomes;
  }
  int Record(const std::string& event) {
    auto parsed = ParseAfterToolUse(event);
    EXPECT_TRUE(parsed);
    auto recorded = check::RecordOutcomes(*parsed, log_);
    EXPECT_TRUE(recorded.ok()) << recorded.error();
    return recorded.ok() ? *recorded : -1;
  }

  store::Database db_ = store::Database::OpenInMemory().value();
  store::AuditLog log_{db_};
};

TEST_F(AfterToolUseRecording, APassedCallThatRanAndAnAskedOneThatWasRefused) {
  Decided("ran", "pass");
  Decided("refused", "ask");
  Decided("allowed", "allow");
  Decided("denied", "deny");
  EXPECT_EQ(Record(Event("PostToolUse", Call("ran"))), 1);
  EXPECT_EQ(Record(Event("PostToolUse", Call("allowed"))), 0);  // nothing new to learn
  // The batch: the call that ran has its outcome; the others resolved
  // without running. Only the asked one is recorded.
  EXPECT_EQ(Record(Event("PostToolBatch",
                         {{"tool_calls", json::array({Call("ran"), Call("refused"), Call("allowed"),
                                                      Call("denied")})}})),
            1);
  EXPECT_EQ(Outcomes(), (std::vector<std::pair<std::string, std::string>>{{"ran", "ran"},
                                                                          {"refused", "refused"}}));
  // A batch seen again records nothing twice; a call togmal never saw, nothing.
  EXPECT_EQ(Record(Event("PostToolBatch", {{"tool_calls", json::array({Call("refused")})}})), 0);
  EXPECT_EQ(Record(Event("PostToolUse", Call("unknown"))), 0);
  EXPECT_TRUE(log_.Verify().value().ok);
}

TEST_F(AfterToolUseRecording, OnlyTheRecentTrailIsLookedThrough) {
  Decided("old", "pass");
  for (int i = 0; i < 5; ++i) Decided("other" + std::to_string(i), "allow");
  auto far = log_.RecentToolUse("old", 3);
  ASSERT_TRUE(far.ok());
  EXPECT_EQ(far->decision, "");
  auto near = log_.RecentToolUse("old", 10);
  ASSERT_TRUE(near.ok());
  EXPECT_EQ(near->decision, "pass");
  EXPECT_FALSE(near->has_outcome);
}

}  // namespace
}  // namespace togmal::hook
