"""Adjudication's own tables, in the same SQLite file as the store.

Every table here is prefixed ``adj_`` and created by `migrate`, which is
idempotent: it runs at every start and only ever adds. The store's tables are
never touched here; adjudication reads and writes them through the store's
interface (`tabulate.adjudicate.source`).

Adjudication's log is the store's one journal (`tabulate.store.journal`):
`migrate` makes sure its table exists. Files from before the journal keep
their old ``adj_log`` table as read-only history.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..core.errors import TabulateError
from ..store import journal

SCHEMA_VERSION = 1

ROLES: tuple[str, ...] = ("operator", "reviewer", "board", "admin", "auditor")

_TABLES = f"""
CREATE TABLE IF NOT EXISTS adj_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS adj_users (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    role          TEXT NOT NULL CHECK (role IN ({", ".join(repr(r) for r in ROLES)})),
    party         TEXT,
    password_hash TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    disabled      INTEGER NOT NULL DEFAULT 0,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    locked_until  REAL
);
CREATE TABLE IF NOT EXISTS adj_throttle (
    address      TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL,
    next_allowed REAL NOT NULL,
    last_at      REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS adj_sessions (
    token_hash TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES adj_users(id),
    partner_id INTEGER REFERENCES adj_users(id),
    csrf       TEXT NOT NULL,
    created_at REAL NOT NULL,
    last_seen  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS adj_teams (
    id           INTEGER PRIMARY KEY,
    member_a     INTEGER NOT NULL REFERENCES adj_users(id),
    member_b     INTEGER NOT NULL REFERENCES adj_users(id),
    formed_at    TEXT NOT NULL,
    dissolved_at TEXT,
    CHECK (member_a <> member_b)
);
CREATE TABLE IF NOT EXISTS adj_invites (
    id         INTEGER PRIMARY KEY,
    from_user  INTEGER NOT NULL REFERENCES adj_users(id),
    to_user    INTEGER NOT NULL REFERENCES adj_users(id),
    created_at REAL NOT NULL,
    UNIQUE (from_user, to_user)
);
CREATE TABLE IF NOT EXISTS adj_ballots (
    sheet_id      TEXT PRIMARY KEY,
    batch         TEXT NOT NULL DEFAULT '',
    position      INTEGER NOT NULL DEFAULT 0,
    precinct_id   TEXT,
    style_id      TEXT,
    priority      INTEGER NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('open', 'board', 'decided')),
    round         INTEGER NOT NULL DEFAULT 1,
    lease_panel   TEXT,
    lease_user    INTEGER,
    lease_expires REAL,
    manual        INTEGER NOT NULL DEFAULT 0,
    updated_at    TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS adj_ballots_queue ON adj_ballots (state, priority, batch, position, sheet_id);
CREATE TABLE IF NOT EXISTS adj_reasons (
    sheet_id   TEXT NOT NULL REFERENCES adj_ballots(sheet_id),
    code       TEXT NOT NULL,
    contest_id TEXT,
    option_id  TEXT,
    detail     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS adj_reasons_sheet ON adj_reasons (sheet_id);
CREATE INDEX IF NOT EXISTS adj_reasons_code ON adj_reasons (code, sheet_id);
CREATE TABLE IF NOT EXISTS adj_entries (
    id         INTEGER PRIMARY KEY,
    sheet_id   TEXT NOT NULL REFERENCES adj_ballots(sheet_id),
    round      INTEGER NOT NULL,
    panel      TEXT NOT NULL,
    user_id    INTEGER NOT NULL REFERENCES adj_users(id),
    digest     TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (sheet_id, round, panel, user_id)
);
CREATE TABLE IF NOT EXISTS adj_decisions (
    id            INTEGER PRIMARY KEY,
    sheet_id      TEXT NOT NULL REFERENCES adj_ballots(sheet_id),
    round         INTEGER NOT NULL,
    panel         TEXT NOT NULL,
    decided_by    TEXT NOT NULL CHECK (decided_by IN ('team', 'board')),
    members       TEXT NOT NULL,
    payload       TEXT NOT NULL,
    before_votes  TEXT NOT NULL,
    after_votes   TEXT NOT NULL,
    write_ins     TEXT NOT NULL,
    why           TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    applied       INTEGER NOT NULL DEFAULT 0,
    reopened_at   TEXT,
    reopened_by   INTEGER REFERENCES adj_users(id),
    reopen_reason TEXT,
    UNIQUE (sheet_id, round)
);
"""


class SchemaError(TabulateError, RuntimeError):
    """The database holds adjudication tables of a newer version than this program knows."""

    code = "review_schema"


def connect(path: str | Path, *, timeout_s: float = 30.0) -> sqlite3.Connection:
    """Open the store's SQLite file for adjudication: autocommit, WAL, foreign keys.

    Transactions are explicit (`transaction`), so ``isolation_level=None``.
    ``check_same_thread=False`` lets a web worker thread use a connection it
    did not open; each request still gets its own connection.
    """
    conn = sqlite3.connect(str(path), timeout=timeout_s, isolation_level=None, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    conn.execute(f"PRAGMA busy_timeout={int(timeout_s * 1000)}")
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction taken at once (``BEGIN IMMEDIATE``), so check-then-write is atomic.

    Nested use joins the outer transaction.
    """
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def migrate(conn: sqlite3.Connection) -> None:
    """Create the adjudication tables if they are missing; refuse a newer schema."""
    conn.execute("CREATE TABLE IF NOT EXISTS adj_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    row = conn.execute("SELECT value FROM adj_meta WHERE key = 'schema_version'").fetchone()
    if row is not None and int(row[0]) > SCHEMA_VERSION:
        raise SchemaError(
            f"the adjudication tables are version {row[0]}; this program knows "
            f"version {SCHEMA_VERSION}: upgrade ballot-tabulate"
        )
    journal.ensure_table(conn)
    # executescript commits any open transaction first, so the script carries its own.
    try:
        conn.executescript(
            "BEGIN IMMEDIATE;"
            + _TABLES
            + "INSERT OR REPLACE INTO adj_meta (key, value) "
            + f"VALUES ('schema_version', '{SCHEMA_VERSION}');COMMIT;"
        )
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
