// Allow grants: codes, the call a code names, once/until/always grants, their
// revocation, and the audit record of each.
#include "togmal/store/allow_grants.h"

#include <SQLiteCpp/Database.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "schema.h"
#include "sha256.h"
#include "store_test_support.h"
#include "togmal/store/audit_log.h"
#include "togmal/util/json_parse.h"

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
      // A field the wording table does not know acts.
      CallFingerprint("Bash", {{"command", "rm -rf x"}, {"dangerouslyDisableSandbox", true}}, "/p"),
      CallFingerprint("Bash", input, "/q"),
      CallFingerprint("Bash", input, ""),
      // No joining of parts can collide: the parts are JSON strings.
      CallFingerprint("Bash\",\"", input, "/p"),
  };
  EXPECT_EQ(prints.size(), 7u);
}

// The code names the action: the agent's wording of it, and the options that
// do not change what is done, leave it alone; the fields that act do not.
TEST(AllowCode, NamesTheActionNotTheWording) {
  const std::string mkdir = CallFingerprint("Bash", {{"command", "mkdir -p out"}}, "/p");
  EXPECT_EQ(CallFingerprint("Bash",
                            {{"command", "mkdir -p out"},
                             {"description", "Create the output directory"},
                             {"timeout", 60000},
                             {"run_in_background", true}},
                            "/p"),
            mkdir);
  EXPECT_EQ(
      CallFingerprint("Bash", {{"command", "mkdir -p out"}, {"description", "Make out/"}}, "/p"),
      mkdir);
  EXPECT_NE(
      CallFingerprint("Bash", {{"command", "mkdir -p out2"}, {"description", "Make out/"}}, "/p"),
      mkdir);

  // Key order and the JSON's whitespace are not part of the call.
  auto spaced = util::ParseJson(R"({ "description" : "x",
      "command":"mkdir -p out" })");
  auto packed = util::ParseJson(R"({"command":"mkdir -p out","description":"y"})");
  ASSERT_TRUE(spaced.ok() && packed.ok());
  EXPECT_EQ(CallFingerprint("Bash", *spaced, "/p"), mkdir);
  EXPECT_EQ(CallFingerprint("Bash", *packed, "/p"), mkdir);

  // Read: the same file whichever part is shown. WebFetch: the same page
  // whatever the model is asked about it.
  EXPECT_EQ(CallFingerprint("Read", {{"file_path", "/p/.env"}, {"offset", 10}, {"limit", 5}}, "/p"),
            CallFingerprint("Read", {{"file_path", "/p/.env"}}, "/p"));
  EXPECT_NE(CallFingerprint("Read", {{"file_path", "/p/.env.local"}}, "/p"),
            CallFingerprint("Read", {{"file_path", "/p/.env"}}, "/p"));
  EXPECT_EQ(
      CallFingerprint("WebFetch", {{"url", "https://a.example"}, {"prompt", "summarise"}}, "/p"),
      CallFingerprint("WebFetch", {{"url", "https://a.example"}, {"prompt", "list"}}, "/p"));
  EXPECT_NE(CallFingerprint("WebFetch", {{"url", "https://b.example"}}, "/p"),
            CallFingerprint("WebFetch", {{"url", "https://a.example"}}, "/p"));

  // Writes and edits: every field acts; a Write's content by its digest.
  const json write = {{"file_path", "/p/a.sh"}, {"content", "echo hi\n"}};
  EXPECT_EQ(CallAction("Write", write)["content"], "sha256:" + Sha256Hex("echo hi\n"));
  EXPECT_NE(CallFingerprint("Write", {{"file_path", "/p/a.sh"}, {"content", "echo bye\n"}}, "/p"),
            CallFingerprint("Write", write, "/p"));
  const json edit = {{"file_path", "/p/a"}, {"old_string", "x"}, {"new_string", "y"}};
  json all = edit;
  all["replace_all"] = true;
  EXPECT_NE(CallFingerprint("Edit", all, "/p"), CallFingerprint("Edit", edit, "/p"));

  // An MCP tool's description may be what it publishes: it acts.
  EXPECT_NE(CallFingerprint("mcp__gh__create_issue", {{"title", "t"}, {"description", "a"}}, "/p"),
            CallFingerprint("mcp__gh__create_issue", {{"title", "t"}, {"description", "b"}}, "/p"));
  EXPECT_TRUE(FieldActs("mcp__gh__create_issue", "description"));
  EXPECT_FALSE(FieldActs("Bash", "description"));
  EXPECT_TRUE(FieldActs("Bash", "command"));
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

// Granting a code again never makes a second grant: it says what is already
// granted, or extends it when more is asked for.
TEST(AllowGrants, ASecondGrantOfTheSameActionExtendsOrSaysSo) {
  TempDatabase temp;
  auto db = temp.Open();
  RecordDeny(db, "git push --force", "/p");
  const std::string fingerprint = CallFingerprint("Bash", {{"command", "git push --force"}}, "/p");
  AllowGrants grants(db);
  auto call = grants.FindCall(AllowCode(fingerprint));
  ASSERT_TRUE(call.ok() && call->has_value());
  const auto now = std::chrono::system_clock::now();

  auto first = grants.Grant(**call, GrantScope::kOnce);
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(first->outcome, GrantOutcome::kNew);
  auto twice = grants.Grant(**call, GrantScope::kOnce);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->outcome, GrantOutcome::kAlready);
  EXPECT_EQ(twice->grant.id, first->grant.id);

  // More than once: the same grant becomes a time grant.
  auto hour = grants.Grant(**call, GrantScope::kUntil, now + std::chrono::hours(1));
  ASSERT_TRUE(hour.ok());
  EXPECT_EQ(hour->outcome, GrantOutcome::kExtended);
  EXPECT_EQ(hour->grant.id, first->grant.id);
  EXPECT_EQ(hour->grant.scope, GrantScope::kUntil);
  // Less than it covers changes nothing; a later expiry extends it.
  auto shorter = grants.Grant(**call, GrantScope::kUntil, now + std::chrono::minutes(5));
  ASSERT_TRUE(shorter.ok());
  EXPECT_EQ(shorter->outcome, GrantOutcome::kAlready);
  EXPECT_EQ(shorter->grant.expires_at, hour->grant.expires_at);
  EXPECT_EQ(grants.Grant(**call, GrantScope::kOnce)->outcome, GrantOutcome::kAlready);
  auto day = grants.Grant(**call, GrantScope::kUntil, now + std::chrono::hours(24));
  ASSERT_TRUE(day.ok());
  EXPECT_EQ(day->outcome, GrantOutcome::kExtended);
  EXPECT_GT(day->grant.expires_at, hour->grant.expires_at);
  auto listed = grants.List(true);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].expires_at, day->grant.expires_at);
  auto active = grants.Active(fingerprint, false);
  ASSERT_TRUE(active.ok() && active->has_value());
  EXPECT_EQ((*active)->expires_at, day->grant.expires_at);

  // One always grant per action; while it stands, nothing else is needed.
  EXPECT_FALSE(grants.ActiveAlways(fingerprint)->has_value());
  auto always = grants.Grant(**call, GrantScope::kAlways, {}, "allow-code-x-1");
  ASSERT_TRUE(always.ok());
  EXPECT_EQ(always->outcome, GrantOutcome::kNew);
  ASSERT_TRUE(grants.ActiveAlways(fingerprint)->has_value());
  EXPECT_EQ(grants.Grant(**call, GrantScope::kAlways, {}, "allow-code-x-2")->outcome,
            GrantOutcome::kAlready);
  EXPECT_EQ(grants.Grant(**call, GrantScope::kOnce)->outcome, GrantOutcome::kAlready);
  EXPECT_EQ(grants.List(true)->size(), 2u);

  std::vector<std::string> changes;
  // The Result must outlive the loop: `*Tail(20)` in the range would dangle.
  const auto tail = AuditLog(db).Tail(20);
  ASSERT_TRUE(tail.ok());
  for (const AuditEntry& entry : *tail) {
    if (entry.kind == AuditKind::kConfigChange) changes.push_back(entry.decision);
  }
  EXPECT_EQ(changes, (std::vector<std::string>{"grant", "extend", "extend", "grant"}));
}

// `togmal check` records no decision: its coded calls are remembered, found
// by their code, and only the newest are kept.
TEST(AllowGrants, RememberedWhatIfCallsAreFoundByTheirCode) {
  TempDatabase temp;
  auto db = temp.Open();
  AllowGrants grants(db);
  CodedCall asked;
  asked.tool_name = "Bash";
  asked.input = {{"command", "mkdir -p out"}, {"description", "Make out"}};
  asked.cwd = "/p";
  asked.fingerprint = CallFingerprint(asked.tool_name, asked.input, asked.cwd);
  asked.decision = "ask";
  asked.reason = "togmal L2: creates a directory";
  ASSERT_TRUE(grants.RememberCall(asked).ok());
  const std::string code = AllowCode(asked.fingerprint);
  auto found = grants.FindCall(code);
  ASSERT_TRUE(found.ok()) << found.error();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->fingerprint, asked.fingerprint);
  EXPECT_EQ((*found)->decision, "ask");
  EXPECT_EQ((*found)->input["command"], "mkdir -p out");
  EXPECT_EQ((*found)->cwd, "/p");
  auto granted = grants.Grant(**found, GrantScope::kOnce);
  ASSERT_TRUE(granted.ok());
  EXPECT_EQ(granted->grant.code, code);

  for (int i = 0; i < AllowGrants::kRememberedCalls; ++i) {
    CodedCall other = asked;
    other.input = {{"command", "mkdir -p out" + std::to_string(i)}};
    other.fingerprint = CallFingerprint(other.tool_name, other.input, other.cwd);
    ASSERT_TRUE(grants.RememberCall(other).ok());
  }
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM coded_call").getInt(),
            AllowGrants::kRememberedCalls);
  EXPECT_FALSE(grants.FindCall(code)->has_value());
}

// A decision recorded before codes named the action carries the old
// fingerprint: the code still grants the action.
TEST(AllowGrants, ACodeFromBeforeTheUpgradeGrantsTheAction) {
  TempDatabase temp;
  auto db = temp.Open();
  AuditEntry entry;
  entry.kind = AuditKind::kDecision;
  entry.tool_name = "Bash";
  entry.input = {{"command", "mkdir -p out"}, {"description", "Make out"}};
  entry.decision = "ask";
  entry.detail = {{"cwd", "/p"}, {"allow_code", "K7Q2"}, {"fingerprint", std::string(64, 'a')}};
  ASSERT_TRUE(AuditLog(db).Append(entry).ok());
  auto found = AllowGrants(db).FindCall("K7Q2");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->fingerprint, CallFingerprint("Bash", {{"command", "mkdir -p out"}}, "/p"));
}

// Version 5 re-keys the grants of a version-4 file by their action.
TEST(AllowGrants, MigrationReKeysOldGrantsByTheirAction) {
  TempDatabase temp;
  std::filesystem::create_directories(std::filesystem::path(temp.path()).parent_path());
  const std::string until =
      FormatAuditTime(std::chrono::system_clock::now() + std::chrono::hours(1));
  {
    SQLite::Database raw(temp.path(), SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("PRAGMA journal_mode = WAL");
    for (const Migration& migration : Migrations()) {
      if (migration.version <= 4) raw.exec(migration.sql);
    }
    raw.exec("PRAGMA user_version = 4");
    raw.exec(
        "INSERT INTO allow_grant (code, fingerprint, tool_name, input, cwd, scope, expires_at, "
        "created_at) VALUES ('OLD1', 'old', 'Bash', '{\"command\":\"mkdir -p out\","
        "\"description\":\"Make out\"}', '/p', 'until', '" +
        until + "', '2026-01-01T00:00:00Z')");
    raw.exec(
        "INSERT INTO allow_grant (code, fingerprint, tool_name, input, cwd, scope, expires_at, "
        "created_at) VALUES ('OLD2', 'old2', 'Bash', '{\"command\":\"curl -H [REDACTED] x\"}', "
        "'/p', 'until', '" +
        until + "', '2026-01-01T00:00:00Z')");
  }
  Database db = temp.Open();
  EXPECT_EQ(db.sql().execAndGet("PRAGMA user_version").getInt(), kSchemaVersion);
  const std::string fingerprint = CallFingerprint("Bash", {{"command", "mkdir -p out"}}, "/p");
  auto active = AllowGrants(db).Active(fingerprint, false);
  ASSERT_TRUE(active.ok() && active->has_value());
  EXPECT_EQ((*active)->code, AllowCode(fingerprint));
  // A redacted input cannot be re-keyed: it keeps its key and matches nothing new.
  EXPECT_EQ(
      db.sql().execAndGet("SELECT fingerprint FROM allow_grant WHERE code = 'OLD2'").getString(),
      "old2");
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
