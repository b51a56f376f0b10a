#include "togmal/store/audit_log.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Exception.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <sqlite3.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <variant>

#include "sha256.h"
#include "togmal/store/database.h"
#include "togmal/store/redaction.h"
#include "togmal/store/stored_input.h"
#include "togmal/util/json_dump.h"
#include "togmal/util/json_fields.h"
#include "togmal/util/text.h"
#include "write_transaction.h"

namespace togmal::store {

using nlohmann::json;

namespace {

constexpr const char* kColumns =
    "id, time, kind, session, tool_name, input, decision, level, rule, source, reasons, "
    "latency_us, detail, prev_hash, hash";

std::string ColumnText(SQLite::Statement& row, int index) {
  return row.isColumnNull(index) ? std::string() : row.getColumn(index).getString();
}

// A JSON column as stored; an unparsable one (edited by hand) is kept as its
// raw text so that tail still shows it and verify reports a hash mismatch.
json ColumnJson(SQLite::Statement& row, int index) {
  if (row.isColumnNull(index)) return nullptr;
  std::string text = row.getColumn(index).getString();
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return text;
  return parsed;
}

AuditEntry ReadEntry(SQLite::Statement& row) {
  AuditEntry entry;
  entry.id = row.getColumn(0).getInt64();
  entry.time = ColumnText(row, 1);
  const std::string kind = ColumnText(row, 2);
  // An unknown kind (edited by hand) reads as a decision; its hash then fails.
  entry.kind = ParseAuditKind(kind).value_or(AuditKind::kDecision);
  entry.session = ColumnText(row, 3);
  entry.tool_name = ColumnText(row, 4);
  entry.input = ColumnJson(row, 5);
  entry.decision = ColumnText(row, 6);
  entry.level = ColumnText(row, 7);
  entry.rule = ColumnText(row, 8);
  entry.source = ColumnText(row, 9);
  entry.reasons = ColumnJson(row, 10);
  entry.latency_us = row.isColumnNull(11) ? 0 : row.getColumn(11).getInt64();
  entry.detail = ColumnJson(row, 12);
  entry.prev_hash = ColumnText(row, 13);
  entry.hash = ColumnText(row, 14);
  if (!ParseAuditKind(kind)) entry.detail = json{{"unknown_kind", kind}, {"detail", entry.detail}};
  return entry;
}

void BindText(SQLite::Statement& statement, int index, const std::string& text) {
  if (text.empty()) {
    statement.bind(index);  // NULL
  } else {
    statement.bind(index, text);
  }
}

// A JSON field as stored: its text, or NULL for null. Invalid UTF-8 (a hook
// input can hold anything) becomes U+FFFD instead of throwing, the same way
// every time, so the hash is reproducible.
std::string StoredJson(const json& value) {
  return value.is_null() ? std::string() : util::DumpJson(value);
}

// The canonical text of an entry whose JSON fields are already serialised
// (StoredJson): the bytes nlohmann's dump() of the whole entry object would
// give, since it writes an object's keys sorted and a nested value exactly
// as it writes that value alone, without building and copying the object.
std::string ComposeCanonicalJson(const AuditEntry& entry, std::string_view input,
                                 std::string_view reasons, std::string_view detail) {
  std::string out;
  auto text = [&out](std::string_view key, std::string_view value) {
    out += key;
    util::AppendJsonString(out, value);
  };
  auto raw = [&out](std::string_view key, std::string_view stored) {
    out += key;
    out += stored.empty() ? std::string_view("null") : stored;
  };
  out.reserve(input.size() + reasons.size() + detail.size() + entry.session.size() +
              entry.tool_name.size() + 256);
  // Keys in std::map order, as nlohmann::json keeps them.
  text("{\"decision\":", entry.decision);
  raw(",\"detail\":", detail);
  out += ",\"id\":" + std::to_string(entry.id);
  raw(",\"input\":", input);
  text(",\"kind\":", AuditKindName(entry.kind));
  out += ",\"latency_us\":" + std::to_string(entry.latency_us);
  text(",\"level\":", entry.level);
  raw(",\"reasons\":", reasons);
  text(",\"rule\":", entry.rule);
  text(",\"session\":", entry.session);
  text(",\"source\":", entry.source);
  text(",\"time\":", entry.time);
  text(",\"tool_name\":", entry.tool_name);
  out += '}';
  return out;
}

struct Tip {
  int64_t id = 0;
  std::string hash{kGenesisHash};
};

// The last entry, else the pruning anchor, else genesis.
// The statements are the connection's kept ones (Database::Prepared), each
// reset once read so that none holds a read transaction open.
Tip ReadTip(Database& database) {
  SQLite::Statement& last =
      database.Prepared("SELECT id, hash FROM audit ORDER BY id DESC LIMIT 1");
  if (last.executeStep()) {
    Tip tip{last.getColumn(0).getInt64(), last.getColumn(1).getString()};
    last.reset();
    return tip;
  }
  SQLite::Statement& anchor =
      database.Prepared("SELECT through_id, hash FROM audit_anchor WHERE singleton = 1");
  Tip tip;
  if (anchor.executeStep()) tip = {anchor.getColumn(0).getInt64(), anchor.getColumn(1).getString()};
  anchor.reset();
  return tip;
}

// Chains entries onto the tip and inserts them with the connection's kept
// insert statement; the caller holds an immediate transaction for the
// Inserter's life.
class Inserter {
 public:
  explicit Inserter(Database& database)
      : tip_(ReadTip(database)),
        insert_(database.Prepared(std::string("INSERT INTO audit (") + kColumns +
                                  ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) {}

  void Add(PreparedAuditEntry& prepared) {
    AuditEntry& entry = prepared.entry;
    if (entry.time.empty()) entry.time = FormatAuditTime(std::chrono::system_clock::now());
    entry.id = tip_.id + 1;
    entry.prev_hash = tip_.hash;
    std::string hashed = ComposeCanonicalJson(entry, prepared.input_json, prepared.reasons_json,
                                              prepared.detail_json);
    hashed.append(entry.prev_hash);
    entry.hash = Sha256Hex(hashed);
    insert_.reset();
    insert_.bind(1, entry.id);
    insert_.bind(2, entry.time);
    insert_.bind(3, std::string(AuditKindName(entry.kind)));
    BindText(insert_, 4, entry.session);
    BindText(insert_, 5, entry.tool_name);
    BindText(insert_, 6, prepared.input_json);
    BindText(insert_, 7, entry.decision);
    BindText(insert_, 8, entry.level);
    BindText(insert_, 9, entry.rule);
    BindText(insert_, 10, entry.source);
    BindText(insert_, 11, prepared.reasons_json);
    insert_.bind(12, entry.latency_us);
    BindText(insert_, 13, prepared.detail_json);
    insert_.bind(14, entry.prev_hash);
    insert_.bind(15, entry.hash);
    insert_.exec();
    tip_ = {entry.id, entry.hash};
  }

 private:
  Tip tip_;
  SQLite::Statement& insert_;
};

// Appends an entry togmal wrote itself (a retention checkpoint: nothing to
// redact) within the caller's transaction.
void AppendInTransaction(Database& database, AuditEntry& entry) {
  PreparedAuditEntry prepared;
  prepared.input_json = StoredJson(entry.input);
  prepared.reasons_json = StoredJson(entry.reasons);
  prepared.detail_json = StoredJson(entry.detail);
  prepared.entry = std::move(entry);
  Inserter(database).Add(prepared);
  entry = std::move(prepared.entry);
}

using SqlValue = std::variant<int64_t, std::string>;

void Bind(SQLite::Statement& query, const std::vector<SqlValue>& parameters) {
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const int index = static_cast<int>(i + 1);
    if (const auto* number = std::get_if<int64_t>(&parameters[i])) {
      query.bind(index, *number);
    } else {
      query.bind(index, std::get<std::string>(parameters[i]));
    }
  }
}

Result<std::vector<AuditEntry>> Query(Database& database, const std::string& sql,
                                      const std::vector<SqlValue>& parameters) {
  try {
    SQLite::Statement query(database.sql(), sql);
    Bind(query, parameters);
    std::vector<AuditEntry> entries;
    while (query.executeStep()) entries.push_back(ReadEntry(query));
    return entries;
  } catch (const SQLite::Exception& e) {
    return Fail(DescribeSqliteError(database.path(), e.getExtendedErrorCode(), e.what()));
  }
}

// The conditions of `filter` as SQL (" AND …" each), their values appended
// to `parameters`. The project is the call's cwd in the entry's detail.
std::string FilterSql(const AuditFilter& filter, std::vector<SqlValue>& parameters) {
  std::string sql;
  auto any_of = [&](const char* column, const std::vector<std::string>& values) {
    if (values.empty()) return;
    sql += std::string(" AND ") + column + " IN (";
    for (std::size_t i = 0; i < values.size(); ++i) {
      sql += i == 0 ? "?" : ", ?";
      parameters.emplace_back(values[i]);
    }
    sql += ")";
  };
  auto equals = [&](const char* condition, const std::string& value) {
    if (value.empty()) return;
    sql += condition;
    parameters.emplace_back(value);
  };
  equals(" AND time >= ?", filter.since);
  equals(" AND time < ?", filter.until);
  any_of("decision", filter.decisions);
  any_of("level", filter.levels);
  equals(" AND tool_name = ?", filter.tool);
  equals(" AND session = ?", filter.session);
  if (!filter.project.empty()) {
    std::string project = filter.project;
    while (project.size() > 1 && project.back() == '/') project.pop_back();
    const std::string below = project == "/" ? project : project + "/";
    sql +=
        " AND (json_extract(detail, '$.cwd') = ? OR substr(json_extract(detail, '$.cwd'), 1, ?) = "
        "?)";
    parameters.emplace_back(project);
    parameters.emplace_back(static_cast<int64_t>(below.size()));
    parameters.emplace_back(below);
  }
  return sql;
}

}  // namespace

std::string_view AuditKindName(AuditKind kind) {
  switch (kind) {
    case AuditKind::kDecision:
      return "decision";
    case AuditKind::kConfigChange:
      return "config_change";
    case AuditKind::kEvidence:
      return "evidence";
    case AuditKind::kCheckpoint:
      return "checkpoint";
    case AuditKind::kOutcome:
      return "outcome";
  }
  return "decision";
}

std::optional<AuditKind> ParseAuditKind(std::string_view name) {
  for (AuditKind kind : {AuditKind::kDecision, AuditKind::kConfigChange, AuditKind::kEvidence,
                         AuditKind::kCheckpoint, AuditKind::kOutcome}) {
    if (AuditKindName(kind) == name) return kind;
  }
  return std::nullopt;
}

std::string FormatAuditTime(std::chrono::system_clock::time_point time) {
  // Calendar arithmetic instead of gmtime_r, which makes glibc read the time
  // zone files (/etc/localtime) on first use, although UTC needs none.
  using namespace std::chrono;
  const auto micros = floor<microseconds>(time);
  const auto day = floor<days>(micros);
  const year_month_day date{day};
  const hh_mm_ss<microseconds> clock{micros - day};
  const int year = int{date.year()};
  if (year < 0 || year > 9999) {
    char buffer[64];
    std::snprintf(
        buffer, sizeof buffer, "%04d-%02u-%02uT%02ld:%02ld:%02lld.%06lldZ", year,
        unsigned{date.month()}, unsigned{date.day()}, static_cast<long>(clock.hours().count()),
        static_cast<long>(clock.minutes().count()), static_cast<long long>(clock.seconds().count()),
        static_cast<long long>(clock.subseconds().count()));
    return buffer;
  }
  // Every entry is stamped: the digits are written in place, the same text
  // snprintf gave (which is kept above for years it would write differently),
  // without parsing a format each time.
  std::string text = "0000-00-00T00:00:00.000000Z";
  const auto put = [&text](std::size_t at, std::size_t width, long long value) {
    for (std::size_t i = width; i-- > 0; value /= 10) {
      text[at + i] = static_cast<char>('0' + value % 10);
    }
  };
  put(0, 4, year);
  put(5, 2, unsigned{date.month()});
  put(8, 2, unsigned{date.day()});
  put(11, 2, clock.hours().count());
  put(14, 2, clock.minutes().count());
  put(17, 2, clock.seconds().count());
  put(20, 6, clock.subseconds().count());
  return text;
}

json ToJson(const AuditEntry& entry) {
  json object = json::parse(CanonicalJson(entry));
  object["prev_hash"] = entry.prev_hash;
  object["hash"] = entry.hash;
  return object;
}

std::string CanonicalJson(const AuditEntry& entry) {
  return ComposeCanonicalJson(entry, StoredJson(entry.input), StoredJson(entry.reasons),
                              StoredJson(entry.detail));
}

std::string ComputeEntryHash(const AuditEntry& entry, std::string_view prev_hash) {
  std::string data = CanonicalJson(entry);
  data.append(prev_hash);
  return Sha256Hex(data);
}

AuditLog::AuditLog(Database& database, AuditOptions options)
    : database_(&database), options_(options) {}

PreparedAuditEntry PrepareAuditEntry(AuditEntry entry, const AuditOptions& options) {
  // An oversize input is stored as its size, digest and beginning
  // (stored_input.h), before anything walks all of it.
  if (std::optional<json> record = OversizeInputRecord(entry.input)) {
    entry.input = std::move(*record);
  }
  // Every stored text passes the same redaction: reasons and details quote
  // the command. Only the input may be kept raw, when a person opted in.
  if (!options.store_raw_input) RedactSecretsIn(entry.input);
  RedactSecretsIn(entry.reasons);
  RedactSecretsIn(entry.detail);
  entry.tool_name = RedactSecrets(util::Shorten(entry.tool_name, kMaxStoredFieldBytes));
  entry.session = RedactSecrets(util::Shorten(entry.session, kMaxStoredFieldBytes));
  PreparedAuditEntry prepared;
  prepared.input_json = StoredJson(entry.input);
  prepared.reasons_json = StoredJson(entry.reasons);
  prepared.detail_json = StoredJson(entry.detail);
  prepared.entry = std::move(entry);
  return prepared;
}

Result<int64_t> AuditLog::Append(AuditEntry entry) {
  PreparedAuditEntry prepared;
  try {
    prepared = PrepareAuditEntry(std::move(entry), options_);
  } catch (const std::exception& e) {
    return Fail(std::string("cannot append to the audit trail: ") + e.what());
  }
  std::vector<PreparedAuditEntry> one;
  one.push_back(std::move(prepared));
  auto ids = AppendAll(std::move(one));
  if (!ids) return Fail(ids.error());
  return ids->front();
}

Result<std::vector<int64_t>> AuditLog::AppendAll(std::vector<PreparedAuditEntry> entries) {
  std::vector<int64_t> ids;
  if (entries.empty()) return ids;
  ids.reserve(entries.size());
  try {
    SQLite::Database& db = database_->sql();
    auto insert_all = [&] {
      Inserter inserter(*database_);
      for (PreparedAuditEntry& prepared : entries) {
        inserter.Add(prepared);
        ids.push_back(prepared.entry.id);
      }
    };
    if (sqlite3_get_autocommit(db.getHandle()) == 0) {
      // The caller's (immediate) transaction already holds the write lock;
      // the entries commit or roll back with the caller's other writes.
      insert_all();
      return ids;
    }
    // IMMEDIATE takes the write lock before reading the tip: two processes
    // can never chain onto the same entry.
    WriteTransaction transaction(*database_);
    insert_all();
    transaction.Commit();
    return ids;
  } catch (const SQLite::Exception& e) {
    return Fail("cannot append to the audit trail: " +
                DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  } catch (const std::exception& e) {
    return Fail(std::string("cannot append to the audit trail: ") + e.what());
  }
}

Result<VerifyReport> AuditLog::Verify() {
  VerifyReport report;
  try {
    SQLite::Database& db = database_->sql();
    // One read transaction: a consistent snapshot while writers go on.
    SQLite::Transaction snapshot(db, SQLite::TransactionBehavior::DEFERRED);
    std::string expected_prev(kGenesisHash);
    int64_t previous_id = 0;
    std::optional<std::string> anchor_hash;
    {
      SQLite::Statement anchor(db, "SELECT through_id, hash FROM audit_anchor WHERE singleton = 1");
      if (anchor.executeStep()) {
        report.anchor_id = anchor.getColumn(0).getInt64();
        previous_id = *report.anchor_id;
        anchor_hash = anchor.getColumn(1).getString();
        expected_prev = *anchor_hash;
      }
    }
    std::optional<AuditEntry> last_checkpoint;
    SQLite::Statement rows(db, std::string("SELECT ") + kColumns + " FROM audit ORDER BY id");
    auto broken = [&report](int64_t id, std::string problem) {
      report.ok = false;
      report.broken_id = id;
      report.problem = std::move(problem);
      return report;
    };
    while (rows.executeStep()) {
      AuditEntry entry = ReadEntry(rows);
      const std::string id = std::to_string(entry.id);
      if (entry.id != previous_id + 1) {
        return broken(entry.id, "entry " + id + " follows entry " + std::to_string(previous_id) +
                                    ": the entries between them are missing");
      }
      if (entry.prev_hash != expected_prev) {
        return broken(entry.id, "entry " + id +
                                    " does not chain to the entry before it (prev_hash " +
                                    entry.prev_hash + ", expected " + expected_prev +
                                    "): an entry before it was edited, deleted or inserted");
      }
      if (ComputeEntryHash(entry, entry.prev_hash) != entry.hash) {
        return broken(entry.id, "entry " + id +
                                    " does not match its hash: its content was edited after it "
                                    "was written");
      }
      if (entry.kind == AuditKind::kCheckpoint) last_checkpoint = entry;
      expected_prev = entry.hash;
      previous_id = entry.id;
      ++report.checked;
    }
    report.tip_hash = expected_prev;
    // The anchor says where pruning stopped; the newest checkpoint, protected
    // by the chain, must say the same, or someone pruned by hand.
    if (report.anchor_id) {
      const bool recorded =
          last_checkpoint &&
          util::IntField(last_checkpoint->detail, "pruned_through_id", -1) == *report.anchor_id &&
          util::StringField(last_checkpoint->detail, "last_hash") == *anchor_hash;
      if (!recorded) {
        return broken(last_checkpoint ? last_checkpoint->id : *report.anchor_id + 1,
                      "the pruning anchor (entries up to " + std::to_string(*report.anchor_id) +
                          " removed) is not recorded by the newest checkpoint entry: entries "
                          "were removed outside togmal's retention");
      }
    } else if (last_checkpoint) {
      return broken(last_checkpoint->id, "checkpoint entry " + std::to_string(last_checkpoint->id) +
                                             " records pruning but the pruning anchor is missing");
    }
    return report;
  } catch (const SQLite::Exception& e) {
    return Fail("cannot verify the audit trail: " +
                DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  } catch (const std::exception& e) {
    return Fail(std::string("cannot verify the audit trail: ") + e.what());
  }
}

Result<std::vector<AuditEntry>> AuditLog::Tail(int64_t count, const AuditFilter& filter) {
  std::vector<SqlValue> parameters;
  const std::string where = FilterSql(filter, parameters);
  parameters.emplace_back(std::max<int64_t>(count, 0));
  auto entries = Query(*database_,
                       std::string("SELECT ") + kColumns + " FROM audit WHERE 1" + where +
                           " ORDER BY id DESC LIMIT ?",
                       parameters);
  if (entries) std::reverse(entries->begin(), entries->end());
  return entries;
}

Result<std::vector<AuditEntry>> AuditLog::After(int64_t after_id, int64_t limit,
                                                const AuditFilter& filter) {
  std::vector<SqlValue> parameters{after_id};
  const std::string where = FilterSql(filter, parameters);
  parameters.emplace_back(std::max<int64_t>(limit, 0));
  return Query(*database_,
               std::string("SELECT ") + kColumns + " FROM audit WHERE id > ?" + where +
                   " ORDER BY id LIMIT ?",
               parameters);
}

Result<int64_t> AuditLog::ForEach(const std::function<void(const AuditEntry&)>& sink,
                                  const AuditFilter& filter) {
  int64_t after = 0, count = 0;
  while (true) {
    auto page = After(after, 1000, filter);
    if (!page) return Fail(page.error());
    if (page->empty()) return count;
    for (const AuditEntry& entry : *page) sink(entry);
    count += static_cast<int64_t>(page->size());
    after = page->back().id;
  }
}

Result<AuditCounts> AuditLog::Counts() {
  AuditCounts counts;
  try {
    SQLite::Database& db = database_->sql();
    SQLite::Statement by_kind(db, "SELECT kind, count(*) FROM audit GROUP BY kind");
    while (by_kind.executeStep()) {
      counts.by_kind[by_kind.getColumn(0).getString()] = by_kind.getColumn(1).getInt64();
      counts.total += by_kind.getColumn(1).getInt64();
    }
    SQLite::Statement by_decision(
        db,
        "SELECT decision, count(*) FROM audit WHERE kind = 'decision' AND decision IS NOT NULL "
        "GROUP BY decision");
    while (by_decision.executeStep()) {
      counts.by_decision[by_decision.getColumn(0).getString()] =
          by_decision.getColumn(1).getInt64();
    }
    SQLite::Statement span(db, "SELECT min(time), max(time) FROM audit");
    if (span.executeStep() && !span.isColumnNull(0)) {
      counts.first_time = span.getColumn(0).getString();
      counts.last_time = span.getColumn(1).getString();
    }
    return counts;
  } catch (const SQLite::Exception& e) {
    return Fail(DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<ToolUseRecord> AuditLog::RecentToolUse(std::string_view tool_use_id, int64_t window) {
  ToolUseRecord record;
  if (tool_use_id.empty()) return record;
  try {
    // A rowid range first, so only the window is read; the JSON is looked
    // into only for the few entries that can match.
    SQLite::Statement query(
        database_->sql(),
        "SELECT kind, decision FROM audit WHERE id > (SELECT coalesce(max(id), 0) FROM audit) - ? "
        "AND (kind = 'outcome' OR (kind = 'decision' AND decision IN ('pass', 'ask'))) "
        "AND json_extract(detail, '$.tool_use_id') = ?");
    query.bind(1, window);
    query.bind(2, std::string(tool_use_id));
    while (query.executeStep()) {
      if (query.getColumn(0).getString() == "outcome") {
        record.has_outcome = true;
      } else {
        record.decision = query.getColumn(1).getString();
      }
    }
    return record;
  } catch (const SQLite::Exception& e) {
    return Fail(DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<std::map<std::string, int64_t>> AuditLog::DecisionsSince(std::string_view since,
                                                                std::string_view project) {
  AuditFilter filter;
  filter.since = std::string(since);
  filter.project = std::string(project);
  auto counts = DecisionCounts(filter);
  if (!counts) return Fail(counts.error());
  std::map<std::string, int64_t> by_decision;
  for (const auto& [decision, by_level] : *counts) {
    for (const auto& [level, count] : by_level) by_decision[decision] += count;
  }
  return by_decision;
}

Result<DecisionTally> AuditLog::DecisionCounts(const AuditFilter& filter) {
  DecisionTally counts;
  try {
    std::vector<SqlValue> parameters;
    const std::string where = FilterSql(filter, parameters);
    SQLite::Statement query(database_->sql(),
                            "SELECT decision, coalesce(level, ''), count(*) FROM audit WHERE "
                            "kind = 'decision' AND decision IS NOT NULL" +
                                where + " GROUP BY decision, level");
    Bind(query, parameters);
    while (query.executeStep()) {
      counts[query.getColumn(0).getString()][query.getColumn(1).getString()] =
          query.getColumn(2).getInt64();
    }
    return counts;
  } catch (const SQLite::Exception& e) {
    return Fail(DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  }
}

Result<PruneReport> AuditLog::PruneBefore(std::chrono::system_clock::time_point cutoff) {
  PruneReport report;
  try {
    SQLite::Database& db = database_->sql();
    SQLite::Transaction transaction(db, SQLite::TransactionBehavior::IMMEDIATE);
    const std::string cutoff_text = FormatAuditTime(cutoff);
    // Prune a prefix of ids so the rest stays one contiguous chain.
    SQLite::Statement newest_old(db, "SELECT max(id) FROM audit WHERE time < ?");
    newest_old.bind(1, cutoff_text);
    if (!newest_old.executeStep() || newest_old.isColumnNull(0)) return report;
    const int64_t through = newest_old.getColumn(0).getInt64();
    SQLite::Statement last(db, "SELECT hash FROM audit WHERE id = ?");
    last.bind(1, through);
    if (!last.executeStep()) return report;
    const std::string last_hash = last.getColumn(0).getString();

    SQLite::Statement remove(db, "DELETE FROM audit WHERE id <= ?");
    remove.bind(1, through);
    report.pruned = remove.exec();
    report.through_id = through;
    SQLite::Statement anchor(
        db,
        "INSERT INTO audit_anchor (singleton, through_id, hash) VALUES (1, ?, ?) "
        "ON CONFLICT (singleton) DO UPDATE SET through_id = excluded.through_id, "
        "hash = excluded.hash");
    anchor.bind(1, through);
    anchor.bind(2, last_hash);
    anchor.exec();

    AuditEntry checkpoint;
    checkpoint.kind = AuditKind::kCheckpoint;
    checkpoint.source = "retention";
    checkpoint.detail = {{"pruned_through_id", through},
                         {"pruned_count", report.pruned},
                         {"last_hash", last_hash},
                         {"cutoff", cutoff_text}};
    AppendInTransaction(*database_, checkpoint);
    report.checkpoint_id = checkpoint.id;
    transaction.commit();
    return report;
  } catch (const SQLite::Exception& e) {
    return Fail("cannot prune the audit trail: " +
                DescribeSqliteError(database_->path(), e.getExtendedErrorCode(), e.what()));
  } catch (const std::exception& e) {
    return Fail(std::string("cannot prune the audit trail: ") + e.what());
  }
}

Result<PruneReport> AuditLog::ApplyRetention(int retention_days) {
  if (retention_days <= 0) return PruneReport{};
  return PruneBefore(std::chrono::system_clock::now() - std::chrono::hours(24) * retention_days);
}

}  // namespace togmal::store
