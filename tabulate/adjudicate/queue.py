"""The review queue: every ballot with a reason for a person, and who holds which.

A ballot enters the queue when the store says it needs review (`sync`), or
when a board member sets a sheet the scanner rejected aside for entry by hand
(`set_aside_for_hand_entry`, 31 KAR 4:220 §9(3)-(4)(c)). Its *state* says who
may take it: ``open`` (any team), ``board`` (the county board: every ballot
when the election's ``adjudication.decided_by`` is ``"board"``, else the ones
a team disagreed on or the board reopened) and ``decided``.

A ballot is *leased* to one panel at a time (31 KAR 4:220 §7(2): "a piece of
voting equipment shall not have more than one (1) recount team operating it
at any one (1) time"; we hold ballots to the same rule). Taking a lease is one
``UPDATE ... WHERE lease is free or expired`` inside ``BEGIN IMMEDIATE``, so
two panels can never hold the same ballot; a lease lapses after `LEASE_S`
without activity, so a closed browser loses nothing: its ballot returns to
the queue, and entries already recorded stay recorded.

Default order: overvotes, then write-ins, then marginal marks, then the rest;
within a rank, batch then position (the order the paper sits in its tub).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Mapping

from ..core.errors import TabulateError
from ..core.vocabulary import REASON_WORDS
from ..store.sqldb import Connection, Row
from . import auditlog
from .panels import BOARD, Panel
from .schema import transaction
from .source import ReviewSheet, StoreSource

LEASE_S = 10 * 60

#: Rank of each reason code in the default order (lower first); unknown codes rank last.
PRIORITY: dict[str, int] = {
    "overvote": 0,
    "marked_write_in": 1,
    "unmarked_write_in": 1,
    "marginal_mark": 2,
}
LAST_RANK = 3

#: The reason a sheet set aside for entry by hand carries (31 KAR 4:220 §9(4)(c)).
DAMAGED = "damaged_ballot"

#: Reject codes of sheets a person may enter by hand: the paper is a ballot of
#: this election that the scanner could not read. Sheets of another election,
#: unknown styles and duplicates are never entered.
HAND_ENTRY_CODES: frozenset[str] = frozenset(
    {
        "unreadable_file",
        "empty_file",
        "corrupt_image",
        "no_registration_marks",
        "registration_marks_missing",
        "orientation_unknown",
        "registration_residual",
        "scale_out_of_range",
        "skew_out_of_range",
        "style_code_unreadable",
        "layout_mismatch",
        "page_rejected",
        "missing_page",
    }
)

#: The reasons in words: one vocabulary for the CLI, the web and the forms (`tabulate.core.vocabulary`).
REASON_LABELS = REASON_WORDS


class LeaseLost(TabulateError, RuntimeError):
    """The ballot is no longer leased to this panel (it lapsed and another panel took it, or it was decided)."""

    code = "lease_lost"


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


def hand_entry_candidates(conn: Connection, source: StoreSource) -> list[ReviewSheet]:
    """Rejected sheets that a person could enter by hand and that are not queued yet."""
    known = {r[0] for r in conn.execute("SELECT sheet_id FROM adj_ballots")}
    return [
        s
        for s in source.sheets("rejected")
        if s.sheet_id not in known and any(r.code in HAND_ENTRY_CODES for r in s.reasons)
    ]


def set_aside_for_hand_entry(
    conn: Connection, source: StoreSource, sheet_id: str, *, actor: str, attempts_confirmed: bool
) -> None:
    """Queue a rejected sheet to be entered by hand from the paper.

    31 KAR 4:220 §9(3): "If, after three (3) unsuccessful attempts, a ballot
    does not scan, it shall be set aside for later adjudication"; §9(4)(c): "A
    damaged ballot, no longer capable of being scanned ... but clearly having
    a selection". Only a board member does this, after confirming the paper
    was tried three times, so that a sheet later rescanned successfully is
    never also entered by hand (it would count twice).
    """
    if not attempts_confirmed:
        raise ValueError("confirm that the paper ballot failed to scan three times (31 KAR 4:220 Section 9(3))")
    sheet = source.sheet(sheet_id)
    if sheet.status != "rejected" or not any(r.code in HAND_ENTRY_CODES for r in sheet.reasons):
        raise ValueError(f"sheet {sheet_id} is not a rejected sheet that may be entered by hand")
    state = _initial_state(source.election().adjudication.decided_by)
    why = "; ".join(r.detail or r.code for r in sheet.reasons)
    with transaction(conn):
        if not _insert(conn, sheet, [(DAMAGED, None, None, why)], state, manual=True):
            raise ValueError(f"sheet {sheet_id} is already in the queue")
        auditlog.append(
            conn,
            actor,
            "set_aside_for_hand_entry",
            sheet_id=sheet_id,
            detail={"ballot": sheet.ballot_id, "reasons": [r.code for r in sheet.reasons]},
        )


def send_to_board(
    conn: Connection,
    source: StoreSource,
    sheet_id: str,
    *,
    actor: str,
    code: str,
    detail: str,
    contest_id: str | None = None,
) -> str:
    """Put a ballot before the county board for a recount (31 KAR 4:220 Section 9(12)); return what was done.

    "Overvotes and damaged ballots shall be adjudicated by the full county
    board of elections". A ballot not in the queue is queued for the board;
    one open for a team moves to the board. A ballot already decided is left
    as it is (``"decided"``): only a board member may reopen it (`reopen`).
    """
    sheet = source.sheet(sheet_id)
    with transaction(conn):
        row = conn.execute("SELECT state FROM adj_ballots WHERE sheet_id = ?", (sheet_id,)).fetchone()
        if row is None:
            _insert(conn, sheet, [(code, contest_id, None, detail)], BOARD, manual=sheet.status == "rejected")
            done = "queued"
        elif row[0] == "open":
            conn.execute(
                "UPDATE adj_ballots SET state = 'board', lease_panel = NULL, lease_user = NULL, "
                "lease_expires = NULL, updated_at = ? WHERE sheet_id = ?",
                (auditlog._now(), sheet_id),
            )
            done = "moved"
        else:
            return str(row[0])
        auditlog.append(
            conn,
            actor,
            "sent_to_board",
            sheet_id=sheet_id,
            detail={"ballot": sheet.ballot_id, "code": code, "contest": contest_id, "why": detail},
        )
    return done


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


def _panel_state(panel: Panel) -> str:
    return BOARD if panel.kind == BOARD else "open"


def current_lease(conn: Connection, panel: Panel) -> str | None:
    """The undecided ballot this panel holds a live lease on, if any."""
    row = conn.execute(
        "SELECT sheet_id FROM adj_ballots WHERE lease_panel = ? AND lease_expires > ? "
        "AND state = ? ORDER BY lease_expires DESC LIMIT 1",
        (panel.key, time.time(), _panel_state(panel)),
    ).fetchone()
    return row[0] if row else None


def lease_next(
    conn: Connection, panel: Panel, user_id: int, flt: QueueFilter = QueueFilter(), *, lease_s: float = LEASE_S
) -> str | None:
    """Lease the panel's current ballot, or the first free one in queue order; None when none is left.

    The choice and the lease are one UPDATE in one IMMEDIATE transaction: of
    any number of panels asking at once, each gets a different ballot.
    """
    now = time.time()
    with transaction(conn):
        held = current_lease(conn, panel)
        if held is not None:
            conn.execute("UPDATE adj_ballots SET lease_expires = ? WHERE sheet_id = ?", (now + lease_s, held))
            return held
        where, args = flt.sql()
        row = conn.execute(
            "UPDATE adj_ballots SET lease_panel = ?, lease_user = ?, lease_expires = ? WHERE sheet_id = ("
            f" SELECT b.sheet_id FROM adj_ballots b WHERE b.state = ? AND {where}"
            "  AND (b.lease_panel IS NULL OR b.lease_expires <= ?)"
            "  ORDER BY b.priority, b.batch, b.position, b.sheet_id LIMIT 1)"
            " AND (lease_panel IS NULL OR lease_expires <= ?) RETURNING sheet_id",
            (panel.key, user_id, now + lease_s, _panel_state(panel), *args, now, now),
        ).fetchone()
        return row[0] if row else None


def lease(conn: Connection, sheet_id: str, panel: Panel, user_id: int, *, lease_s: float = LEASE_S) -> None:
    """Lease one named ballot to the panel (or renew its lease); the panel gives up any other.

    Raises
    ------
    LeaseLost
        Another panel holds it, it is decided, or it is not this panel's to decide.
    """
    now = time.time()
    with transaction(conn):
        row = conn.execute(
            "UPDATE adj_ballots SET lease_panel = ?, lease_user = ?, lease_expires = ? WHERE sheet_id = ? "
            "AND state = ? AND (lease_panel IS NULL OR lease_panel = ? OR lease_expires <= ?) RETURNING sheet_id",
            (panel.key, user_id, now + lease_s, sheet_id, _panel_state(panel), panel.key, now),
        ).fetchone()
        if row is None:
            r = queue_row(conn, sheet_id)
            if r is None:
                raise LeaseLost(f"ballot {sheet_id} is not in the review queue")
            if r.state == "decided":
                raise LeaseLost(f"ballot {sheet_id} has been decided")
            if r.state != _panel_state(panel):
                raise LeaseLost(f"ballot {sheet_id} is for the {'county board' if r.state == BOARD else 'teams'}")
            raise LeaseLost(
                f"ballot {sheet_id} is being decided by another {'team' if panel.kind != BOARD else 'panel'}"
            )
        conn.execute(
            "UPDATE adj_ballots SET lease_panel = NULL, lease_user = NULL, lease_expires = NULL "
            "WHERE lease_panel = ? AND sheet_id != ? AND state != 'decided'",
            (panel.key, sheet_id),
        )


def release(conn: Connection, sheet_id: str, panel: Panel) -> None:
    """Give a ballot back to the queue (entries already recorded stay)."""
    conn.execute(
        "UPDATE adj_ballots SET lease_panel = NULL, lease_user = NULL, lease_expires = NULL "
        "WHERE sheet_id = ? AND lease_panel = ?",
        (sheet_id, panel.key),
    )


def reasons_of(conn: Connection, sheet_id: str) -> list[tuple[str, str | None, str | None, str]]:
    return [
        tuple(r)
        for r in conn.execute(
            "SELECT code, contest_id, option_id, detail FROM adj_reasons WHERE sheet_id = ? ORDER BY rowid", (sheet_id,)
        )
    ]


__all__ = [
    "DAMAGED",
    "HAND_ENTRY_CODES",
    "LEASE_S",
    "LeaseLost",
    "PRIORITY",
    "Progress",
    "QueueFilter",
    "send_to_board",
    "QueueRow",
    "REASON_LABELS",
    "count_queue",
    "current_lease",
    "hand_entry_candidates",
    "lease",
    "lease_next",
    "list_queue",
    "priority",
    "progress",
    "queue_row",
    "reasons_of",
    "release",
    "set_aside_for_hand_entry",
    "sync",
]
