"""Leases: which panel holds which ballot of the review queue.

A ballot is *leased* to one panel at a time (31 KAR 4:220 §7(2): "a piece of
voting equipment shall not have more than one (1) recount team operating it
at any one (1) time"; we hold ballots to the same rule). Taking a lease is one
``UPDATE ... WHERE lease is free or expired`` inside ``BEGIN IMMEDIATE``, so
two panels can never hold the same ballot; a lease lapses after `LEASE_S`
without activity, so a closed browser loses nothing: its ballot returns to
the queue, and entries already recorded stay recorded.
"""

from __future__ import annotations

import time

from ..core.errors import TabulateError
from ..store.sqldb import Connection
from . import auditlog
from .panels import BOARD, Panel
from .queue import QueueFilter, queue_row
from .schema import transaction

LEASE_S = 10 * 60
#: No filter: the whole queue (a module-level value, so the default is not a call).
_WHOLE_QUEUE = QueueFilter()


class LeaseLost(TabulateError, RuntimeError):
    """The ballot is no longer leased to this panel (it lapsed and another panel took it, or it was decided)."""

    code = "lease_lost"


def panel_state(panel: Panel) -> str:
    """The queue state of the ballots this panel decides: the board's, or the teams' (``open``)."""
    return BOARD if panel.kind == BOARD else "open"


def current_lease(conn: Connection, panel: Panel) -> str | None:
    """The undecided ballot this panel holds a live lease on, if any."""
    row = conn.execute(
        "SELECT sheet_id FROM adj_ballots WHERE lease_panel = ? AND lease_expires > ? "
        "AND state = ? ORDER BY lease_expires DESC LIMIT 1",
        (panel.key, time.time(), panel_state(panel)),
    ).fetchone()
    return row[0] if row else None


def lease_next(
    conn: Connection, panel: Panel, user_id: int, flt: QueueFilter = _WHOLE_QUEUE, *, lease_s: float = LEASE_S
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
            (panel.key, user_id, now + lease_s, panel_state(panel), *args, now, now),
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
            (panel.key, user_id, now + lease_s, sheet_id, panel_state(panel), panel.key, now),
        ).fetchone()
        if row is None:
            r = queue_row(conn, sheet_id)
            if r is None:
                raise LeaseLost(f"ballot {sheet_id} is not in the review queue")
            if r.state == "decided":
                raise LeaseLost(f"ballot {sheet_id} has been decided")
            if r.state != panel_state(panel):
                raise LeaseLost(f"ballot {sheet_id} is for the {'county board' if r.state == BOARD else 'teams'}")
            raise LeaseLost(
                f"ballot {sheet_id} is being decided by another {'team' if panel.kind != BOARD else 'panel'}"
            )
        conn.execute(
            "UPDATE adj_ballots SET lease_panel = NULL, lease_user = NULL, lease_expires = NULL "
            "WHERE lease_panel = ? AND sheet_id != ? AND state != 'decided'",
            (panel.key, sheet_id),
        )


def hand_over(conn: Connection, sheet_id: str, state: str) -> None:
    """Put a ballot in ``state`` (``board`` or ``decided``) held by no panel: a ballot that changes hands is free."""
    conn.execute(
        "UPDATE adj_ballots SET state = ?, lease_panel = NULL, lease_user = NULL, "
        "lease_expires = NULL, updated_at = ? WHERE sheet_id = ?",
        (state, auditlog._now(), sheet_id),
    )


def release(conn: Connection, sheet_id: str, panel: Panel) -> None:
    """Give a ballot back to the queue (entries already recorded stay)."""
    conn.execute(
        "UPDATE adj_ballots SET lease_panel = NULL, lease_user = NULL, lease_expires = NULL "
        "WHERE sheet_id = ? AND lease_panel = ?",
        (sheet_id, panel.key),
    )


__all__ = ["LEASE_S", "LeaseLost", "current_lease", "hand_over", "lease", "lease_next", "panel_state", "release"]
