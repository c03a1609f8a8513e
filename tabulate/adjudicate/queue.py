"""The review queue: every ballot with a reason for a person, in the order people take them.

A ballot enters the queue when the store says it needs review (`sync`), or
when a board member puts it there (`tabulate.adjudicate.hand_entry`). Its
*state* says who may take it: ``open`` (any team), ``board`` (the county
board: every ballot when the election's ``adjudication.decided_by`` is
``"board"``, else the ones a team disagreed on or the board reopened) and
``decided``. Which panel holds a ballot is `tabulate.adjudicate.leases`.

Default order: overvotes, then write-ins, then marginal marks, then the rest;
within a rank, batch then position (the order the paper sits in its tub).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Mapping

from ..store.sqldb import Connection, Row
from . import auditlog
from .panels import BOARD
from .schema import transaction
from .source import ReviewSheet, StoreSource

#: Rank of each reason code in the default order (lower first); unknown codes rank last.
PRIORITY: dict[str, int] = {
    "overvote": 0,
    "marked_write_in": 1,
    "unmarked_write_in": 1,
    "marginal_mark": 2,
}
LAST_RANK = 3


@dataclass(frozen=True)
class QueueFilter:
    reason: str | None = None
    batch: str | None = None
    precinct: str | None = None
    contest: str | None = None

    def sql(self) -> tuple[str, list]:
        where, args = [], []
        if self.reason:
            where.append("EXISTS (SELECT 1 FROM adj_reasons r WHERE r.sheet_id = b.sheet_id AND r.code = ?)")
            args.append(self.reason)
        if self.contest:
            where.append("EXISTS (SELECT 1 FROM adj_reasons r WHERE r.sheet_id = b.sheet_id AND r.contest_id = ?)")
            args.append(self.contest)
        if self.batch:
            where.append("b.batch = ?")
            args.append(self.batch)
        if self.precinct:
            where.append("b.precinct_id = ?")
            args.append(self.precinct)
        return (" AND ".join(where) or "1 = 1"), args

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> QueueFilter:
        def get(k):
            v = (params.get(k) or "").strip()
            return v[:200] or None

        return cls(get("reason"), get("batch"), get("precinct"), get("contest"))


@dataclass(frozen=True)
class QueueRow:
    sheet_id: str
    batch: str
    position: int
    precinct_id: str | None
    style_id: str | None
    state: str
    round: int
    priority: int
    codes: tuple[str, ...]
    contests: tuple[str, ...]
    lease_panel: str | None
    leased: bool


@dataclass(frozen=True)
class Progress:
    """Counts for the queue page: by state, by reason (undecided only), and the share decided."""

    total: int
    open: int
    board: int
    decided: int
    leased: int
    by_reason: tuple[tuple[str, int], ...] = ()
    batches: tuple[str, ...] = ()
    precincts: tuple[str, ...] = ()
    contests: tuple[str, ...] = ()

    @property
    def percent_decided(self) -> float:
        return 100.0 * self.decided / self.total if self.total else 100.0


def priority(codes: Iterable[str]) -> int:
    return min((PRIORITY.get(c, LAST_RANK) for c in codes), default=LAST_RANK)


def _initial_state(decided_by: str) -> str:
    return BOARD if decided_by == "board" else "open"


def _insert(conn: Connection, sheet: ReviewSheet, codes_reasons, state: str, manual: bool) -> bool:
    cur = conn.execute(
        "INSERT INTO adj_ballots (sheet_id, batch, position, precinct_id, style_id, priority, state, "
        "manual, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (sheet_id) DO NOTHING",
        (
            sheet.sheet_id,
            sheet.batch,
            sheet.position,
            sheet.precinct_id,
            sheet.style_id,
            priority(r[0] for r in codes_reasons),
            state,
            int(manual),
            auditlog._now(),
        ),
    )
    if cur.rowcount:
        conn.executemany(
            "INSERT INTO adj_reasons (sheet_id, code, contest_id, option_id, detail) VALUES (?, ?, ?, ?, ?)",
            [(sheet.sheet_id, *r) for r in codes_reasons],
        )
    return bool(cur.rowcount)


def sync(conn: Connection, source: StoreSource) -> int:
    """Bring every sheet the store says needs review into the queue; return how many were added.

    Idempotent: a sheet already queued keeps its state, round and lease. When
    the election says the board decides, ballots still ``open`` move to the board.
    """
    election = source.election()
    state = _initial_state(election.adjudication.decided_by)
    queued = set(election.adjudication.reasons)
    known = {r[0] for r in conn.execute("SELECT sheet_id FROM adj_ballots")}
    fresh = [s for s in source.sheets("needs_review") if s.sheet_id not in known]
    added = 0
    with transaction(conn):
        for sheet in fresh:
            # The reasons the election queues; all of them if the reader flagged it for another.
            reasons = [r for r in sheet.reasons if r.code in queued] or list(sheet.reasons)
            reasons = [(r.code, r.contest_id, r.option_id, r.detail) for r in reasons]
            added += _insert(conn, sheet, reasons, state, manual=False)
        if state == BOARD:
            conn.execute("UPDATE adj_ballots SET state = 'board' WHERE state = 'open'")
    return added


def _row(r: Row, now: float) -> QueueRow:
    codes = tuple(dict.fromkeys((r["codes"] or "").split(","))) if r["codes"] else ()
    contests = tuple(dict.fromkeys(c for c in (r["contests"] or "").split(",") if c))
    leased = r["lease_panel"] is not None and (r["lease_expires"] or 0) > now
    return QueueRow(
        r["sheet_id"],
        r["batch"],
        r["position"],
        r["precinct_id"],
        r["style_id"],
        r["state"],
        r["round"],
        r["priority"],
        codes,
        contests,
        r["lease_panel"] if leased else None,
        leased,
    )


_LIST_SQL = """
SELECT b.*, (SELECT group_concat(code) FROM adj_reasons r WHERE r.sheet_id = b.sheet_id) AS codes,
       (SELECT group_concat(contest_id) FROM adj_reasons r WHERE r.sheet_id = b.sheet_id) AS contests
FROM adj_ballots b
"""


def list_queue(
    conn: Connection,
    *,
    states: Iterable[str] = ("open", "board"),
    flt: QueueFilter = QueueFilter(),
    limit: int = 200,
    offset: int = 0,
) -> list[QueueRow]:
    """Queued ballots in the default order, filtered."""
    states = tuple(states)
    where, args = flt.sql()
    sql = (
        _LIST_SQL + f" WHERE b.state IN ({','.join('?' * len(states))}) AND {where} "
        "ORDER BY b.priority, b.batch, b.position, b.sheet_id LIMIT ? OFFSET ?"
    )
    now = time.time()
    return [_row(r, now) for r in conn.execute(sql, [*states, *args, int(limit), int(offset)])]


def count_queue(
    conn: Connection, *, states: Iterable[str] = ("open", "board"), flt: QueueFilter = QueueFilter()
) -> int:
    """How many queued ballots `list_queue` would list without a limit (for "100 of 201")."""
    states = tuple(states)
    where, args = flt.sql()
    sql = f"SELECT COUNT(*) FROM ({_LIST_SQL} WHERE b.state IN ({','.join('?' * len(states))}) AND {where}) AS listed"
    return int(conn.execute(sql, [*states, *args]).fetchone()[0])


def queue_row(conn: Connection, sheet_id: str) -> QueueRow | None:
    r = conn.execute(_LIST_SQL + " WHERE b.sheet_id = ?", (sheet_id,)).fetchone()
    return _row(r, time.time()) if r else None


def progress(conn: Connection) -> Progress:
    now = time.time()
    states = dict(conn.execute("SELECT state, COUNT(*) FROM adj_ballots GROUP BY state").fetchall())
    leased = conn.execute(
        "SELECT COUNT(*) FROM adj_ballots WHERE state != 'decided' AND lease_expires > ?", (now,)
    ).fetchone()[0]
    by_reason = conn.execute(
        "SELECT r.code, COUNT(DISTINCT r.sheet_id) FROM adj_reasons r JOIN adj_ballots b ON b.sheet_id = r.sheet_id "
        "WHERE b.state != 'decided' GROUP BY r.code"
    ).fetchall()
    by_reason = sorted(by_reason, key=lambda rc: (PRIORITY.get(rc[0], LAST_RANK), rc[0]))

    def distinct(sql):
        return tuple(r[0] for r in conn.execute(sql) if r[0])

    return Progress(
        total=sum(states.values()),
        open=states.get("open", 0),
        board=states.get("board", 0),
        decided=states.get("decided", 0),
        leased=leased,
        by_reason=tuple((c, n) for c, n in by_reason),
        batches=distinct("SELECT DISTINCT batch FROM adj_ballots ORDER BY batch"),
        precincts=distinct("SELECT DISTINCT precinct_id FROM adj_ballots ORDER BY precinct_id"),
        contests=distinct("SELECT DISTINCT contest_id FROM adj_reasons ORDER BY contest_id"),
    )


def reasons_of(conn: Connection, sheet_id: str) -> list[tuple[str, str | None, str | None, str]]:
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT code, contest_id, option_id, detail FROM adj_reasons WHERE sheet_id = ? ORDER BY rowid", (sheet_id,)
        )
    ]


__all__ = [
    "LAST_RANK",
    "PRIORITY",
    "Progress",
    "QueueFilter",
    "QueueRow",
    "count_queue",
    "list_queue",
    "priority",
    "progress",
    "queue_row",
    "reasons_of",
    "sync",
]
