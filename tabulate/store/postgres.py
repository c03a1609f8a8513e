"""The PostgreSQL store: several scan stations (and machines) writing one count.

``--db postgresql://user@host/dbname`` opens it. It is the SQLite store's
code (`SQLiteStore`) over a thin dialect layer (`tabulate.store.pgconn.PgConnection`), so both
backends run the same queries and keep the same rules; only the connection,
the transactions and the schema's DDL (`tabulate.store._pg_schema`) differ.

Exactly once across stations
----------------------------
SQLite serialises writers with ``BEGIN IMMEDIATE``. Here every write
transaction first takes one transaction-level advisory lock
(``pg_advisory_xact_lock``), so the duplicate checks and the inserts that
depend on them see one consistent database whichever station writes: the
same sheet fed on two stations is counted on the first to commit, and the
other copy is recorded as its duplicate. A station killed with ``kill -9``
loses its open transaction (PostgreSQL rolls it back when the connection
drops), so a sheet is all there or not at all, and the re-run records the
rest. Stations write groups of sheets (64 or 0.5 s), so the lock is held a
few milliseconds a second per station; reading images is where the time goes.

The UNIQUE keys, the CHECKs and the append-only trigger on ``events`` are in
the database, as in SQLite, so no client can break them by mistake.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

from . import _pg_schema
from .base import StoreError
from .pgconn import WRITE_LOCK, PgConnection
from .sqlite import SQLiteStore

__all__ = ["PostgresStore", "connect_postgres", "display_url", "migrate", "open_postgres"]


def display_url(url: str) -> str:
    """The URL without its password, for messages and ``store.path``."""
    return re.sub(r"(://[^:/@]+):[^@/]*@", r"\1:***@", url)


class PostgresStore(SQLiteStore):
    """`tabulate.store.Store` on a PostgreSQL database; open it with `open_postgres`."""

    @contextmanager
    def _transaction(self):
        import psycopg

        try:
            self._db.execute("BEGIN")
            try:
                self._db.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))
                yield self._db
            except BaseException:
                self._rollback()
                raise
            self._db.execute("COMMIT")
        except psycopg.OperationalError as e:
            raise StoreError(f"cannot write to the store {self.path}: {_first_line(e)}") from None

    def _rollback(self) -> None:
        import psycopg

        try:
            self._db.execute("ROLLBACK")
        except psycopg.Error:  # the connection is gone: the server rolls back by itself
            pass


def _first_line(e: Exception) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def migrate(conn: PgConnection) -> int:
    """Apply the missing migrations in order, under the write lock; return the schema version.

    Raises
    ------
    StoreError
        The database's schema is newer than this tabulate knows.
    """
    raw = conn.raw
    with raw.transaction():
        raw.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
        raw.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        row = raw.execute("SELECT version FROM schema_version").fetchone()
        current = int(row[0]) if row else 0
        if current > _pg_schema.SCHEMA_VERSION:
            raise StoreError(
                f"its schema version is {current}; this tabulate knows versions up to "
                f"{_pg_schema.SCHEMA_VERSION} (upgrade tabulate)"
            )
        for version in range(current, _pg_schema.SCHEMA_VERSION):
            raw.execute(_pg_schema.MIGRATIONS[version])
        raw.execute("DELETE FROM schema_version")
        raw.execute("INSERT INTO schema_version (version) VALUES (%s)", (_pg_schema.SCHEMA_VERSION,))
    return _pg_schema.SCHEMA_VERSION


def _holds_store(raw) -> bool:
    return raw.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()[0]


def connect_postgres(url: str) -> PgConnection:
    """A new connection to the database at ``url`` (autocommit; transactions are explicit), for
    adjudication, users, the review app and the audits, which write next to the store.

    Raises
    ------
    StoreError
        psycopg is missing, or the server cannot be reached or refuses the login.
    """
    try:
        import psycopg
    except ImportError:
        raise StoreError("a PostgreSQL store needs psycopg: pip install 'ballot-tabulate[postgres]'") from None
    try:
        raw = psycopg.connect(url, autocommit=True, connect_timeout=30)
    except psycopg.Error as e:
        raise StoreError(f"cannot connect to the store {display_url(url)}: {_first_line(e)}") from None
    return PgConnection(raw)


def open_postgres(url: str, *, create: bool = True) -> PostgresStore:
    """Connect to a PostgreSQL database and bring its schema up to date.

    ``create=False`` refuses a database that holds no store yet (for commands that only read).

    Raises
    ------
    StoreError
        The server cannot be reached or refuses the login, the database holds
        no store (with ``create=False``), or it was written by a newer tabulate.
    """
    import psycopg

    shown = display_url(url)
    conn = connect_postgres(url)
    raw = conn.raw
    try:
        if not create and not _holds_store(raw):
            raise StoreError(f"no store at {shown} (the database holds no tabulate tables yet)")
        migrate(conn)
    except psycopg.Error as e:
        raw.close()
        raise StoreError(f"cannot use {shown} as a store: {_first_line(e)}") from None
    except StoreError as e:
        raw.close()
        raise StoreError(f"cannot use {shown} as a store: {e}" if "schema version" in str(e) else str(e)) from None
    store = PostgresStore(conn, shown)
    store.location = url
    return store
