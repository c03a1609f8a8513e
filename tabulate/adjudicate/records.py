"""The store's records with adjudication's decisions folded in: what the tallies and the CVR read.

For each sheet with a current (not reopened) decision, the record's
``modified`` votes are the decision's votes, ``write_ins`` its write-in
names, and its status ``counted``. A ballot entered by hand from the paper
(31 KAR 4:220 §9(4)(c)), which the scanner rejected and so has no machine
votes, becomes a record whose ``interpreted`` votes are all blank (the
machine credited nothing) and whose ``modified`` votes are the entry.

The store keeps the contest votes itself (``set_modified``); it does not yet
keep write-in names or move a decided sheet to ``counted``, so the reports
read decided ballots through `adjudicated_records` (see the note in
docs/adjudication.md).
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from dataclasses import replace
from pathlib import PurePath
from typing import Iterator, Mapping, Sequence

from ..core import LIVE_STATUSES, BallotRecord, BallotVotes, ContestVotes, votes_from_dict
from ..core.errors import TabulateError
from ..core.votes import contest_votes_to_dict
from ..store import sqldb
from ..store.base import BatchCounts
from ..store.records import marks_from_json, to_record
from ..store.sqldb import Connection, Row


class DecisionRowError(TabulateError, ValueError):
    """A decision row the reports cannot read (only a row edited outside tabulate is like this)."""

    code = "decision_row"


def current_decisions(conn: Connection) -> dict[str, Row]:
    """Each decided ballot's current decision, by sheet id (none in a store nobody has reviewed).

    A decision is current until it is reopened. Only the decision rows are
    read -- each is sealed in the journal (`tabulate.adjudicate.sealing`) --
    not the queue's working state, which no result may depend on.
    """
    if not sqldb.has_table(conn, "adj_decisions"):
        return {}
    if not sqldb.is_postgres(conn):
        conn.row_factory = sqlite3.Row
    rows = conn.execute("SELECT * FROM adj_decisions WHERE reopened_at IS NULL ORDER BY round, id")
    return {r["sheet_id"]: r for r in rows}


def decided_votes_by_sheet(conn: Connection) -> dict[str, list[dict]]:
    """Every decision's votes (reopened ones included), by sheet id, as ``{contest id: comparable}``.

    The store's ``modified`` votes are written only by applying a decision
    (`tabulate.adjudicate.decisions.apply_pending`), so each sheet's must be
    one of these.
    """
    if not sqldb.has_table(conn, "adj_decisions"):
        return {}
    out: dict[str, list[dict]] = {}
    for sheet_id, after in conn.execute("SELECT sheet_id, after_votes FROM adj_decisions ORDER BY id"):
        try:
            contests = json.loads(after).get("contests", [])
            votes = {c["contest_id"]: _comparable(c) for c in contests}
        except (TypeError, ValueError, KeyError, AttributeError):
            continue  # an unreadable row is named by the sealed-row check and by `_after`
        out.setdefault(str(sheet_id), []).append(votes)
    return out


def _comparable(c: Mapping) -> tuple:
    """What a contest's votes count as: status, selections, over- and undervotes."""
    return (c["status"], tuple(c["selections"]), int(c["overvotes"]), int(c["undervotes"]))


def unexplained_modification(sheet, decided: Mapping[str, list[dict]]) -> str | None:
    """Why a sheet's votes as changed by people follow from no decision on it; None when they do.

    An attacker holding the store file could write a sheet's ``modified``
    votes and append a journal entry sealing them (the chain needs no
    secret, and a journal that grew still holds every head published
    earlier). No decision made them, and no result may count them.
    """
    if not sheet.modified:
        return None
    changed = {cid: _comparable(contest_votes_to_dict(v)) for cid, v in sheet.modified.items()}
    for votes in decided.get(str(sheet.id), ()):
        if all(votes.get(cid) == c for cid, c in changed.items()):
            return None
    contests = ", ".join(sorted(changed))
    return (
        f"sheet {sheet.id} ({sheet.label}): its votes in {contests} were changed, but no decision on it "
        "holds those votes (changed outside tabulate)"
    )


def _after(row: Row) -> BallotVotes:
    try:
        return votes_from_dict(json.loads(row["after_votes"]))
    except (TypeError, ValueError, KeyError, AttributeError) as e:
        raise DecisionRowError(
            f"decision {row['id']} (sheet {row['sheet_id']}) cannot be read: {type(e).__name__} {e}"
        ) from None


def _write_ins(row: Row) -> dict[tuple[str, str], str | None]:
    try:
        return {tuple(k.split("/", 1)): v for k, v in json.loads(row["write_ins"]).items()}
    except (TypeError, ValueError, AttributeError) as e:
        raise DecisionRowError(
            f"decision {row['id']} (sheet {row['sheet_id']}) has unreadable write-ins: {e}"
        ) from None


def _blank_like(votes: BallotVotes, election) -> BallotVotes:
    contests = tuple(
        ContestVotes(c.contest_id, "blank", (), 0, election.contest(c.contest_id).vote_for) for c in votes.contests
    )
    return BallotVotes(votes.ballot_id, votes.style_id, contests, votes.precinct_id, None, (), blank=True)


def adjudicated_records(store, conn: Connection) -> Iterator[BallotRecord]:
    """Every live record of the store, decisions folded in, then the ballots entered by hand.

    ``conn`` is any connection to the store's file (`tabulate.adjudicate.connect`
    or ``sqlite3.connect``); nothing is written.
    """
    decided = current_decisions(conn)
    every_decision = decided_votes_by_sheet(conn)
    for sheet in store.sheets():
        if sheet.status not in LIVE_STATUSES:
            continue
        record = to_record(sheet)
        row = decided.pop(str(sheet.id), None)
        if row is None:
            # Its changed votes, if any, are counted: they must be a decision's (one since reopened).
            problem = unexplained_modification(sheet, every_decision)
            if problem is not None:
                raise DecisionRowError(problem)
            yield record
            continue
        votes = _after(row)
        yield BallotRecord(
            ballot_id=record.ballot_id,
            batch=record.batch,
            position=record.position,
            vote_type=record.vote_type,
            precinct_id=record.precinct_id,
            style_id=record.style_id,
            marks=record.marks,
            interpreted=record.interpreted,
            modified=votes,
            images=record.images,
            write_ins=_write_ins(row),
            status="counted",
            tabulator=record.tabulator,
        )
    election = store.election()
    for sheet_id, row in decided.items():  # entered by hand: the store has no live record for them
        try:
            sheet = store.sheet(int(sheet_id))
        except (KeyError, ValueError):
            raise DecisionRowError(
                f"decision {row['id']} names sheet {sheet_id!r}, which the store does not hold"
            ) from None
        votes = _after(row)
        yield BallotRecord(
            ballot_id=sheet.ballot_id,
            batch=sheet.batch.name,
            position=sheet.position,
            vote_type=sheet.batch.vote_type,
            precinct_id=votes.precinct_id or "",
            style_id=votes.style_id,
            marks=marks_from_json(None, sheet.ballot_id, votes.style_id, votes.precinct_id),
            interpreted=_blank_like(votes, election),
            modified=votes,
            images=tuple((PurePath(p.source).name, p.sha256) for p in sheet.pages),
            write_ins=_write_ins(row),
            status="counted",
            tabulator=getattr(sheet.batch, "tabulator", "1"),
        )


def adjudicated_counts(store, conn: Connection, counts: Sequence[BatchCounts]) -> list[BatchCounts]:
    """The store's per-batch counts with decisions folded in, as `adjudicated_records` folds them into reports.

    A decided ballot moves from "needs review" (or, entered by hand, from
    "set aside") to "counted", and its reasons leave the review queue's
    breakdown, so that ``tabulate status`` tells the same story as
    ``tabulate results`` after review.
    """
    decided = current_decisions(conn)
    if not decided:
        return list(counts)
    moved: dict[int, Counter] = {}
    for sheet_id in decided:
        sheet = store.sheet(int(sheet_id))
        if sheet.status not in ("needs_review", "rejected"):
            continue
        c = moved.setdefault(sheet.batch.id, Counter())
        c[sheet.status] += 1
        for code in {r.code for r in sheet.reasons}:
            c[(sheet.status, code)] += 1
    out = []
    for bc in counts:
        m = moved.get(bc.batch.id)
        if not m:
            out.append(bc)
            continue
        by_reason = {k: n - m[k] for k, n in bc.by_reason.items() if n - m[k] > 0}
        n_decided = m["needs_review"] + m["rejected"]
        out.append(
            replace(
                bc,
                counted=bc.counted + n_decided,
                needs_review=bc.needs_review - m["needs_review"],
                rejected=bc.rejected - m["rejected"],
                by_reason=by_reason,
                decided=n_decided,
            )
        )
    return out
