"""Adjudication's own tables, in the same database as the store (a SQLite file or PostgreSQL).

Every table here is prefixed ``adj_`` and made by the versioned `MIGRATIONS`,
which `migrate` applies at every start (only the missing ones). The DDL is
written once, in SQLite's dialect; `tabulate.store.sqldb.pg_ddl` gives
PostgreSQL's types. The store's tables are
never touched here; adjudication reads and writes them through the store's
interface (`tabulate.adjudicate.source`).

Adjudication's log is the store's one journal (`tabulate.store.journal`):
`migrate` makes sure its table exists. Files from before the journal keep
their old ``adj_log`` table as read-only history.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ..core.errors import TabulateError
from ..store import journal, sqldb
from ..store.sqldb import Connection

ROLES: tuple[str, ...] = ("operator", "reviewer", "board", "admin", "auditor")
_ROLE_LIST = ", ".join(repr(r) for r in ROLES)

_TABLES = f"""
CREATE TABLE IF NOT EXISTS adj_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS adj_users (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    role          TEXT NOT NULL CHECK (role IN ({_ROLE_LIST})),
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
    last_seen  REAL NOT NULL,
    accounts   TEXT
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


def connect(path: str | Path, *, timeout_s: float = 30.0) -> Connection:
    """Open the store's database for adjudication (`tabulate.store.sqldb.connect`): a SQLite file or a
    ``postgresql://`` URL, in autocommit mode; transactions are explicit (`transaction`).

    Raises
    ------
    StoreError
        A PostgreSQL server that cannot be reached or refuses the login.
    """
    return sqldb.connect(path, timeout_s=timeout_s)


@contextmanager
def transaction(conn: Connection) -> Iterator[Connection]:
    """A write transaction taken at once (``BEGIN IMMEDIATE``), so check-then-write is atomic.

    On PostgreSQL the dialect layer takes the store's write lock there instead
    (`tabulate.store.pgconn`), so several review app servers on one database
    check and write one after the other, as on one SQLite file.
    Nested use joins the outer transaction.
    """
    if conn.in_transaction:
        yield conn
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        _rollback(conn)
        raise
    conn.execute("COMMIT")


def _rollback(conn: Connection) -> None:
    try:
        conn.execute("ROLLBACK")
    except Exception:  # the connection is gone: the server (or SQLite's journal) rolls back by itself
        if not sqldb.is_postgres(conn):
            raise


def _v1(conn: Connection) -> None:
    """The tables, as first shipped (with every role of `ROLES`)."""
    if sqldb.is_postgres(conn):
        sqldb.run_script(conn, sqldb.NOCASE_COLLATION)
    sqldb.run_script(conn, _TABLES)
    if sqldb.is_postgres(conn):
        # The reasons are read in the order they were written (SQLite's rowid).
        conn.execute("ALTER TABLE adj_reasons ADD COLUMN IF NOT EXISTS rowid BIGINT GENERATED ALWAYS AS IDENTITY")


def _v2(conn: Connection) -> None:
    """The ``auditor`` role: stores made before it existed have a CHECK on ``adj_users.role`` that refuses it.

    SQLite cannot change a CHECK in place, so the table is rebuilt (create the
    new one, copy, drop the old, rename: SQLite's documented way, with foreign
    keys off around the transaction, see `migrate`). PostgreSQL replaces the constraint.
    """
    sqldb.run_script(conn, _TABLES)  # version 1 ran this script at every start: any table it lacks
    if sqldb.is_postgres(conn):
        conn.execute("ALTER TABLE adj_users DROP CONSTRAINT IF EXISTS adj_users_role_check")
        conn.execute(f"ALTER TABLE adj_users ADD CONSTRAINT adj_users_role_check CHECK (role IN ({_ROLE_LIST}))")
        return
    ddl = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'adj_users'").fetchone()[0]
    if all(f"'{role}'" in ddl for role in ROLES):
        return
    table = _TABLES[
        _TABLES.index("CREATE TABLE IF NOT EXISTS adj_users") : _TABLES.index("CREATE TABLE IF NOT EXISTS adj_throttle")
    ]
    conn.execute(table.replace("IF NOT EXISTS adj_users", "adj_users_new"))
    columns = ", ".join(r[1] for r in conn.execute("PRAGMA table_info(adj_users)"))
    conn.execute(f"INSERT INTO adj_users_new ({columns}) SELECT {columns} FROM adj_users")
    conn.execute("DROP TABLE adj_users")
    conn.execute("ALTER TABLE adj_users_new RENAME TO adj_users")
    if conn.execute("PRAGMA foreign_key_check").fetchone() is not None:
        raise SchemaError("rebuilding adj_users for the auditor role would break a reference; nothing was changed")


def _v3(conn: Connection) -> None:
    """Seal every account as it is now in the journal (trust on first use), as a store upgraded to the journal is.

    Accounts made since are sealed as they are added, disabled, enabled or
    rehashed (`tabulate.adjudicate.sealing.seal_user`); sign-in refuses an
    account that differs from its seal, and ``verify`` names it. A session
    keeps the seal of its accounts at sign-in (``adj_sessions.accounts``) and
    ends if the account row changes under it.
    """
    from .sealing import user_facts

    if sqldb.is_postgres(conn):
        conn.execute("ALTER TABLE adj_sessions ADD COLUMN IF NOT EXISTS accounts TEXT")
    elif "accounts" not in {r[1] for r in conn.execute("PRAGMA table_info(adj_sessions)")}:
        conn.execute("ALTER TABLE adj_sessions ADD COLUMN accounts TEXT")
    facts = dict(user_facts(conn))
    if facts:
        journal.append(conn, "users_sealed", actor="system", data={"accounts": len(facts)}, facts=facts)


#: Ordered migrations; ``MIGRATIONS[n]`` takes adjudication's tables from version n to n + 1 (never edit a
#: shipped one: add the next).
MIGRATIONS = (_v1, _v2, _v3)
SCHEMA_VERSION = len(MIGRATIONS)
#: The version from which every account is sealed in the journal (`_v3`).
ACCOUNTS_SEALED_FROM = 3


def schema_version(conn: Connection) -> int:
    """The version adjudication's tables are at (0 before any)."""
    return _version(conn)


def _version(conn: Connection) -> int:
    if not sqldb.has_table(conn, "adj_meta"):
        return 0
    row = conn.execute("SELECT value FROM adj_meta WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def migrate(conn: Connection) -> None:
    """Bring adjudication's tables up to `SCHEMA_VERSION`, one migration per transaction; refuse a newer schema.

    Runs at every start; another process migrating at the same moment waits for
    the write lock and then finds the work done.
    """
    current = _version(conn)
    if current > SCHEMA_VERSION:
        raise SchemaError(
            f"the adjudication tables are version {current}; this program knows "
            f"version {SCHEMA_VERSION}: upgrade ballot-tabulate"
        )
    _journal_table(conn)
    sqlite = not sqldb.is_postgres(conn)
    for version in range(current, SCHEMA_VERSION):
        if sqlite:  # a table rebuild needs foreign keys off, which SQLite only changes outside a transaction
            conn.execute("PRAGMA foreign_keys=OFF")
        try:
            with transaction(conn):
                if _version(conn) != version:  # another process got here first
                    continue
                MIGRATIONS[version](conn)
                conn.execute("CREATE TABLE IF NOT EXISTS adj_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                conn.execute(
                    "INSERT INTO adj_meta (key, value) VALUES ('schema_version', ?) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(version + 1),),
                )
        finally:
            if sqlite:
                conn.execute("PRAGMA foreign_keys=ON")


def _journal_table(conn: Connection) -> None:
    """The store's journal, which seals adjudication's decisions, must exist before they are written."""
    if sqldb.is_postgres(conn):
        from ..store.postgres import migrate as migrate_store

        migrate_store(conn)  # the store's tables (the journal among them), as `tabulate scan` makes them
    else:
        journal.ensure_table(conn)
