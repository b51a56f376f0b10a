// The cursor moves only past what a destination acknowledged; a destination
// that is down gets its batch again, and nothing after it is skipped.
#include "togmal/ship/shipper.h"

#include <gtest/gtest.h>

#include <deque>

#include "togmal/ship/cursor.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"

namespace togmal::ship {
namespace {

// Answers from a script; records every batch it was sent (ids).
class ScriptedDestination final : public Destination {
 public:
  std::deque<Outcome> script;  // empty: acknowledge
  std::vector<std::vector<int64_t>> sent;

  std::string Name() const override { return "test dest"; }
  std::string Preview(std::span<const store::AuditEntry> entries) const override {
    return std::to_string(entries.size()) + " entries";
  }
  Delivery Send(std::span<const store::AuditEntry> entries) override {
    std::vector<int64_t> ids;
    for (const auto& entry : entries) ids.push_back(entry.id);
    sent.push_back(ids);
    if (script.empty()) return {};
    const Outcome outcome = script.front();
    script.pop_front();
    return {outcome, outcome == Outcome::kAcknowledged ? "" : "scripted failure"};
  }
};

class ShipperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = store::Database::OpenInMemory();
    ASSERT_TRUE(db.ok()) << db.error();
    db_ = std::make_unique<store::Database>(std::move(*db));
    Append(5);
    options_.batch = 2;
    options_.wait = [this](std::chrono::milliseconds delay) {
      waits_.push_back(delay);
      return true;
    };
  }
  void Append(int count) {
    store::AuditLog log(*db_);
    for (int i = 0; i < count; ++i) {
      store::AuditEntry entry;
      entry.tool_name = "Bash";
      entry.input = {{"command", "echo " + std::to_string(i)}};
      entry.decision = "allow";
      ASSERT_TRUE(log.Append(entry).ok());
    }
  }
  int64_t Cursor() { return ReadShipCursor(*db_, "test dest").value(); }

  std::unique_ptr<store::Database> db_;
  ShipOptions options_;
  std::vector<std::chrono::milliseconds> waits_;
};

TEST_F(ShipperTest, ShipsEverythingInOrderInBatchesAndAdvances) {
  ScriptedDestination destination;
  const ShipReport report = Ship(*db_, destination, options_);
  EXPECT_TRUE(report.ok) << report.problem;
  EXPECT_EQ(report.shipped, 5);
  EXPECT_EQ(report.batches, 3);
  EXPECT_EQ(destination.sent, (std::vector<std::vector<int64_t>>{{1, 2}, {3, 4}, {5}}));
  EXPECT_EQ(Cursor(), 5);
  EXPECT_TRUE(waits_.empty()) << "no sleep when nothing failed";
  // A second run has nothing to send; new entries go next time, only them.
  destination.sent.clear();
  EXPECT_EQ(Ship(*db_, destination, options_).shipped, 0);
  EXPECT_TRUE(destination.sent.empty());
  Append(1);
  EXPECT_EQ(Ship(*db_, destination, options_).shipped, 1);
  EXPECT_EQ(destination.sent, (std::vector<std::vector<int64_t>>{{6}}));
}

TEST_F(ShipperTest, DownDestinationLeavesTheCursorAtTheLastAcknowledgedBatch) {
  ScriptedDestination destination;
  destination.script = {Outcome::kAcknowledged, Outcome::kRetry, Outcome::kRetry};
  options_.retries = 1;
  const ShipReport report = Ship(*db_, destination, options_);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.first_unshipped, 3);
  EXPECT_EQ(report.shipped, 2);
  EXPECT_EQ(Cursor(), 2);
  EXPECT_EQ(waits_.size(), 1u);
  EXPECT_NE(report.problem.find("scripted failure"), std::string::npos);
  // Back up: the next run starts with the batch that was not acknowledged.
  destination.sent.clear();
  const ShipReport again = Ship(*db_, destination, options_);
  EXPECT_TRUE(again.ok);
  EXPECT_EQ(destination.sent, (std::vector<std::vector<int64_t>>{{3, 4}, {5}}));
  EXPECT_EQ(Cursor(), 5);
}

TEST_F(ShipperTest, RetriesBackOffDoublingWithinTheBound) {
  ScriptedDestination destination;
  destination.script = {Outcome::kRetry, Outcome::kRetry, Outcome::kRetry};
  options_.retries = 3;
  options_.first_backoff = std::chrono::milliseconds(100);
  options_.max_wait = std::chrono::milliseconds(250);
  const ShipReport report = Ship(*db_, destination, options_);
  // The third retry would pass the bound: the run stops after two waits.
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(destination.sent.size(), 3u);
  EXPECT_EQ(waits_, (std::vector<std::chrono::milliseconds>{std::chrono::milliseconds(100),
                                                            std::chrono::milliseconds(150)}));
}

TEST_F(ShipperTest, RefusedBatchIsNotRetried) {
  ScriptedDestination destination;
  destination.script = {Outcome::kRefused};
  options_.retries = 3;
  const ShipReport report = Ship(*db_, destination, options_);
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(destination.sent.size(), 1u);
  EXPECT_TRUE(waits_.empty());
  EXPECT_EQ(report.first_unshipped, 1);
  EXPECT_EQ(Cursor(), 0);
}

TEST_F(ShipperTest, DryRunSendsNothingAndMovesNoCursor) {
  ScriptedDestination destination;
  options_.dry_run = true;
  std::vector<std::string> previews;
  options_.preview = [&previews](std::string_view text) { previews.emplace_back(text); };
  const ShipReport report = Ship(*db_, destination, options_);
  EXPECT_EQ(report.shipped, 5);
  EXPECT_EQ(previews, (std::vector<std::string>{"2 entries", "2 entries", "1 entries"}));
  EXPECT_TRUE(destination.sent.empty());
  EXPECT_EQ(Cursor(), 0);
}

TEST_F(ShipperTest, CursorNeverMovesBack) {
  ASSERT_TRUE(AdvanceShipCursor(*db_, "test dest", 4).ok());
  ASSERT_TRUE(AdvanceShipCursor(*db_, "test dest", 2).ok());
  EXPECT_EQ(Cursor(), 4);
  EXPECT_EQ(ReadShipCursor(*db_, "another").value(), 0);
}

}  // namespace
}  // namespace togmal::ship
