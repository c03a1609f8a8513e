"""Adjudication's rows sealed in the journal: each decision, as written and as reopened.

The results read a decision's ``after_votes`` and ``write_ins`` (see
`tabulate.adjudicate.records`), so a decision row is a fact the journal
binds (`tabulate.store.journal`): the entry that records a decision seals the
row, and a reopening seals it again with its ``reopened_*`` columns.
``applied`` is left out: it only says the store has been told (the store
seals its own copy of the votes).
"""

from __future__ import annotations

from typing import Iterator

from ..store import sqldb
from ..store.journal import digest
from ..store.sqldb import Connection

#: The key prefix of a decision's fact.
DECISION = "decision:"

_SEALED = (
    "id",
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
    "reopened_at",
    "reopened_by",
    "reopen_reason",
)
_COLS = ", ".join(_SEALED)


def decision_fact(row) -> dict:
    """A decision row as the journal seals it (every column but ``applied``, as stored)."""
    return dict(zip(_SEALED, tuple(row)))


def seal_decision(conn: Connection, decision_id: int) -> dict[str, str]:
    """The fact of one decision as it is now in the open transaction, for the entry that records it."""
    row = conn.execute(f"SELECT {_COLS} FROM adj_decisions WHERE id = ?", (decision_id,)).fetchone()
    return {f"{DECISION}{decision_id}": digest(decision_fact(row))}


def decision_facts(conn: Connection) -> Iterator[tuple[str, str]]:
    """Every decision row's fact key and digest (none in a store nobody has reviewed)."""
    if not sqldb.has_table(conn, "adj_decisions"):
        return
    for row in conn.execute(f"SELECT {_COLS} FROM adj_decisions ORDER BY id"):
        yield f"{DECISION}{row[0]}", digest(decision_fact(row))
