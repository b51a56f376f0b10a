#include "togmal/store/decision_summary.h"

#include <gtest/gtest.h>

#include "report_rows.h"
#include "store_test_support.h"
#include "togmal/store/database.h"

namespace togmal::store {
namespace {

using report::testing::DecisionRow;
using report::testing::OutcomeRow;

class DecisionSummaryTest : public ::testing::Test {
 protected:
  void Add(const AuditEntry& entry) {
    auto id = log_.Append(entry);
    ASSERT_TRUE(id.ok()) << id.error();
  }
  DecisionSummary Summarize(const AuditFilter& filter = {}) {
    auto summary = SummarizeDecisions(log_, filter);
    EXPECT_TRUE(summary.ok()) << summary.error();
    return summary.ok() ? *summary : DecisionSummary{};
  }
  testing::TempDatabase temp_;
  Database db_ = temp_.Open();
  AuditLog log_{db_};
};

TEST_F(DecisionSummaryTest, CountsByDayProjectToolAndDecision) {
  Add(DecisionRow("2026-11-20T10:00:00.000000Z", "allow", "ls", "/p/a", "t1"));
  Add(DecisionRow("2026-11-20T11:00:00.000000Z", "deny", "rm -rf /", "/p/a", "t2"));
  Add(DecisionRow("2026-11-21T09:00:00.000000Z", "ask", "git push", "/p/b", "t3"));
  Add(DecisionRow("2026-11-21T09:30:00.000000Z", "pass", "{}", "/p/b", "t4", "Write"));
  // Not decisions: neither counted nor taken for one.
  Add(OutcomeRow("2026-11-21T09:01:00.000000Z", "ran", "t3"));

  const DecisionSummary s = Summarize();
  EXPECT_EQ(s.total, 4);
  EXPECT_EQ(s.by_decision.at("allow"), 1);
  EXPECT_EQ(s.by_decision.at("deny"), 1);
  EXPECT_EQ(s.by_level.at("L2"), 2);
  ASSERT_EQ(s.by_day.size(), 2u);
  EXPECT_EQ(s.by_day.at("2026-11-20").at("deny"), 1);
  EXPECT_EQ(s.by_day.at("2026-11-21").at("ask"), 1);
  EXPECT_EQ(s.by_project.at("/p/a").at("allow"), 1);
  EXPECT_EQ(s.by_project.at("/p/b").at("pass"), 1);
  EXPECT_EQ(s.by_tool.at("Bash").size(), 3u);
  EXPECT_EQ(s.by_tool.at("Write").at("pass"), 1);
  // Allowed calls are no action anyone must look at.
  EXPECT_EQ(s.actions.size(), 3u);
}

TEST_F(DecisionSummaryTest, JoinsOutcomesToAskedAndPassedCallsByToolUseId) {
  for (int i = 0; i < 4; ++i) {
    const std::string id = "a" + std::to_string(i);
    Add(DecisionRow("2026-11-21T09:0" + std::to_string(i) + ":00.000000Z", "ask", "npm install",
                    "/p", id));
    // ran and failed both mean the person let it go ahead; one has no outcome.
    if (i < 3)
      Add(OutcomeRow("2026-11-21T09:0" + std::to_string(i) + ":30.000000Z",
                     i == 2 ? "failed" : "ran", id));
  }
  Add(DecisionRow("2026-11-21T10:00:00.000000Z", "pass", "git push", "/p", "b1"));
  Add(OutcomeRow("2026-11-21T10:00:01.000000Z", "refused", "b1"));
  // An outcome for a call that is not in the period counts nowhere.
  Add(OutcomeRow("2026-11-21T10:00:02.000000Z", "ran", "elsewhere"));

  const DecisionSummary s = Summarize();
  EXPECT_EQ(s.approved, 3);
  EXPECT_EQ(s.refused, 1);
  EXPECT_EQ(s.unknown, 1);
  ASSERT_EQ(s.actions.size(), 2u);
  const ActionTally& npm = s.actions[0];  // most decisions first
  EXPECT_EQ(npm.input["command"], "npm install");
  EXPECT_EQ(npm.count, 4);
  EXPECT_EQ(npm.approved, 3);
  EXPECT_EQ(npm.unknown, 1);
  EXPECT_EQ(npm.refused, 0);
  EXPECT_FALSE(npm.allow_code.empty());
  EXPECT_EQ(s.actions[1].refused, 1);
}

TEST_F(DecisionSummaryTest, TheFilterSelectsTimeAndProject) {
  Add(DecisionRow("2026-11-01T10:00:00.000000Z", "deny", "rm -rf /", "/p/a", "t1"));
  Add(DecisionRow("2026-11-21T10:00:00.000000Z", "deny", "rm -rf /", "/p/a/sub", "t2"));
  Add(DecisionRow("2026-11-21T11:00:00.000000Z", "ask", "git push", "/p/ab", "t3"));
  AuditFilter filter;
  filter.since = "2026-11-20";
  filter.project = "/p/a";
  const DecisionSummary s = Summarize(filter);
  EXPECT_EQ(s.total, 1);  // not the older one, not /p/ab
  EXPECT_EQ(s.by_project.count("/p/a/sub"), 1u);
}

TEST_F(DecisionSummaryTest, OutcomeNamesAnswer) {
  EXPECT_EQ(AnswerOfOutcome("ran"), Answer::kApproved);
  EXPECT_EQ(AnswerOfOutcome("failed"), Answer::kApproved);
  EXPECT_EQ(AnswerOfOutcome("refused"), Answer::kRefused);
  EXPECT_EQ(AnswerOfOutcome("allow"), Answer::kUnknown);
}

}  // namespace
}  // namespace togmal::store
