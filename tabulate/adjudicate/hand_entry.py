"""The county board's own ways into the review queue: a rejected sheet set aside for entry by hand, and
a ballot sent to the board for a recount (31 KAR 4:220 Section 9).

Every other ballot enters the queue when the store says it needs review
(`tabulate.adjudicate.queue.sync`).
"""

from __future__ import annotations

from ..store.sqldb import Connection
from . import auditlog
from .leases import hand_over
from .panels import BOARD
from .queue import _initial_state, _insert
from .schema import transaction
from .source import ReviewSheet, StoreSource

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
            hand_over(conn, sheet_id, BOARD)
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


__all__ = ["DAMAGED", "HAND_ENTRY_CODES", "hand_entry_candidates", "send_to_board", "set_aside_for_hand_entry"]
