#include "schema.h"

namespace togmal::store {

namespace {

// Version 1: the evidence taxonomy with its full-text index, and the audit
// trail with its pruning anchor. Never edit a released migration: add one.
constexpr const char* kVersion1 = R"sql(
CREATE TABLE evidence (
  id            INTEGER PRIMARY KEY,
  created_at    TEXT    NOT NULL,
  category      TEXT    NOT NULL,
  prompt        TEXT    NOT NULL,
  response      TEXT    NOT NULL,
  description   TEXT    NOT NULL,
  severity      TEXT    NOT NULL CHECK (severity IN ('low','moderate','high','critical')),
  severity_rank INTEGER NOT NULL,
  reason        TEXT,
  client        TEXT,
  content_hash  TEXT    NOT NULL UNIQUE
);
CREATE INDEX evidence_by_category ON evidence (category, severity_rank);
CREATE VIRTUAL TABLE evidence_fts USING fts5 (
  description, prompt, response,
  content = 'evidence', content_rowid = 'id',
  tokenize = 'porter unicode61'
);
CREATE TRIGGER evidence_fts_insert AFTER INSERT ON evidence BEGIN
  INSERT INTO evidence_fts (rowid, description, prompt, response)
  VALUES (new.id, new.description, new.prompt, new.response);
END;
CREATE TRIGGER evidence_fts_delete AFTER DELETE ON evidence BEGIN
  INSERT INTO evidence_fts (evidence_fts, rowid, description, prompt, response)
  VALUES ('delete', old.id, old.description, old.prompt, old.response);
END;
CREATE TRIGGER evidence_fts_update AFTER UPDATE ON evidence BEGIN
  INSERT INTO evidence_fts (evidence_fts, rowid, description, prompt, response)
  VALUES ('delete', old.id, old.description, old.prompt, old.response);
  INSERT INTO evidence_fts (rowid, description, prompt, response)
  VALUES (new.id, new.description, new.prompt, new.response);
END;

CREATE TABLE audit (
  id         INTEGER PRIMARY KEY,
  time       TEXT    NOT NULL,
  kind       TEXT    NOT NULL,
  session    TEXT,
  tool_name  TEXT,
  input      TEXT,
  decision   TEXT,
  level      TEXT,
  rule       TEXT,
  source     TEXT,
  reasons    TEXT,
  latency_us INTEGER,
  detail     TEXT,
  prev_hash  TEXT    NOT NULL,
  hash       TEXT    NOT NULL
);
CREATE INDEX audit_by_time ON audit (time);
CREATE INDEX audit_by_kind ON audit (kind, decision);

-- Where the chain starts after pruning: the id and hash of the last pruned
-- entry. At most one row.
CREATE TABLE audit_anchor (
  singleton  INTEGER PRIMARY KEY CHECK (singleton = 1),
  through_id INTEGER NOT NULL,
  hash       TEXT    NOT NULL
);
)sql";

// Version 2: a verdict per evidence entry, for training the detection model:
// the text shows the failure, or the category was flagged wrongly.
constexpr const char* kVersion2 = R"sql(
ALTER TABLE evidence ADD COLUMN verdict TEXT NOT NULL DEFAULT 'failure'
  CHECK (verdict IN ('failure','false_positive'));
)sql";

// Version 3: allow grants (`togmal allow CODE`): which call (fingerprint) may
// pass, once or until when; always grants point at the user rule written.
constexpr const char* kVersion3 = R"sql(
CREATE TABLE allow_grant (
  id          INTEGER PRIMARY KEY,
  code        TEXT    NOT NULL,
  fingerprint TEXT    NOT NULL,
  tool_name   TEXT    NOT NULL,
  input       TEXT    NOT NULL,
  cwd         TEXT,
  scope       TEXT    NOT NULL CHECK (scope IN ('once','until','always')),
  expires_at  TEXT,
  created_at  TEXT    NOT NULL,
  uses        INTEGER NOT NULL DEFAULT 0,
  revoked_at  TEXT,
  rule_id     TEXT
);
CREATE INDEX allow_grant_by_fingerprint ON allow_grant (fingerprint);
CREATE INDEX allow_grant_by_code ON allow_grant (code);
)sql";

// Version 4: the full-text index is written by the store's one evidence
// INSERT (taxonomy.cpp), in the same transaction, instead of by triggers.
// Every process parses the whole schema when it first uses a connection, and
// the three triggers were about a sixth of that work for each hook call,
// which never touches evidence. togmal never updates or deletes evidence rows.
constexpr const char* kVersion4 = R"sql(
DROP TRIGGER IF EXISTS evidence_fts_insert;
DROP TRIGGER IF EXISTS evidence_fts_delete;
DROP TRIGGER IF EXISTS evidence_fts_update;
)sql";

// Version 5: allow codes name the action, not the wording (allow_grants.cpp
// CallFingerprint): the grants are re-keyed (RekeyAllowGrants), and the coded
// calls of what-if questions (`togmal check`, which records no decision) are
// kept, the newest 1,000, so that `togmal allow CODE` finds them.
constexpr const char* kVersion5 = R"sql(
CREATE TABLE coded_call (
  id          INTEGER PRIMARY KEY,
  time        TEXT    NOT NULL,
  code        TEXT    NOT NULL,
  fingerprint TEXT    NOT NULL,
  tool_name   TEXT    NOT NULL,
  input       TEXT    NOT NULL,
  cwd         TEXT,
  decision    TEXT    NOT NULL,
  reason      TEXT
);
CREATE INDEX coded_call_by_code ON coded_call (code);
)sql";

// Version 6: how far each shipping destination (`togmal audit ship`,
// src/ship/) has acknowledged the audit trail: the last acknowledged id per
// destination. Pruning does not look at it (retention decides, as before).
constexpr const char* kVersion6 = R"sql(
CREATE TABLE ship_cursor (
  destination TEXT    PRIMARY KEY,
  through_id  INTEGER NOT NULL,
  updated_at  TEXT    NOT NULL
);
)sql";

// Version 7: which text a verdict is about (prompt or response). Before, it
// was the response when one was given, else the prompt ("-" stands for the
// half not given): existing entries keep that reading.
constexpr const char* kVersion7 = R"sql(
ALTER TABLE evidence ADD COLUMN judged TEXT NOT NULL DEFAULT 'response'
  CHECK (judged IN ('prompt','response'));
UPDATE evidence SET judged = 'prompt' WHERE response = '-';
)sql";

constexpr Migration kMigrations[] = {
    {1, kVersion1},
    {2, kVersion2},
    {3, kVersion3},
    {4, kVersion4},
    {5, kVersion5, &RekeyAllowGrants},
    {6, kVersion6},
    {7, kVersion7},
};

}  // namespace

std::span<const Migration> Migrations() { return kMigrations; }

}  // namespace togmal::store
