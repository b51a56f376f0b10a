// Allow grants: codes, the call a code names, once/until/always grants, their
// revocation, and the audit record of each.
#include "togmal/store/allow_grants.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>

#include "store_test_support.h"
#include "togmal/store/audit_log.h"

namespace togmal::store {
namespace {

using json = nlohmann::json;
using testing::TempDatabase;

// A deny recorded the way check::Judge records one.
int64_t RecordDeny(Database& db, const std::string& command, const std::string& cwd) {
  AuditEntry entry;
  entry.kind = AuditKind::kDecision;
  entry.tool_name = "Bash";
  entry.input = {{"command", command}};
  entry.decision = "deny";
  entry.level = "L3";
  const std::string fingerprint = CallFingerprint("Bash", entry.input, cwd);
  entry.detail = {{"cwd", cwd},
                  {"reason", "togmal L3: no"},
                  {"allow_code", AllowCode(fingerprint)},
                  {"fingerprint", fingerprint}};
  auto id = AuditLog(db).Append(entry);
  EXPECT_TRUE(id.ok());
  return id.ok() ? *id : 0;
}

TEST(AllowCode, FourUnambiguousCharactersFromTheFingerprint) {
  const std::string fingerprint = CallFingerprint("Bash", {{"command", "rm -rf x"}}, "/p");
  EXPECT_EQ(fingerprint.size(), 64u);
  const std::string code = AllowCode(fingerprint);
  ASSERT_EQ(code.size(), 4u);
  for (char c : code) EXPECT_EQ(std::string("ILOU").find(c), std::string::npos) << code;
  EXPECT_EQ(AllowCode(fingerprint), code);  // deterministic
  EXPECT_EQ(AllowCode("00000"), "0000");
  EXPECT_EQ(AllowCode("fffff"), "ZZZZ");
  EXPECT_EQ(NormalizeAllowCode("k7q2"), "K7Q2");
  EXPECT_EQ(NormalizeAllowCode("oil5"), "0115");
  EXPECT_EQ(NormalizeAllowCode("K7Q"), std::nullopt);
  EXPECT_EQ(NormalizeAllowCode("K7Q!"), std::nullopt);
  EXPECT_EQ(NormalizeAllowCode("K7QU"), std::nullopt);
}

TEST(AllowCode, EveryPartOfTheCallChangesTheFingerprint) {
  const json input = {{"command", "rm -rf x"}};
  std::set<std::string> prints = {
      CallFingerprint("Bash", input, "/p"),
      CallFingerprint("bash", input, "/p"),
      CallFingerprint("Bash", {{"command", "rm -rf y"}}, "/p"),
      CallFingerprint("Bash", {{"command", "rm -rf x"}, {"timeout", 5}}, "/p"),
      CallFingerprint("Bash", input, "/q"),
      CallFingerprint("Bash", input, ""),
      // No joining of parts can collide: the parts are JSON strings.
      CallFingerprint("Bash\",\"", input, "/p"),
  };
  EXPECT_EQ(prints.size(), 7u);
}

TEST(AllowGrants, OnceIsSpentByOneUse) {
  TempDatabase temp;
  auto db = temp.Open();
  RecordDeny(db, "rm -rf build", "/p");
  const std::string fingerprint = CallFingerprint("Bash", {{"command", "rm -rf build"}}, "/p");
  AllowGrants grants(db);
  auto call = grants.FindCall(AllowCode(fingerprint));
  ASSERT_TRUE(call.ok()) << call.error();
  ASSERT_TRUE(call->has_value());
  EXPECT_EQ((*call)->fingerprint, fingerprint);
  EXPECT_EQ((*call)->cwd, "/p");
  EXPECT_EQ((*call)->input["command"], "rm -rf build");

  auto granted = grants.Grant(**call, GrantScope::kOnce);
  ASSERT_TRUE(granted.ok()) << granted.error();
  // Peeking (a what-if question) does not spend it.
  auto peek = grants.Active(fingerprint, /*consume=*/false);
  ASSERT_TRUE(peek.ok() && peek->has_value());
  auto used = grants.Active(fingerprint, /*consume=*/true);
  ASSERT_TRUE(used.ok() && used->has_value());
  EXPECT_EQ((*used)->uses, 1);
  auto again = grants.Active(fingerprint, true);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->has_value());
  // Another call (other directory) never matched.
  auto other = grants.Active(CallFingerprint("Bash", {{"command", "rm -rf build"}}, "/q"), true);
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());
}

TEST(AllowGrants, UntilExpires) {
  TempDatabase temp;
  auto db = temp.Open();
  RecordDeny(db, "git push -f", "/p");
  const std::string fingerprint = CallFingerprint("Bash", {{"command", "git push -f"}}, "/p");
  AllowGrants grants(db);
  auto call = grants.FindCall(AllowCode(fingerprint));
  ASSERT_TRUE(call.ok() && call->has_value());
  const auto now = std::chrono::system_clock::now();
  ASSERT_TRUE(grants.Grant(**call, GrantScope::kUntil, now - std::chrono::seconds(1)).ok());
  auto expired = grants.Active(fingerprint, true);
  ASSERT_TRUE(expired.ok());
  EXPECT_FALSE(expired->has_value());
  ASSERT_TRUE(grants.Grant(**call, GrantScope::kUntil, now + std::chrono::hours(1)).ok());
  for (int use = 1; use <= 3; ++use) {
    auto active = grants.Active(fingerprint, true);
    ASSERT_TRUE(active.ok() && active->has_value()) << use;
    EXPECT_EQ((*active)->uses, use);
  }
}

TEST(AllowGrants, RevokeListAndTheAuditRecord) {
  TempDatabase temp;
  auto db = temp.Open();
  RecordDeny(db, "rm -rf build", "/p");
  const std::string fingerprint = CallFingerprint("Bash", {{"command", "rm -rf build"}}, "/p");
  const std::string code = AllowCode(fingerprint);
  AllowGrants grants(db);
  auto call = grants.FindCall(code);
  ASSERT_TRUE(call.ok() && call->has_value());
  ASSERT_TRUE(grants.Grant(**call, GrantScope::kOnce).ok());
  auto listed = grants.List(false);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  auto revoked = grants.Revoke(code);
  ASSERT_TRUE(revoked.ok());
  EXPECT_EQ(revoked->size(), 1u);
  auto active = grants.Active(fingerprint, true);
  ASSERT_TRUE(active.ok());
  EXPECT_FALSE(active->has_value());
  EXPECT_TRUE(grants.List(false)->empty());
  EXPECT_EQ(grants.List(true)->size(), 1u);
  // Nothing left to revoke.
  EXPECT_TRUE(grants.Revoke(code)->empty());

  AuditLog log(db);
  auto verify = log.Verify();
  ASSERT_TRUE(verify.ok() && verify->ok);
  auto tail = log.Tail(10);
  ASSERT_TRUE(tail.ok());
  std::vector<std::string> changes;
  for (const AuditEntry& entry : *tail) {
    if (entry.kind == AuditKind::kConfigChange) changes.push_back(entry.decision);
  }
  EXPECT_EQ(changes, (std::vector<std::string>{"grant", "revoke"}));
}

TEST(AllowGrants, UnknownCodeAndAllowedCallsAreNotFound) {
  TempDatabase temp;
  auto db = temp.Open();
  AllowGrants grants(db);
  auto none = grants.FindCall("ZZZZ");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

// Two processes racing for one once grant: exactly one gets it.
TEST(AllowGrants, OnceGrantIsSpentOnceAcrossProcesses) {
  TempDatabase temp;
  std::string fingerprint;
  {
    auto db = temp.Open();
    RecordDeny(db, "rm -rf build", "/p");
    fingerprint = CallFingerprint("Bash", {{"command", "rm -rf build"}}, "/p");
    AllowGrants grants(db);
    auto call = grants.FindCall(AllowCode(fingerprint));
    ASSERT_TRUE(call.ok() && call->has_value());
    ASSERT_TRUE(grants.Grant(**call, GrantScope::kOnce).ok());
  }
  constexpr int kProcesses = 6;
  std::vector<pid_t> children;
  for (int i = 0; i < kProcesses; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto db = Database::Open(temp.path(), {.busy_timeout_ms = 10000});
      if (!db) ::_exit(3);
      auto active = AllowGrants(*db).Active(fingerprint, true);
      ::_exit(!active.ok() ? 3 : active->has_value() ? 0 : 1);
    }
    children.push_back(pid);
  }
  int winners = 0;
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_NE(WEXITSTATUS(status), 3);
    if (WEXITSTATUS(status) == 0) ++winners;
  }
  EXPECT_EQ(winners, 1);
}

}  // namespace
}  // namespace togmal::store
