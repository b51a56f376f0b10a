#include "togmal/store/allow_grants.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "schema.h"
#include "sha256.h"
#include "togmal/store/audit_log.h"
#include "togmal/store/redaction.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/json_fields.h"
#include "togmal/util/text.h"

namespace togmal::store {
namespace {

using json = nlohmann::json;

constexpr std::string_view kCodeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
constexpr std::size_t kCodeLength = 4;

std::string Text(SQLite::Statement& row, int column) {
  return row.isColumnNull(column) ? std::string() : row.getColumn(column).getString();
}

json JsonColumn(SQLite::Statement& row, int column) {
  const std::string text = Text(row, column);
  if (text.empty()) return json();
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

std::optional<GrantScope> ParseScope(std::string_view name) {
  for (GrantScope scope : {GrantScope::kOnce, GrantScope::kUntil, GrantScope::kAlways}) {
    if (GrantScopeName(scope) == name) return scope;
  }
  return std::nullopt;
}

// The fields of a known tool's input that are wording, not action: free text
// the agent writes for the person, and options that change how much is shown
// or how long is waited for, never what is done. Every other field acts, so a
// field this table does not know (a new option of the host) keeps two calls
// apart rather than joining them. MCP and unknown tools have no entry: their
// `description` or `prompt` may be exactly what they publish or send.
//
// A table in code, not in config/: it defines the stored fingerprint (a change
// orphans every grant and needs a migration, docs/store.md), and no user or
// project configuration may widen what a granted code lets through.
// `digested` names a field that acts as a whole but is kept as its SHA-256
// digest ("sha256:HEX"): a file's content, which may be large.
struct ToolWording {
  std::string_view tool;
  std::array<std::string_view, 3> fields;
  std::string_view digested = {};
};
constexpr ToolWording kWording[] = {
    // What runs is the command: its description, the time it is given and
    // whether Claude Code waits for it do not change what it does.
    {"Bash", {"description", "timeout", "run_in_background"}},
    // The same file is read, whichever part of it is shown.
    {"Read", {"offset", "limit", "pages"}},
    // The same page is fetched; the prompt only asks a model about it.
    {"WebFetch", {"prompt"}},
    // The sub-agent does what its prompt says; the description is its title.
    {"Task", {"description"}},
    {"Agent", {"description"}},
    // Every field of a Write acts: the path, and the content by its digest.
    {"Write", {}, "content"},
};

const ToolWording* WordingOf(std::string_view tool_name) {
  for (const ToolWording& wording : kWording) {
    if (wording.tool == tool_name) return &wording;
  }
  return nullptr;
}

bool HasRedaction(const json& value) {
  if (value.is_string()) {
    return value.get_ref<const std::string&>().find(kRedacted) != std::string::npos;
  }
  if (value.is_array() || value.is_object()) {
    for (const auto& item : value) {
      if (HasRedaction(item)) return true;
    }
  }
  return false;
}

constexpr const char* kGrantColumns =
    "id, code, fingerprint, tool_name, input, cwd, scope, expires_at, created_at, uses, "
    "revoked_at, rule_id";

AllowGrant GrantFromRow(SQLite::Statement& row) {
  AllowGrant grant;
  grant.id = row.getColumn(0).getInt64();
  grant.code = Text(row, 1);
  grant.fingerprint = Text(row, 2);
  grant.tool_name = Text(row, 3);
  grant.input = JsonColumn(row, 4);
  grant.cwd = Text(row, 5);
  grant.scope = ParseScope(Text(row, 6)).value_or(GrantScope::kOnce);
  grant.expires_at = Text(row, 7);
  grant.created_at = Text(row, 8);
  grant.uses = row.getColumn(9).getInt64();
  grant.revoked_at = Text(row, 10);
  grant.rule_id = Text(row, 11);
  return grant;
}

void BindOptional(SQLite::Statement& statement, int index, const std::string& text) {
  if (text.empty()) {
    statement.bind(index);
  } else {
    statement.bind(index, text);
  }
}

// Records a grant's creation or revocation in the audit trail, inside the
// caller's transaction, so a grant never exists without its record.
Result<int64_t> RecordChange(Database& database, const AllowGrant& grant, std::string_view what) {
  AuditEntry entry;
  entry.kind = AuditKind::kConfigChange;
  entry.session = "cli";
  entry.source = "allow_code";
  entry.decision = std::string(what);
  entry.tool_name = grant.tool_name;
  entry.input = grant.input;
  entry.detail = {{"code", grant.code},
                  {"scope", GrantScopeName(grant.scope)},
                  {"grant_id", grant.id},
                  {"fingerprint", grant.fingerprint}};
  if (!grant.cwd.empty()) entry.detail["cwd"] = grant.cwd;
  if (!grant.expires_at.empty()) entry.detail["expires_at"] = grant.expires_at;
  if (!grant.rule_id.empty()) entry.detail["rule_id"] = grant.rule_id;
  return AuditLog(database).Append(std::move(entry));
}

Error Failure(const Database& database, const SQLite::Exception& e) {
  return Fail(DescribeSqliteError(database.path(), e.getExtendedErrorCode(), e.what()));
}

}  // namespace

bool FieldActs(std::string_view tool_name, std::string_view field) {
  const ToolWording* wording = WordingOf(tool_name);
  return wording == nullptr || field.empty() ||
         std::find(wording->fields.begin(), wording->fields.end(), field) == wording->fields.end();
}

json CallAction(std::string_view tool_name, const json& input) {
  if (!input.is_object()) return input;
  const ToolWording* wording = WordingOf(tool_name);
  json action = json::object();
  for (const auto& [key, value] : input.items()) {
    if (!FieldActs(tool_name, key)) continue;
    if (wording != nullptr && !wording->digested.empty() && key == wording->digested &&
        value.is_string()) {
      action[key] = "sha256:" + Sha256Hex(value.get_ref<const std::string&>());
    } else {
      action[key] = value;
    }
  }
  return action;
}

std::string CallFingerprint(std::string_view tool_name, const json& input, std::string_view cwd) {
  // The parts are JSON strings in a JSON array, so no choice of tool name,
  // input or directory can make two different calls read the same. JSON
  // objects dump with sorted keys: the order the host sent them in, and its
  // whitespace, do not matter.
  const json identity = json::array({tool_name, util::DumpJson(CallAction(tool_name, input)), cwd});
  return Sha256Hex(util::DumpJson(identity));
}

std::string AllowCode(std::string_view fingerprint) {
  // The first 5 hex digits are 20 bits: four base32 characters of 5 bits.
  uint32_t bits = 0;
  for (std::size_t i = 0; i < 5 && i < fingerprint.size(); ++i) {
    const char c = fingerprint[i];
    const uint32_t digit =
        c >= 'a' ? static_cast<uint32_t>(c - 'a' + 10) : static_cast<uint32_t>(c - '0');
    bits = (bits << 4) | (digit & 0xf);
  }
  std::string code(kCodeLength, '0');
  for (std::size_t i = kCodeLength; i-- > 0;) {
    code[i] = kCodeAlphabet[bits & 0x1f];
    bits >>= 5;
  }
  return code;
}

std::optional<std::string> NormalizeAllowCode(std::string_view code) {
  if (code.size() != kCodeLength) return std::nullopt;
  std::string normal;
  for (char c : code) {
    char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper == 'O') upper = '0';
    if (upper == 'I' || upper == 'L') upper = '1';
    if (kCodeAlphabet.find(upper) == std::string_view::npos) return std::nullopt;
    normal.push_back(upper);
  }
  return normal;
}

std::string_view GrantScopeName(GrantScope scope) {
  switch (scope) {
    case GrantScope::kOnce:
      return "once";
    case GrantScope::kUntil:
      return "until";
    case GrantScope::kAlways:
      return "always";
  }
  return "once";
}

Result<std::optional<CodedCall>> AllowGrants::FindCall(std::string_view code) {
  try {
    std::optional<CodedCall> found;
    SQLite::Statement decided(
        database_->sql(),
        "SELECT id, time, tool_name, input, detail, decision FROM audit "
        "WHERE kind = 'decision' AND decision IN ('deny', 'ask', 'pass') "
        "AND json_extract(detail, '$.allow_code') = ? ORDER BY id DESC LIMIT 1");
    decided.bind(1, std::string(code));
    if (decided.executeStep()) {
      CodedCall call;
      call.audit_id = decided.getColumn(0).getInt64();
      call.time = Text(decided, 1);
      call.tool_name = Text(decided, 2);
      call.input = JsonColumn(decided, 3);
      const json detail = JsonColumn(decided, 4);
      call.decision = Text(decided, 5);
      if (detail.is_object()) {
        call.fingerprint = util::StringField(detail, "fingerprint");
        call.cwd = util::StringField(detail, "cwd");
        call.reason = util::StringField(detail, "reason");
      }
      if (!call.fingerprint.empty()) found = std::move(call);
    }
    SQLite::Statement asked(database_->sql(),
                            "SELECT time, tool_name, input, cwd, decision, reason, fingerprint "
                            "FROM coded_call WHERE code = ? ORDER BY id DESC LIMIT 1");
    asked.bind(1, std::string(code));
    if (asked.executeStep() && (!found || Text(asked, 0) > found->time)) {
      CodedCall call;
      call.time = Text(asked, 0);
      call.tool_name = Text(asked, 1);
      call.input = JsonColumn(asked, 2);
      call.cwd = Text(asked, 3);
      call.decision = Text(asked, 4);
      call.reason = Text(asked, 5);
      call.fingerprint = Text(asked, 6);
      found = std::move(call);
    }
    if (!found) return found;
    // The stored input is the call's own unless a secret was redacted: then
    // its fingerprint is computed again, so a code shown before the
    // fingerprint named only the action (schema version 5) grants the action.
    if (!HasRedaction(found->input)) {
      found->fingerprint = CallFingerprint(found->tool_name, found->input, found->cwd);
    }
    return found;
  } catch (const SQLite::Exception& e) {
    return Failure(*database_, e);
  }
}

Result<void> AllowGrants::RememberCall(const CodedCall& call) {
  try {
    SQLite::Transaction transaction(database_->sql(), SQLite::TransactionBehavior::IMMEDIATE);
    SQLite::Statement insert(database_->sql(),
                             "INSERT INTO coded_call (time, code, fingerprint, tool_name, input, "
                             "cwd, decision, reason) VALUES (?,?,?,?,?,?,?,?)");
    insert.bind(1,
                call.time.empty() ? FormatAuditTime(std::chrono::system_clock::now()) : call.time);
    insert.bind(2, AllowCode(call.fingerprint));
    insert.bind(3, call.fingerprint);
    insert.bind(4, call.tool_name);
    insert.bind(5, util::DumpJson(RedactSecretsInJson(call.input)));
    BindOptional(insert, 6, call.cwd);
    insert.bind(7, call.decision);
    BindOptional(insert, 8, RedactSecrets(call.reason));  // it may quote the command
    insert.exec();
    SQLite::Statement trim(database_->sql(), "DELETE FROM coded_call WHERE id <= ?");
    trim.bind(1, database_->sql().getLastInsertRowid() - kRememberedCalls);
    trim.exec();
    transaction.commit();
    return {};
  } catch (const SQLite::Exception& e) {
    return Failure(*database_, e);
  }
}

namespace {

// The active grants for `fingerprint`, oldest first.
std::vector<AllowGrant> ActiveGrants(SQLite::Database& sql, std::string_view fingerprint,
                                     const std::string& now) {
  SQLite::Statement query(
      sql, std::string("SELECT ") + kGrantColumns +
               " FROM allow_grant WHERE fingerprint = ?1 AND revoked_at IS NULL AND ((scope = "
               "'once' AND uses = 0) OR (scope = 'until' AND expires_at > ?2) OR scope = "
               "'always') ORDER BY id");
  query.bind(1, std::string(fingerprint));
  query.bind(2, now);
  std::vector<AllowGrant> grants;
  while (query.executeStep()) grants.push_back(GrantFromRow(query));
  return grants;
}

// Of `active`, the one that covers most: always, then the latest expiry, then once.
const AllowGrant* Widest(const std::vector<AllowGrant>& active) {
  const AllowGrant* widest = nullptr;
  auto rank = [](const AllowGrant& grant) {
    return grant.scope == GrantScope::kAlways ? 2 : grant.scope == GrantScope::kUntil ? 1 : 0;
  };
  for (const AllowGrant& grant : active) {
    if (widest == nullptr || rank(grant) > rank(*widest) ||
        (rank(grant) == rank(*widest) && grant.expires_at > widest->expires_at)) {
      widest = &grant;
    }
  }
  return widest;
}

}  // namespace

Result<GrantResult> AllowGrants::Grant(const CodedCall& call, GrantScope scope,
                                       std::chrono::system_clock::time_point expires,
                                       std::string rule_id) {
  AllowGrant grant;
  grant.code = AllowCode(call.fingerprint);
  grant.fingerprint = call.fingerprint;
  grant.tool_name = call.tool_name;
  grant.input = call.input;
  grant.cwd = call.cwd;
  grant.scope = scope;
  if (scope == GrantScope::kUntil) grant.expires_at = FormatAuditTime(expires);
  grant.created_at = FormatAuditTime(std::chrono::system_clock::now());
  grant.rule_id = std::move(rule_id);
  try {
    SQLite::Transaction transaction(database_->sql(), SQLite::TransactionBehavior::IMMEDIATE);
    const std::vector<AllowGrant> active =
        ActiveGrants(database_->sql(), grant.fingerprint, grant.created_at);
    std::optional<AllowGrant> always;
    std::vector<AllowGrant> timed;
    for (const AllowGrant& existing : active) {
      if (existing.scope == GrantScope::kAlways) {
        if (!always) always = existing;
      } else {
        timed.push_back(existing);
      }
    }
    if (always) return GrantResult{*always, GrantOutcome::kAlready};
    if (scope != GrantScope::kAlways && !timed.empty()) {
      AllowGrant existing = *Widest(timed);
      const bool covered = scope == GrantScope::kOnce || (existing.scope == GrantScope::kUntil &&
                                                          existing.expires_at >= grant.expires_at);
      if (covered) return GrantResult{std::move(existing), GrantOutcome::kAlready};
      SQLite::Statement extend(
          database_->sql(), "UPDATE allow_grant SET scope = 'until', expires_at = ? WHERE id = ?");
      extend.bind(1, grant.expires_at);
      extend.bind(2, existing.id);
      extend.exec();
      existing.scope = GrantScope::kUntil;
      existing.expires_at = grant.expires_at;
      if (auto recorded = RecordChange(*database_, existing, "extend"); !recorded) {
        return Fail(recorded.error());
      }
      transaction.commit();
      return GrantResult{std::move(existing), GrantOutcome::kExtended};
    }
    SQLite::Statement insert(database_->sql(),
                             "INSERT INTO allow_grant (code, fingerprint, tool_name, input, cwd, "
                             "scope, expires_at, created_at, rule_id) VALUES (?,?,?,?,?,?,?,?,?)");
    insert.bind(1, grant.code);
    insert.bind(2, grant.fingerprint);
    insert.bind(3, grant.tool_name);
    insert.bind(4, util::DumpJson(RedactSecretsInJson(grant.input)));
    BindOptional(insert, 5, grant.cwd);
    insert.bind(6, std::string(GrantScopeName(scope)));
    BindOptional(insert, 7, grant.expires_at);
    insert.bind(8, grant.created_at);
    BindOptional(insert, 9, grant.rule_id);
    insert.exec();
    grant.id = database_->sql().getLastInsertRowid();
    if (auto recorded = RecordChange(*database_, grant, "grant"); !recorded) {
      return Fail(recorded.error());
    }
    transaction.commit();
    return GrantResult{std::move(grant), GrantOutcome::kNew};
  } catch (const SQLite::Exception& e) {
    return Failure(*database_, e);
  }
}

Result<std::optional<AllowGrant>> AllowGrants::ActiveAlways(std::string_view fingerprint) {
  try {
    const std::string now = FormatAuditTime(std::chrono::system_clock::now());
    for (AllowGrant& grant : ActiveGrants(database_->sql(), fingerprint, now)) {
      if (grant.scope == GrantScope::kAlways) return std::optional<AllowGrant>(std::move(grant));
    }
    return std::optional<AllowGrant>();
  } catch (const SQLite::Exception& e) {
    return Failure(*database_, e);
  }
}

Result<std::optional<AllowGrant>> AllowGrants::Active(std::string_view fingerprint, bool consume) {
  try {
    // Nearly every deny has no grant: find that out with a plain read, and
    // take the write lock (to spend a once grant) only when there is one.
    {
      SQLite::Statement any(
          database_->sql(),
          "SELECT 1 FROM allow_grant WHERE fingerprint = ? AND revoked_at IS NULL");
      any.bind(1, std::string(fingerprint));
      if (!any.executeStep()) return std::optional<AllowGrant>();
    }
    const std::string now = FormatAuditTime(std::chrono::system_clock::now());
    const std::string select =
        std::string("SELECT ") + kGrantColumns +
        " FROM allow_grant WHERE fingerprint = ? AND revoked_at IS NULL AND "
        "((scope = 'once' AND uses = 0) OR (scope = 'until' AND expires_at > ?)) "
        "ORDER BY id LIMIT 1";
    std::optional<SQLite::Transaction> transaction;
    if (consume) {
      transaction.emplace(database_->sql(), SQLite::TransactionBehavior::IMMEDIATE);
    }
    SQLite::Statement query(database_->sql(), select);
    query.bind(1, std::string(fingerprint));
    query.bind(2, now);
    if (!query.executeStep()) return std::optional<AllowGrant>();
    AllowGrant grant = GrantFromRow(query);
    query.reset();
    if (consume) {
      SQLite::Statement use(database_->sql(),
                            "UPDATE allow_grant SET uses = uses + 1 WHERE id = ?");
      use.bind(1, grant.id);
      use.exec();
      ++grant.uses;
      transaction->commit();
    }
    return std::optional<AllowGrant>(std::move(grant));
  } catch (const SQLite::Exception& e) {
    return Failure(*database_, e);
  }
}

Result<std::vector<AllowGrant>> AllowGrants::List(bool include_spent) {
  try {
    const std::string now = FormatAuditTime(std::chrono::system_clock::now());
    std::string select = std::string("SELECT ") + kGrantColumns + " FROM allow_grant";
    if (!include_spent) {
      select +=
          " WHERE revoked_at IS NULL AND ((scope = 'once' AND uses = 0) OR "
          "(scope = 'until' AND expires_at > ?1) OR scope = 'always')";
    }
    select += " ORDER BY id DESC";
    SQLite::Statement query(database_->sql(), select);
    if (!include_spent) query.bind(1, now);
    std::vector<AllowGrant> grants;
    while (query.executeStep()) grants.push_back(GrantFromRow(query));
    return grants;
  } catch (const SQLite::Exception& e) {
    return Failure(*database_, e);
  }
}

Result<std::vector<AllowGrant>> AllowGrants::Revoke(std::string_view code) {
  try {
    SQLite::Transaction transaction(database_->sql(), SQLite::TransactionBehavior::IMMEDIATE);
    const std::string now = FormatAuditTime(std::chrono::system_clock::now());
    SQLite::Statement query(
        database_->sql(),
        std::string("SELECT ") + kGrantColumns +
            " FROM allow_grant WHERE code = ?1 AND revoked_at IS NULL AND ((scope = 'once' AND "
            "uses = 0) OR (scope = 'until' AND expires_at > ?2) OR scope = 'always') ORDER BY id");
    query.bind(1, std::string(code));
    query.bind(2, now);
    std::vector<AllowGrant> revoked;
    while (query.executeStep()) revoked.push_back(GrantFromRow(query));
    query.reset();
    for (AllowGrant& grant : revoked) {
      SQLite::Statement revoke(database_->sql(),
                               "UPDATE allow_grant SET revoked_at = ? WHERE id = ?");
      revoke.bind(1, now);
      revoke.bind(2, grant.id);
      revoke.exec();
      grant.revoked_at = now;
      if (auto recorded = RecordChange(*database_, grant, "revoke"); !recorded) {
        return Fail(recorded.error());
      }
    }
    transaction.commit();
    return revoked;
  } catch (const SQLite::Exception& e) {
    return Failure(*database_, e);
  }
}

void RekeyAllowGrants(SQLite::Database& db) {
  struct Key {
    int64_t id;
    std::string fingerprint;
  };
  std::vector<Key> keys;
  {
    SQLite::Statement rows(db, "SELECT id, tool_name, input, cwd FROM allow_grant");
    while (rows.executeStep()) {
      const json input = JsonColumn(rows, 2);
      if (HasRedaction(input)) continue;
      keys.push_back(
          {rows.getColumn(0).getInt64(), CallFingerprint(Text(rows, 1), input, Text(rows, 3))});
    }
  }
  SQLite::Statement update(db, "UPDATE allow_grant SET fingerprint = ?, code = ? WHERE id = ?");
  for (const Key& key : keys) {
    update.bind(1, key.fingerprint);
    update.bind(2, AllowCode(key.fingerprint));
    update.bind(3, key.id);
    update.exec();
    update.reset();
  }
}

}  // namespace togmal::store
