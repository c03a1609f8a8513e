"""The dialect layer: a psycopg 3 connection that answers the sqlite3 calls tabulate makes.

The store, adjudication, users, the review app, ``verify`` and the audits
are written once, against sqlite3's connection (``execute``, ``lastrowid``,
``in_transaction``, rows read by position or by column name, ``?``
parameters, ``BEGIN IMMEDIATE``). `PgConnection` gives the same calls on a
PostgreSQL database, so both backends run the same queries and keep the same
rules; no query exists twice.

What it translates, and why each is safe
----------------------------------------
``?`` -> ``%s``
    psycopg's parameter style (a literal ``%`` is doubled).
``BEGIN IMMEDIATE``
    SQLite takes the one write lock up front so check-then-write is atomic.
    Here ``BEGIN`` then the transaction-level advisory lock `WRITE_LOCK`, the
    same lock the store's writes take: scan stations and every review app
    server write one after the other, as on SQLite.
``group_concat(x)``
    ``string_agg(x, ',')``: the same comma-joined text.
``FROM journal ORDER BY rowid``
    The journal's physical order is ``seq``, its primary key, written in
    order under the write lock.
``INSERT`` into a table with an ``id`` identity
    gets ``RETURNING id``, which is sqlite3's ``lastrowid``.
Python booleans
    are sent as 0/1: the flag columns are INTEGER on both backends.
Integrity errors
    (UNIQUE, CHECK, foreign key) are raised as ``sqlite3.IntegrityError``, so
    the callers' one ``except`` serves both backends.
"""

from __future__ import annotations

import re
import sqlite3
from functools import lru_cache
from typing import Any, ClassVar, Sequence

#: The advisory lock every write transaction takes (any constant: "tabulate" in ASCII).
WRITE_LOCK = 0x7461_6275_6C61_7465

#: Tables whose ``id`` is an identity: an ``INSERT`` into one returns it (``lastrowid``).
_ID_TABLES = (
    "batches|sheets|adj_users|adj_teams|adj_invites|adj_entries|adj_decisions|he_audits|he_tallies|he_tapes|he_findings"
)
_INSERT_WITH_ID = re.compile(rf"^\s*INSERT INTO ({_ID_TABLES})\b", re.IGNORECASE)
_GROUP_CONCAT = re.compile(r"group_concat\(([\w.]+)\)", re.IGNORECASE)


@lru_cache(maxsize=1024)
def to_pg(sql: str) -> str:
    """An SQLite-style statement in PostgreSQL's dialect (see the module docstring for each rewrite)."""
    sql = sql.replace("%", "%%").replace("?", "%s")
    sql = sql.replace("FROM journal ORDER BY rowid", "FROM journal ORDER BY seq")
    return _GROUP_CONCAT.sub(r"string_agg(\1, ',')", sql)


@lru_cache(maxsize=256)
def _row_class(names: tuple[str, ...]) -> type:
    index = {n: i for i, n in enumerate(names)}

    class _Row(Row):
        __slots__ = ()
        _index = index

    return _Row


class Row(tuple):
    """A result row read by position (``row[0]``) or by column name (``row["name"]``), as ``sqlite3.Row``."""

    __slots__ = ()
    _index: ClassVar[dict[str, int]] = {}

    def __getitem__(self, key):  # type: ignore[override]
        if isinstance(key, str):
            return tuple.__getitem__(self, self._index[key])
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._index)


def _row_factory(cursor):
    names = tuple(c.name for c in cursor.description or ())
    cls = _row_class(names)
    return cls


class Cursor:
    """A psycopg cursor with sqlite3's ``lastrowid`` (the id an ``INSERT`` gave, via ``RETURNING id``)."""

    def __init__(self, cursor, lastrowid: int | None = None):
        self._cursor = cursor
        self.lastrowid = lastrowid

    def __getattr__(self, name):
        return getattr(self._cursor, name)

    def __iter__(self):
        return iter(self._cursor)


def _params(params: Sequence[Any]) -> tuple:
    # Always a tuple, even empty: with None psycopg would send the text unparsed, ``%%`` and all.
    return tuple(int(p) if isinstance(p, bool) else p for p in params)


class PgConnection:
    """The few sqlite3 connection calls tabulate makes, on a psycopg 3 connection in autocommit mode."""

    #: Set by code written for sqlite3 (``conn.row_factory = sqlite3.Row``); rows here are always `Row`.
    row_factory: Any = None

    def __init__(self, conn):
        self.raw = conn
        conn.row_factory = _row_factory

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.raw.info.transaction_status != TransactionStatus.IDLE

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        import psycopg

        cur = self.raw.cursor()
        try:
            if sql.strip().upper() == "BEGIN IMMEDIATE":
                cur.execute("BEGIN")
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
                return Cursor(cur)
            if _INSERT_WITH_ID.match(sql) and "RETURNING" not in sql.upper():
                cur.execute(to_pg(sql) + " RETURNING id", _params(params))
                row = cur.fetchone()
                return Cursor(cur, row[0] if row else None)
            cur.execute(to_pg(sql), _params(params))
        except psycopg.IntegrityError as e:
            raise sqlite3.IntegrityError(_first_line(e)) from e
        return Cursor(cur)

    def executemany(self, sql: str, rows) -> Cursor:
        import psycopg

        cur = self.raw.cursor()
        rows = [_params(r) for r in rows]
        try:
            if rows:
                cur.executemany(to_pg(sql), rows)
        except psycopg.IntegrityError as e:
            raise sqlite3.IntegrityError(_first_line(e)) from e
        return Cursor(cur)

    def close(self) -> None:
        self.raw.close()


def _first_line(e: Exception) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]
