"""Recording entries, and deciding a ballot when its panel agrees; every step in the audit log.

Who decides is the election's setting ``adjudication.decided_by``:

- ``"team"``: each of the two members of a team records their own entry,
  without seeing the other's (on two screens, or one after the other at one
  screen). Equal entries decide the ballot; different entries send it to the
  county board. A team "must agree" (31 KAR 4:220 §7(1) pairs them for that).
- ``"board"``: each board member records an entry; the first entry that a
  majority of the county board shares decides (4:220 §9(12)(a): "by majority
  vote of the county board of elections"). The board's size is fixed in the
  election (``adjudication.board_members``), not the accounts enabled now.

The decision itself, after it is made (written to the store, read, reopened),
is `tabulate.adjudicate.decisions`.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Mapping

from ..rules import votes_to_dict
from ..store.sqldb import Connection, Row
from . import auditlog
from .entries import MAX_NOTE_CHARS, DecidedVotes, Entry, decided_votes
from .leases import LeaseLost, hand_over, panel_state
from .panels import BOARD, Panel, board_quorum
from .schema import transaction
from .sealing import seal_decision
from .source import ReviewSheet, StoreSource
from .users import User

#: What `record_entry` reports.
WAITING, DECIDED, ESCALATED, NO_MAJORITY = "waiting", "decided", "escalated", "no_majority"


@dataclass(frozen=True)
class RecordResult:
    status: str  # WAITING | DECIDED | ESCALATED | NO_MAJORITY
    decision_id: int | None = None
    entries: int = 0
    needed: int = 0
    message: str = ""


def _dumps(value) -> str:
    return auditlog.canonical(value).decode("utf-8")


def before_of(sheet: ReviewSheet) -> dict:
    """The machine's reading, as kept with a decision: votes, reasons, and the scores of flagged targets."""
    scores = {}
    if sheet.marks is not None:
        for r in sheet.reasons:
            if r.contest_id and r.option_id:
                m = sheet.marks.marks.get(r.contest_id, {}).get(r.option_id)
                if m is not None:
                    scores[f"{r.contest_id}/{r.option_id}"] = {
                        "scan": m.scan,
                        "hand": m.hand,
                        "score": m.score,
                        "write_in_ink": m.write_in_ink,
                    }
    return {
        "status": sheet.status,
        "votes": votes_to_dict(sheet.interpreted) if sheet.interpreted is not None else None,
        "reasons": [
            {"code": r.code, "contest": r.contest_id, "option": r.option_id, "detail": r.detail} for r in sheet.reasons
        ],
        "targets": scores,
    }


def record_entry(
    conn: Connection,
    source: StoreSource,
    panel: Panel,
    user: User,
    entry: Entry,
    *,
    shared_screen: bool = False,
) -> RecordResult:
    """Record ``user``'s entry for the ballot their panel holds, and decide it if the panel now agrees.

    The lease check, the entry, the resolution and the audit log entries are
    one IMMEDIATE transaction. The store is written after the commit
    (`apply_pending`).

    Raises
    ------
    LeaseLost
        The panel no longer holds the ballot, or the entry is for an earlier round.
    DecisionError
        The entry does not fit the ballot (nothing is recorded).
    """
    election = source.election()
    sheet = source.sheet(entry.sheet_id)
    decided = decided_votes(election, sheet, entry)  # raises DecisionError before anything is written
    if user.id not in {m.id for m in panel.members}:
        raise LeaseLost(f"{user.name} is not a member of {panel.label}")
    now = time.time()
    with transaction(conn):
        row = conn.execute(
            # CASE, not SQLite's two-argument max(): the same statement runs on PostgreSQL.
            "UPDATE adj_ballots SET lease_panel = ?, lease_user = ?, lease_expires = CASE WHEN "
            "coalesce(lease_expires, 0) > ? THEN lease_expires ELSE ? END"
            " WHERE sheet_id = ? AND state = ? AND round = ? AND (lease_panel = ? OR lease_panel IS NULL "
            " OR lease_expires <= ?) RETURNING round",
            (panel.key, user.id, now + 60, now + 60, entry.sheet_id, panel_state(panel), entry.round, panel.key, now),
        ).fetchone()
        if row is None:
            raise LeaseLost(
                f"ballot {entry.sheet_id} is no longer this panel's to decide (it was decided, "
                "reopened, or its lease lapsed and another panel took it)"
            )
        digest = entry.digest()
        conn.execute(
            "INSERT INTO adj_entries (sheet_id, round, panel, user_id, digest, payload, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sheet_id, round, panel, user_id) DO UPDATE SET "
            "digest = excluded.digest, payload = excluded.payload, created_at = excluded.created_at",
            (entry.sheet_id, entry.round, panel.key, user.id, digest, _dumps(entry.to_json()), auditlog._now()),
        )
        auditlog.append(
            conn,
            user.name,
            "entry",
            sheet_id=entry.sheet_id,
            detail={
                "ballot": sheet.ballot_id,
                "round": entry.round,
                "panel": panel.key,
                "party": user.party,
                "digest": digest,
                "entry": entry.to_json(),
                "shared_screen": shared_screen,
            },
        )
        return _resolve(conn, source, sheet, panel, entry, decided)


def _entries(conn: Connection, sheet_id: str, rnd: int, panel: Panel) -> list[Row]:
    return conn.execute(
        "SELECT * FROM adj_entries WHERE sheet_id = ? AND round = ? AND panel = ? ORDER BY id",
        (sheet_id, rnd, panel.key),
    ).fetchall()


def _resolve(conn, source, sheet: ReviewSheet, panel: Panel, entry: Entry, decided: DecidedVotes) -> RecordResult:
    rows = [
        r for r in _entries(conn, entry.sheet_id, entry.round, panel) if r["user_id"] in {m.id for m in panel.members}
    ]
    names = {m.id: m.label for m in panel.members}
    if panel.kind != BOARD:
        if len(rows) < len(panel.members):
            return RecordResult(
                WAITING,
                entries=len(rows),
                needed=len(panel.members),
                message="Recorded. The ballot is decided when your partner's entry matches.",
            )
        if len({r["digest"] for r in rows}) == 1:
            return _finalize(conn, sheet, panel, decided, _supporters(rows, names), "team")
        hand_over(conn, entry.sheet_id, BOARD)
        auditlog.append(
            conn,
            "system",
            "escalated",
            sheet_id=entry.sheet_id,
            detail={
                "ballot": sheet.ballot_id,
                "round": entry.round,
                "panel": panel.key,
                "why": "the team's entries differ: the county board decides",
                "entries": {names[r["user_id"]]: json.loads(r["payload"]) for r in rows},
            },
        )
        return RecordResult(
            ESCALATED,
            entries=len(rows),
            needed=len(panel.members),
            message="The two entries differ: the ballot goes to the county board.",
        )
    # The quorum is the board's as configured, read now: disabling members while a ballot is
    # in progress does not lower it (31 KAR 4:220 Section 9(12)(a), see `board_quorum`).
    needed = board_quorum(conn, source.election().adjudication.board_members)
    by_digest: dict[str, list[Row]] = {}
    for r in rows:
        by_digest.setdefault(r["digest"], []).append(r)
    best = max(by_digest.values(), key=len)
    if len(best) >= needed:
        if best[0]["digest"] != entry.digest():
            decided = decided_votes(source.election(), sheet, Entry.from_json(json.loads(best[0]["payload"])))
        return _finalize(conn, sheet, panel, decided, _supporters(best, names), "board")
    if len(rows) >= len(panel.members):
        return RecordResult(
            NO_MAJORITY,
            entries=len(rows),
            needed=needed,
            message="Every board member has entered and no entry has a majority: "
            "discuss, and change entries until a majority agrees.",
        )
    return RecordResult(
        WAITING,
        entries=len(rows),
        needed=needed,
        message=f"Recorded. {needed} board members must agree (a majority of the county board).",
    )


def _supporters(rows: list[Row], names: Mapping[int, str]) -> list[tuple[str, Entry]]:
    """The agreeing entries, first recorded first, with their authors."""
    return [(names[r["user_id"]], Entry.from_json(json.loads(r["payload"]))) for r in rows]


def _finalize(
    conn, sheet: ReviewSheet, panel: Panel, decided: DecidedVotes, supporters: list[tuple[str, Entry]], decided_by: str
) -> RecordResult:
    """Record the decision the supporters' (equal) entries make; the first entry is kept as the decision's."""
    members = [name for name, _ in supporters]
    entry = supporters[0][1]
    notes = "; ".join(f"{name}: {e.note}" for name, e in supporters if e.note)
    entry = Entry(
        entry.sheet_id,
        entry.round,
        entry.style_id,
        entry.precinct_id,
        entry.marked,
        entry.write_ins,
        entry.manual,
        notes[:MAX_NOTE_CHARS],
    )
    why = {
        "reasons": [
            {"code": r.code, "contest": r.contest_id, "option": r.option_id, "detail": r.detail} for r in sheet.reasons
        ],
        "notes": list(decided.notes),
        "note": notes,
        "manual": entry.manual,
        "clauses": {cv.contest_id: list(cv.clauses) for cv in decided.votes.contests},
        "write_in_clauses": {
            f"{c}/{o}": {
                "clause": p.clause,
                "proposed": p.outcome,
                "candidate": p.candidate_id,
                "explanation": p.explanation,
            }
            for (c, o), p in decided.proposals.items()
        },
    }
    before = before_of(sheet)
    after = votes_to_dict(decided.votes)
    write_ins = {f"{c}/{o}": v for (c, o), v in decided.write_ins.items()}
    cur = conn.execute(
        "INSERT INTO adj_decisions (sheet_id, round, panel, decided_by, members, payload, before_votes, after_votes,"
        " write_ins, why, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            entry.sheet_id,
            entry.round,
            panel.key,
            decided_by,
            _dumps(members),
            _dumps(entry.to_json()),
            _dumps(before),
            _dumps(after),
            _dumps(write_ins),
            _dumps(why),
            auditlog._now(),
        ),
    )
    hand_over(conn, entry.sheet_id, "decided")
    auditlog.append(
        conn,
        " & ".join(members),
        "decision",
        sheet_id=entry.sheet_id,
        detail={
            "decision": cur.lastrowid,
            "ballot": sheet.ballot_id,
            "round": entry.round,
            "panel": panel.key,
            "decided_by": decided_by,
            "members": members,
            "before": before,
            "after": after,
            "write_ins": write_ins,
            "why": why,
        },
        facts=seal_decision(conn, cur.lastrowid),
    )
    return RecordResult(DECIDED, cur.lastrowid, message="Decided: " + " & ".join(members) + " agree.")


def my_entry(conn: Connection, sheet_id: str, rnd: int, panel: Panel, user: User) -> Entry | None:
    row = conn.execute(
        "SELECT payload FROM adj_entries WHERE sheet_id = ? AND round = ? AND panel = ? AND user_id = ?",
        (sheet_id, rnd, panel.key, user.id),
    ).fetchone()
    return Entry.from_json(json.loads(row[0])) if row else None


def entered_by(conn: Connection, sheet_id: str, rnd: int, panel: Panel) -> set[int]:
    """Ids of the panel's members who have an entry on this ballot's round (not what they entered)."""
    return {
        r[0]
        for r in conn.execute(
            "SELECT user_id FROM adj_entries WHERE sheet_id = ? AND round = ? AND panel = ?", (sheet_id, rnd, panel.key)
        )
    }


__all__ = [
    "DECIDED",
    "ESCALATED",
    "NO_MAJORITY",
    "WAITING",
    "RecordResult",
    "before_of",
    "entered_by",
    "my_entry",
    "record_entry",
]
