"""Property: any one edit or deletion of a row the results depend on, a reordering of entries, or a
truncation against a published head is caught by `tabulate verify`, which names it."""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_adjudicate_support import Env, fast_passwords, template_store  # noqa: F401
from test_adjudicate_tally import _decide_everything

from tabulate.adjudicate.schema import connect
from tabulate.commands.verify import check
from tabulate.store import journal, open_store

#: Columns whose value a result depends on, per table, and how a row names its fact in verify's message.
KEYS = {
    "sheets": ("id",),
    "votes": ("sheet_id", "contest_id"),
    "pages": ("sheet_id", "side"),
    "sheet_reasons": ("sheet_id", "seq"),
    "readings": ("sheet_id",),
    "batches": ("id",),
    "adj_decisions": ("id",),
}
COLUMNS = {
    "sheets": (
        ("status", "position", "identity", "style_id", "precinct_id", "duplicate_of", "recorded_at", "batch_id"),
        "id",
        "sheet",
    ),
    "votes": (
        ("status", "selections", "overvotes", "undervotes", "from_straight_party", "clauses", "modified"),
        "sheet_id",
        "sheet",
    ),
    "pages": (("source", "sha256"), "sheet_id", "sheet"),
    "sheet_reasons": (("code", "detail", "contest_id", "option_id"), "sheet_id", "sheet"),
    "readings": (("marks", "marks_z", "evidence"), "sheet_id", "sheet"),
    "batches": (("name", "vote_type", "precinct_id", "operator", "started_at", "ended_at", "tabulator"), "id", "batch"),
    "adj_decisions": (
        (
            "sheet_id",
            "round",
            "panel",
            "decided_by",
            "members",
            "payload",
            "before_votes",
            "after_votes",
            "write_ins",
            "why",
            "created_at",
        ),
        "id",
        "decision",
    ),
}
STATUSES = ("counted", "needs_review", "rejected", "duplicate")


@pytest.fixture(scope="module")
def decided_db(template_store, tmp_path_factory):
    from argon2 import PasswordHasher

    from tabulate.adjudicate import users

    root = tmp_path_factory.mktemp("decided")
    shutil.copy(template_store, root / "store.db")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(users, "_hasher", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))
        env = Env(root / "store.db", create_users=False)
        _decide_everything(env)
        env.close()
    raw = sqlite3.connect(root / "store.db")
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    return root / "store.db"


def _changed(column: str, value, table: str):
    if column == "status" and table == "sheets":
        return STATUSES[(STATUSES.index(value) + 1) % len(STATUSES)]
    if column == "decided_by":
        return "board" if value == "team" else "team"
    if column == "evidence":
        return zlib.compress(b'{"forged": true}')
    if column == "marks_z":  # schema 3's compressed marks: forged text, compressed as the store would
        return zlib.compress(b'{"marks": {"forged": {}}}')
    if isinstance(value, int):
        return value + 1000
    if value is None:
        return "forged"
    try:  # a JSON column: change what it says, not only its spacing (the store seals values)
        doc = json.loads(value)
    except ValueError:
        return value + "x"
    if isinstance(doc, list):
        return json.dumps(doc + ["forged"])
    if isinstance(doc, dict):
        return json.dumps({**doc, "forged": 1})
    return value + "x"


mutation = st.one_of(
    st.tuples(st.just("edit"), st.sampled_from(sorted(COLUMNS)), st.integers(0, 10_000), st.integers(0, 100)),
    st.tuples(st.just("delete"), st.sampled_from(sorted(COLUMNS)), st.integers(0, 10_000), st.just(0)),
    st.tuples(st.just("reorder"), st.just("journal"), st.integers(0, 10_000), st.just(0)),
    st.tuples(st.just("truncate"), st.just("journal"), st.integers(1, 10_000), st.just(0)),
)


def _apply(raw: sqlite3.Connection, kind: str, table: str, pick: int, col_pick: int) -> str:
    """Apply one mutation; return the words verify must use to name it."""
    raw.execute("DROP TRIGGER IF EXISTS journal_no_update")
    raw.execute("DROP TRIGGER IF EXISTS journal_no_delete")
    if table == "journal":
        n = raw.execute("SELECT COUNT(*) FROM journal").fetchone()[0]
        if kind == "truncate":
            raw.execute("DELETE FROM journal WHERE seq > ?", (n - 1 - pick % (n - 1),))
            return "published head"
        k = 1 + pick % (n - 1)
        cols = "at, kind, actor, sheet, data, facts, prev_hash, hash"
        a = raw.execute(f"SELECT {cols} FROM journal WHERE seq = ?", (k,)).fetchone()
        b = raw.execute(f"SELECT {cols} FROM journal WHERE seq = ?", (k + 1,)).fetchone()
        sql = (
            "UPDATE journal SET at = ?, kind = ?, actor = ?, sheet = ?, data = ?, facts = ?, prev_hash = ?, "
            "hash = ? WHERE seq = ?"
        )
        raw.execute(sql, (*b, k))
        raw.execute(sql, (*a, k + 1))
        return "journal entry"
    columns, owner, word = COLUMNS[table]
    keys = KEYS[table]
    where = " AND ".join(f"{k} = ?" for k in keys)
    rows = raw.execute(f"SELECT {', '.join(keys)}, {owner} FROM {table} ORDER BY {', '.join(keys)}").fetchall()
    row = rows[pick % len(rows)]
    key, owner_id = row[: len(keys)], row[-1]
    if kind == "delete":
        raw.execute(f"DELETE FROM {table} WHERE {where}", key)
    else:
        column = columns[col_pick % len(columns)]
        value = raw.execute(f"SELECT {column} FROM {table} WHERE {where}", key).fetchone()[0]
        raw.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (_changed(column, value, table), *key))
    return f"{word} {owner_id}"


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(mutation)
def test_any_one_tampering_is_caught_and_named(decided_db, tmp_path, m):
    db = Path(tempfile.mkdtemp(dir=tmp_path)) / "store.db"
    shutil.copy(decided_db, db)
    conn = connect(db)
    _, published = journal.head(conn)
    raw = sqlite3.connect(db, isolation_level=None)
    named = _apply(raw, *m)
    raw.close()
    store = open_store(db, create=False)
    try:
        result = check(store, conn, fast=False, from_head=published)
    finally:
        store.close()
        conn.close()
        shutil.rmtree(db.parent)
    assert not result.ok
    assert named in result.problem, (m, result.problem)
