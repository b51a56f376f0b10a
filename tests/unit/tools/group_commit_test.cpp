// togmal_check_tool_call through the MCP server with the audit's group commit
// (store::AuditAppender), as `togmal serve` wires it: a burst of calls gives
// one answer and one committed entry per call, no answer leaves before the
// transaction holding its entry has committed, and when a commit fails every
// call of that transaction is answered as unrecorded (never an allow, never
// an audit_id that is not in the trail).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "process.h"
#include "server_harness.h"
#include "togmal/rules/active_rules.h"
#include "togmal/store/audit_appender.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/database.h"
#include "togmal/store/shared_database.h"
#include "togmal/tools/check_tool_call_tools.h"
#include "wait_until.h"

namespace togmal::tools {
namespace {

using json = nlohmann::json;
using mcp::testing::ModernRequest;
using mcp::testing::ServerHarness;
using Clock = std::chrono::steady_clock;

constexpr int kCalls = 24;

using togmal::testing::WaitUntil;

class CheckToolGroupCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    auto db = store::Database::OpenInMemory();
    ASSERT_TRUE(db.ok()) << db.error();
    database_ = std::make_shared<store::SharedDatabase>(std::move(db).value());
  }

  /// Registers the tool with an appender whose transactions go through
  /// `before_commit` (which sees the harness once it runs).
  void Start(std::function<void(const std::vector<store::AuditEntry>&)> before_commit) {
    appender_ = std::make_shared<store::AuditAppender>(
        database_,
        store::AuditAppenderOptions{.audit = {}, .before_commit = std::move(before_commit)});
    CheckToolCallOptions options;
    options.rules = std::make_shared<rules::ActiveRules>(dir_.path() + "/no-user-rules.yaml");
    ASSERT_TRUE(options.rules->Reload().ok());
    options.append_audit = [appender = appender_](store::AuditEntry entry) {
      return appender->Append(std::move(entry));
    };
    RegisterCheckToolCallTools(tools_, resources_, std::move(options));
    harness_ = std::make_unique<ServerHarness>(tools_, resources_);
  }

  json Call(int i, const std::string& format = "json") const {
    return ModernRequest(i, "tools/call",
                         {{"name", "togmal_check_tool_call"},
                          {"arguments",
                           {{"tool_name", "Bash"},
                            {"tool_input", {{"command", "git status --short"}}},
                            {"cwd", dir_.path()},
                            {"tool_use_id", "call-" + std::to_string(i)},
                            {"response_format", format}}}});
  }

  /// The request id an entry records (its tool_use_id "call-N").
  static int RequestOf(const store::AuditEntry& entry) {
    return std::stoi(entry.detail.value("tool_use_id", "call--1").substr(5));
  }

  /// before_commit's check: no call whose entry is in this uncommitted
  /// transaction has been answered yet.
  void ExpectNoneAnswered(const std::vector<store::AuditEntry>& batch) {
    ServerHarness* harness = harness_ready_ ? harness_.get() : nullptr;
    if (harness == nullptr) return;
    for (const store::AuditEntry& entry : batch) {
      if (!harness->MessagesWithId(RequestOf(entry)).empty()) {
        ++answered_before_commit_;
        ADD_FAILURE() << "request " << RequestOf(entry) << " answered before its commit";
      }
    }
  }

  std::vector<store::AuditEntry> Stored() {
    return database_->With([](store::Database& db) { return store::AuditLog(db).Tail(1000); })
        .value();
  }

  togmal::testing::TempDir dir_;
  std::shared_ptr<store::SharedDatabase> database_;
  std::shared_ptr<store::AuditAppender> appender_;
  mcp::ToolRegistry tools_;
  mcp::ResourceRegistry resources_;
  std::unique_ptr<ServerHarness> harness_;
  std::atomic<bool> harness_ready_{false};
  std::atomic<int> answered_before_commit_{0};
  std::atomic<int> batches_{0};
};

TEST_F(CheckToolGroupCommit, BurstGivesOneAnswerAndOneCommittedEntryPerCall) {
  Start([this](const std::vector<store::AuditEntry>& batch) {
    // Hold the first transaction until the other workers' calls queue, so
    // that the next one groups several entries.
    if (++batches_ == 1) {
      EXPECT_TRUE(WaitUntil([&] { return appender_->queued() >= 2; }));
    }
    ExpectNoneAnswered(batch);
  });
  harness_ready_ = true;
  for (int i = 0; i < kCalls; ++i) harness_->Send(Call(i));
  std::map<int64_t, int> request_of_audit_id;
  for (int i = 0; i < kCalls; ++i) {
    json response = harness_->ResponseTo(i);
    const json structured = response["result"].value("structuredContent", json::object());
    EXPECT_EQ(structured.value("decision", ""), "allow") << response.dump();
    ASSERT_TRUE(structured.contains("audit_id") && structured["audit_id"].is_number_integer())
        << response.dump();
    request_of_audit_id[structured["audit_id"].get<int64_t>()] = i;
  }
  EXPECT_EQ(answered_before_commit_.load(), 0);
  EXPECT_EQ(request_of_audit_id.size(), static_cast<std::size_t>(kCalls)) << "ids are unique";
  const store::AuditAppenderStats stats = appender_->stats();
  EXPECT_EQ(stats.entries, kCalls);
  EXPECT_LT(stats.commits, kCalls) << "some transaction held several entries";
  EXPECT_GE(stats.largest_batch, 2);

  // Every acknowledged id is the entry of the call that was told it.
  const std::vector<store::AuditEntry> stored = Stored();
  EXPECT_EQ(stored.size(), static_cast<std::size_t>(kCalls));
  for (const store::AuditEntry& entry : stored) {
    auto it = request_of_audit_id.find(entry.id);
    ASSERT_NE(it, request_of_audit_id.end()) << "entry " << entry.id << " was never acknowledged";
    EXPECT_EQ(RequestOf(entry), it->second);
  }
  auto verify = database_->With([](store::Database& db) { return store::AuditLog(db).Verify(); });
  ASSERT_TRUE(verify.ok()) << verify.error();
  EXPECT_TRUE(verify->ok) << verify->problem;
  EXPECT_EQ(verify->checked, kCalls);
}

TEST_F(CheckToolGroupCommit, FailedCommitAnswersEveryCallOfItsTransactionAsUnrecorded) {
  std::set<int> doomed;  // written by the failing transaction's hook only
  Start([this, &doomed](const std::vector<store::AuditEntry>& batch) {
    const int number = ++batches_;
    if (number == 1) {
      EXPECT_TRUE(WaitUntil([&] { return appender_->queued() >= 2; }));
    }
    ExpectNoneAnswered(batch);
    if (number == 2) {
      for (const store::AuditEntry& entry : batch) doomed.insert(RequestOf(entry));
      throw std::runtime_error("simulated commit failure");
    }
  });
  harness_ready_ = true;
  for (int i = 0; i < kCalls; ++i) harness_->Send(Call(i, "markdown"));
  std::vector<json> responses;
  for (int i = 0; i < kCalls; ++i) responses.push_back(harness_->ResponseTo(i));
  ASSERT_GE(doomed.size(), 2u);

  const std::vector<store::AuditEntry> stored = Stored();
  std::map<int64_t, int> request_of_entry;
  for (const store::AuditEntry& entry : stored) request_of_entry[entry.id] = RequestOf(entry);
  EXPECT_EQ(stored.size(), static_cast<std::size_t>(kCalls) - doomed.size());
  for (int i = 0; i < kCalls; ++i) {
    const json structured =
        responses[static_cast<std::size_t>(i)]["result"].value("structuredContent", json::object());
    if (doomed.count(i) != 0) {
      // Unrecorded: no audit id, and not an allow (the judge tightens it).
      EXPECT_TRUE(structured["audit_id"].is_null()) << structured.dump();
      EXPECT_EQ(structured.value("decision", ""), "ask") << structured.dump();
      const std::string text =
          responses[static_cast<std::size_t>(i)]["result"]["content"][0].value("text", "");
      EXPECT_NE(text.find("simulated commit failure"), std::string::npos) << text;
      EXPECT_NE(text.find("Not audited."), std::string::npos) << text;
    } else {
      ASSERT_TRUE(structured["audit_id"].is_number_integer()) << structured.dump();
      const int64_t id = structured["audit_id"].get<int64_t>();
      ASSERT_EQ(request_of_entry.count(id), 1u) << "acknowledged entry " << id << " is missing";
      EXPECT_EQ(request_of_entry[id], i);
      EXPECT_EQ(structured.value("decision", ""), "allow");
    }
  }
  EXPECT_EQ(answered_before_commit_.load(), 0);
  auto verify = database_->With([](store::Database& db) { return store::AuditLog(db).Verify(); });
  ASSERT_TRUE(verify.ok()) << verify.error();
  EXPECT_TRUE(verify->ok) << verify->problem;
}

TEST_F(CheckToolGroupCommit, LoneCallIsAnsweredAtOnce) {
  Start([this](const std::vector<store::AuditEntry>& batch) { ExpectNoneAnswered(batch); });
  harness_ready_ = true;
  const auto started = Clock::now();
  json response = harness_->Call(Call(1));
  const auto took = Clock::now() - started;
  EXPECT_TRUE(response["result"]["structuredContent"]["audit_id"].is_number_integer())
      << response.dump();
  EXPECT_EQ(appender_->stats().commits, 1);
  EXPECT_LT(took, std::chrono::seconds(2));
}

}  // namespace
}  // namespace togmal::tools
