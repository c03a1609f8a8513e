"""The hand-to-eye audit's rows sealed in the journal, and checked by `tabulate verify`.

31 KAR 4:230 Section 2(2): "Determinations and findings made by a County Board
of Elections following the hand-to-eye recount shall be recorded on a Form SBE
91". The audit's tables are append-only by trigger, but a trigger is no proof:
someone holding the store file drops it, and a counter's tally, the tape's
counts or the board's determination could then be edited to hide a
difference between the paper and the machine, and ``verify`` said nothing.

So every row is a fact the journal binds, like a decision
(`tabulate.adjudicate.sealing`): the entry that logs a selection, a tally, a
tape or a finding seals the row written in the same transaction, and
`handeye_fact_source` hands those rows to `tabulate.store.verify.verify_store`,
which names one that was edited, deleted or added outside tabulate.
"""

from __future__ import annotations

from typing import Iterator

from ...store import sqldb
from ...store.journal import digest
from ...store.sqldb import Connection
from ...store.verify import FactSource

#: Fact key prefix -> (table, the columns sealed, in order; ``id`` first), and how a clerk names the row.
TABLES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "he_audit:": (
        "he_audits",
        ("id", "created_at", "created_by", "tabulator", "contest_id", "selection", "prediction"),
        "hand-to-eye audit",
    ),
    "he_tally:": (
        "he_tallies",
        ("id", "audit_id", "attempt", "counter", "party", "counts", "entered_at", "entered_by"),
        "hand-to-eye tally",
    ),
    "he_tape:": ("he_tapes", ("id", "audit_id", "source", "counts", "entered_at", "entered_by"), "hand-to-eye tape"),
    "he_finding:": (
        "he_findings",
        ("id", "audit_id", "kind", "author", "party", "text", "at"),
        "hand-to-eye finding",
    ),
}


def _fact(columns: tuple[str, ...], row) -> dict:
    return dict(zip(columns, tuple(row)))


def seal_row(conn: Connection, prefix: str, row_id: int) -> dict[str, str]:
    """The fact of one audit row as it is now in the open transaction, for the entry that logs it."""
    table, columns, _ = TABLES[prefix]
    row = conn.execute(f"SELECT {', '.join(columns)} FROM {table} WHERE id = ?", (int(row_id),)).fetchone()
    return {f"{prefix}{row_id}": digest(_fact(columns, row))}


def handeye_facts(conn: Connection) -> Iterator[tuple[str, str]]:
    """Every audit row's fact key and digest (none in a store never audited)."""
    for prefix, (table, columns, _) in TABLES.items():
        if not sqldb.has_table(conn, table):
            continue
        for row in conn.execute(f"SELECT {', '.join(columns)} FROM {table} ORDER BY id"):
            yield f"{prefix}{row[0]}", digest(_fact(columns, row))


def _describe(key: str) -> str:
    for prefix, (_, _, words) in TABLES.items():
        if key.startswith(prefix):
            return f"{words} {key[len(prefix) :]}"
    return key


def handeye_fact_source(conn: Connection) -> FactSource:
    """The audit's rows as a `FactSource` for `tabulate.store.verify.verify_store`."""
    return FactSource(tuple(TABLES), lambda: handeye_facts(conn), _describe)
