"""Decisions after they are made: written to the store, read back, and reopened; every step in the audit log.

A decision keeps who, when, the machine's reading before, the votes after,
and why (the reasons, the clauses, the note). It is written to the store's
``modified`` votes after it is committed here; a decision whose write to the
store failed is retried by `apply_pending`, so none is lost. Only a board
member reopens a decided ballot: the decision stays in the table and the log,
marked reopened, and the ballot goes to the board for a new round.

Recording the entries that make a decision is `tabulate.adjudicate.recording`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping

from ..store.sqldb import Connection, Row
from . import auditlog
from .entries import DecisionError, Entry, decided_votes
from .schema import transaction
from .sealing import seal_decision
from .source import Applied, SourceError, StoreSource
from .users import User


@dataclass(frozen=True)
class Decision:
    id: int
    sheet_id: str
    round: int
    panel: str
    decided_by: str
    members: tuple[str, ...]
    entry: Entry
    before: Mapping[str, Any]
    after: Mapping[str, Any]
    write_ins: Mapping[str, str | None]
    why: Mapping[str, Any]
    created_at: str
    applied: bool
    reopened_at: str | None = None
    reopen_reason: str | None = None


def _decision(row: Row) -> Decision:
    return Decision(
        row["id"],
        row["sheet_id"],
        row["round"],
        row["panel"],
        row["decided_by"],
        tuple(json.loads(row["members"])),
        Entry.from_json(json.loads(row["payload"])),
        json.loads(row["before_votes"]),
        json.loads(row["after_votes"]),
        json.loads(row["write_ins"]),
        json.loads(row["why"]),
        row["created_at"],
        bool(row["applied"]),
        row["reopened_at"],
        row["reopen_reason"],
    )


def apply_pending(conn: Connection, source: StoreSource) -> int:
    """Write every committed, unreopened decision not yet in the store to the store; return how many.

    Called after each decision and at every queue sync, so a crash between
    the commit here and the store's write loses nothing.
    """
    done = 0
    rows = conn.execute("SELECT * FROM adj_decisions WHERE applied = 0 AND reopened_at IS NULL ORDER BY id").fetchall()
    for row in rows:
        d = _decision(row)
        sheet = source.sheet(d.sheet_id)
        decided = decided_votes(source.election(), sheet, d.entry)
        note = f"decision {d.id} by {' & '.join(d.members)}" + (f": {d.entry.note}" if d.entry.note else "")
        try:
            source.apply(d.sheet_id, Applied(decided.votes, decided.write_ins, " & ".join(d.members), note))
        except (SourceError, KeyError) as e:
            auditlog.append(
                conn, "system", "apply_failed", sheet_id=d.sheet_id, detail={"decision": d.id, "error": str(e)}
            )
            continue
        conn.execute("UPDATE adj_decisions SET applied = 1 WHERE id = ? AND applied = 0", (d.id,))
        done += 1
    return done


def reopen(conn: Connection, source: StoreSource, sheet_id: str, user: User, reason: str) -> int:
    """Reopen a decided ballot for the board; return the new round.

    Raises
    ------
    PermissionError
        ``user`` is not a board member.
    DecisionError
        No reason was given, or the ballot is not decided.
    """
    if not user.may("reopen"):
        raise PermissionError("only a member of the county board may reopen a decided ballot")
    reason = reason.strip()
    if not reason:
        raise DecisionError(["say why the ballot is reopened"])
    with transaction(conn):
        row = conn.execute(
            "SELECT round FROM adj_ballots WHERE sheet_id = ? AND state = 'decided'", (sheet_id,)
        ).fetchone()
        if row is None:
            raise DecisionError([f"ballot {sheet_id} is not decided"])
        rnd = row[0]
        dec = conn.execute("SELECT id FROM adj_decisions WHERE sheet_id = ? AND round = ?", (sheet_id, rnd)).fetchone()
        conn.execute(
            "UPDATE adj_decisions SET reopened_at = ?, reopened_by = ?, reopen_reason = ? "
            "WHERE sheet_id = ? AND round = ?",
            (auditlog._now(), user.id, reason[:1000], sheet_id, rnd),
        )
        conn.execute(
            "UPDATE adj_ballots SET state = 'board', round = round + 1, lease_panel = NULL, "
            "lease_user = NULL, lease_expires = NULL, updated_at = ? WHERE sheet_id = ?",
            (auditlog._now(), sheet_id),
        )
        auditlog.append(
            conn,
            user.name,
            "reopen",
            sheet_id=sheet_id,
            detail={"round": rnd, "new_round": rnd + 1, "decision": dec[0] if dec else None, "reason": reason[:1000]},
            facts=seal_decision(conn, dec[0]) if dec else None,
        )
    source.unapply(sheet_id, actor=user.name, note=f"reopened: {reason[:200]}")
    return rnd + 1


def decisions(conn: Connection, *, sheet_id: str | None = None, current_only: bool = False) -> list[Decision]:
    sql, args = "SELECT * FROM adj_decisions", []
    where = []
    if sheet_id is not None:
        where.append("sheet_id = ?")
        args.append(sheet_id)
    if current_only:
        where.append("reopened_at IS NULL")
    if where:
        sql += " WHERE " + " AND ".join(where)
    return [_decision(r) for r in conn.execute(sql + " ORDER BY id", args)]


__all__ = [
    "Decision",
    "apply_pending",
    "decisions",
    "reopen",
]
