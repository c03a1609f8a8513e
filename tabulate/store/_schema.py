"""The SQLite schema as ordered migrations.

``schema_version`` holds one row: how many of `MIGRATIONS` have been applied.
Opening a store applies the missing ones in order, each in its own
transaction, so a store written by an older tabulate is brought forward and
one written by a newer tabulate is refused rather than misread.

A migration is append-only history: never edit one that has shipped, add the
next.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

_V1 = """
CREATE TABLE election (
    id          INTEGER PRIMARY KEY CHECK (id = 1),   -- one election per store
    hash        TEXT NOT NULL,
    title       TEXT NOT NULL,
    definition  TEXT NOT NULL,                        -- canonical JSON, hashes to `hash`
    bound_at    TEXT NOT NULL
);

CREATE TABLE batches (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    vote_type   TEXT NOT NULL,
    precinct_id TEXT,
    operator    TEXT,
    started_at  TEXT NOT NULL,
    ended_at    TEXT,
    tabulator   TEXT NOT NULL DEFAULT '1'    -- the scanner or station (NIST CVR CreatingDeviceId)
);

CREATE TABLE sheets (
    id             INTEGER PRIMARY KEY,
    batch_id       INTEGER NOT NULL REFERENCES batches(id),
    position       INTEGER NOT NULL,
    identity       TEXT NOT NULL,
    occurrence     INTEGER NOT NULL DEFAULT 0,
    status         TEXT NOT NULL CHECK (status IN ('counted', 'needs_review', 'rejected', 'duplicate')),
    style_id       TEXT,
    precinct_id    TEXT,
    straight_party TEXT,
    blank          INTEGER NOT NULL DEFAULT 0,
    duplicate_of   INTEGER REFERENCES sheets(id),
    recorded_at    TEXT NOT NULL,
    -- the exactly-once key: a batch holds a given content at most once per occurrence
    UNIQUE (batch_id, identity, occurrence),
    -- where a person finds the paper: one sheet per place in a batch
    UNIQUE (batch_id, position)
);
CREATE INDEX sheets_identity ON sheets(identity);
CREATE INDEX sheets_status ON sheets(status);

CREATE TABLE pages (
    sheet_id INTEGER NOT NULL REFERENCES sheets(id),
    side     INTEGER NOT NULL,        -- 1 = first page fed (front), 2 = second
    source   TEXT NOT NULL,
    sha256   TEXT NOT NULL,
    PRIMARY KEY (sheet_id, side)
) WITHOUT ROWID;
CREATE INDEX pages_sha256 ON pages(sha256);

CREATE TABLE sheet_reasons (
    sheet_id   INTEGER NOT NULL REFERENCES sheets(id),
    seq        INTEGER NOT NULL,
    code       TEXT NOT NULL,
    detail     TEXT NOT NULL DEFAULT '',
    contest_id TEXT,
    option_id  TEXT,
    -- 1 if this reason put the sheet where it is (a reason the election queues for
    -- review, or why it was set aside); 0 for a reason only noted (an undervote)
    queued     INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (sheet_id, seq)
) WITHOUT ROWID;
CREATE INDEX sheet_reasons_code ON sheet_reasons(code);

CREATE TABLE readings (
    sheet_id INTEGER PRIMARY KEY REFERENCES sheets(id),
    evidence BLOB,                    -- the reader's evidence: zlib-compressed JSON (about 6x smaller)
    marks    TEXT                     -- the marks the rules read (JSON)
);

CREATE TABLE votes (
    sheet_id           INTEGER NOT NULL REFERENCES sheets(id),
    contest_id         TEXT NOT NULL,
    seq                INTEGER NOT NULL,   -- ballot order
    status             TEXT NOT NULL,
    selections         TEXT NOT NULL,      -- JSON list of option ids
    overvotes          INTEGER NOT NULL,
    undervotes         INTEGER NOT NULL,
    from_straight_party INTEGER NOT NULL,
    clauses            TEXT NOT NULL,      -- JSON list
    modified           TEXT,               -- JSON ContestVotes after adjudication, NULL if untouched
    PRIMARY KEY (sheet_id, contest_id)
) WITHOUT ROWID;

CREATE TABLE events (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    at        TEXT NOT NULL,
    kind      TEXT NOT NULL,
    actor     TEXT,
    batch_id  INTEGER REFERENCES batches(id),
    sheet_id  INTEGER REFERENCES sheets(id),
    data      TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
-- The log is append-only: the database itself refuses edits and deletions.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""


#: Version 2: the one journal (tabulate.store.journal). ``IF NOT EXISTS`` because
#: adjudication may have created it in a file the store had not yet migrated.
#: The old ``events`` table stays, read-only history, its head sealed in the
#: journal's first entry when the store is next opened.
_V2 = """
CREATE TABLE IF NOT EXISTS journal (
    seq       INTEGER PRIMARY KEY,
    at        TEXT NOT NULL,
    kind      TEXT NOT NULL,
    actor     TEXT,
    sheet     TEXT,
    data      TEXT NOT NULL,
    facts     TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS journal_sheet ON journal(sheet);
CREATE INDEX IF NOT EXISTS journal_kind ON journal(kind);
CREATE TRIGGER IF NOT EXISTS journal_no_update BEFORE UPDATE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER IF NOT EXISTS journal_no_delete BEFORE DELETE ON journal
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
"""


#: Version 3: a smaller store (docs/store.md, `tabulate.store.evidence`). New rows keep the reader's
#: evidence as a compact binary blob in ``evidence`` and the marks zlib-compressed in ``marks_z``
#: (``marks`` NULL). Rows written before stay as they are, sealed as they are: the decoder reads both.
_V3 = """
ALTER TABLE readings ADD COLUMN marks_z BLOB;
"""


#: Version 4: signed journal entries (docs/security.md). ``signer`` is the public key (hex) of the
#: station that wrote the entry, ``signature`` its Ed25519 signature of the entry's hash
#: (`tabulate.store.journal_signing`); both NULL for an entry written before, or in a store
#: that registers no station. The append-only triggers already cover the new columns.
_V4 = """
ALTER TABLE journal ADD COLUMN signer TEXT;
ALTER TABLE journal ADD COLUMN signature TEXT;
"""


def _statements(script: str):
    """Split a script into statements (``executescript`` would commit mid-migration)."""
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            yield buf
            buf = ""
    if buf.strip():
        raise ValueError(f"incomplete SQL statement: {buf[:60]!r}")


def _v1(db: sqlite3.Connection) -> None:
    for statement in _statements(_V1):
        db.execute(statement)


def _v2(db: sqlite3.Connection) -> None:
    for statement in _statements(_V2):
        db.execute(statement)


def _v3(db: sqlite3.Connection) -> None:
    # SQLite has no ADD COLUMN IF NOT EXISTS: a file whose version was set back by hand keeps its column.
    if "marks_z" in {row[1] for row in db.execute("PRAGMA table_info(readings)")}:
        return
    for statement in _statements(_V3):
        db.execute(statement)


def _v4(db: sqlite3.Connection) -> None:
    # Adjudication may have added them already (`ensure_journal`), so only what is missing.
    have = {row[1] for row in db.execute("PRAGMA table_info(journal)")}
    for statement in _statements(_V4):
        if statement.split()[5] not in have:
            db.execute(statement)


def ensure_journal(db: sqlite3.Connection) -> None:
    """Create the journal table, with its signature columns, if missing (for adjudication opening a file on its own)."""
    _v2(db)
    _v4(db)


#: Ordered migrations; ``MIGRATIONS[n]`` takes schema version n to n + 1.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1, _v2, _v3, _v4)
SCHEMA_VERSION = len(MIGRATIONS)


def schema_version(db: sqlite3.Connection) -> int:
    """The store's schema version (0 for an empty database)."""
    has_table = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").fetchone()
    if not has_table:
        return 0
    row = db.execute("SELECT version FROM schema_version").fetchone()
    return int(row[0]) if row else 0


def migrate(db: sqlite3.Connection) -> int:
    """Apply the missing migrations in order; return the version the store had before.

    Raises
    ------
    ValueError
        The store's schema is newer than this tabulate knows.
    """
    current = schema_version(db)
    if current > SCHEMA_VERSION:
        raise ValueError(
            f"its schema version is {current}; this tabulate knows versions up to {SCHEMA_VERSION} (upgrade tabulate)"
        )
    for version in range(current, SCHEMA_VERSION):
        db.execute("BEGIN IMMEDIATE")
        try:
            if version == 0:
                db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            # Another process may have migrated while we waited for the lock.
            if schema_version(db) != version:
                db.execute("ROLLBACK")
                continue
            MIGRATIONS[version](db)
            db.execute("DELETE FROM schema_version")
            db.execute("INSERT INTO schema_version (version) VALUES (?)", (version + 1,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return current
