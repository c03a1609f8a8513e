"""What an audit reads from the store: the audited scanner's sheets, its count of the race, where the paper is.

The machine count of the race is the count the store holds for the sheets the
scanner read: each live sheet's votes after people decided, or the scanner's
reading (31 KAR 6:030 Section 2(1)) while a flagged sheet awaits review. (The
published results leave a sheet awaiting review out until it is decided; an
audit is run after the count is complete, and the comparison says how many
sheets were still waiting.)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Callable

from ...adjudicate import adjudicated_records
from ...adjudicate.explain import hand_clause_words
from ...adjudicate.source import target_evidence
from ...core import BallotRecord
from ...election import Election
from ...report.rla import ARLO_CONTAINERS
from ...store import LIVE_STATUSES, Store
from ...store.sqldb import Connection
from .explain import AuditedSheet, Prediction, SetAsideSheet, predict
from .selection import Candidates, candidates


@dataclass(frozen=True)
class ScannerSheets:
    """The sheets one scanner read: counted or awaiting review, and those set aside."""

    tabulator: str
    sheets: tuple[AuditedSheet, ...]
    set_aside: tuple[SetAsideSheet, ...]

    @property
    def awaiting_review(self) -> int:
        return sum(1 for s in self.sheets if s.record.status == "needs_review")


@dataclass(frozen=True)
class Container:
    """One line of the retrieval list: a batch of the scanner's ballots and where it is kept."""

    batch: str
    container: str
    vote_type: str
    sheets: int
    set_aside: int
    first: int
    last: int


def _live_records(store: Store, conn: Connection) -> dict[str, BallotRecord]:
    return {r.ballot_id: r for r in adjudicated_records(store, conn)}


def audit_pool(store: Store, conn: Connection) -> Candidates:
    """The scanners and races a selection chooses from."""
    election = store.election()
    return candidates(election, adjudicated_records(store, conn))


def scanner_sheets(store: Store, conn: Connection, tabulator: str) -> ScannerSheets:
    """Every sheet ``tabulator`` read, in batch and position order, decisions folded in."""
    records = _live_records(store, conn)
    live, aside = [], []
    for s in store.sheets():
        if s.batch.tabulator != tabulator:
            continue
        r = records.get(s.ballot_id)
        # A duplicate shares its identity with the sheet it repeats: only a record at this very place
        # (this batch and position) is this sheet's, e.g. a rejected sheet the board entered by hand.
        here = r is not None and (r.batch, r.position) == (s.batch.name, s.position)
        if here and (s.status in LIVE_STATUSES or r.decided):
            live.append(AuditedSheet(s.id, r))
        elif s.status not in LIVE_STATUSES:
            why = "; ".join(x.detail or x.code for x in s.reasons) or s.status
            aside.append(SetAsideSheet(s.id, s.ballot_id, s.batch.name, s.position, s.status, why))
    return ScannerSheets(tabulator, tuple(live), tuple(aside))


def machine_counts(election: Election, sheets: ScannerSheets, contest_id: str) -> dict[str, int]:
    """The store's count of ``contest_id`` over the scanner's live sheets, every option (0 where none)."""
    counts: Counter[str] = Counter()
    for s in sheets.sheets:
        try:
            counts.update(s.record.votes.contest(contest_id).selections)
        except KeyError:
            continue
    return {o.id: counts.get(o.id, 0) for o in election.contest(contest_id).options}


def ballots_with_race(sheets: ScannerSheets, contest_id: str) -> int:
    """Live sheets of the scanner whose ballot style holds the race: the pile the counters tally."""
    n = 0
    for s in sheets.sheets:
        try:
            s.record.votes.contest(contest_id)
        except KeyError:
            continue
        n += 1
    return n


def hand_clauses(store: Store) -> Callable[[int, str], tuple[str, ...]]:
    """``(sheet id, contest id) -> the reader's hand-count clauses`` for targets it read differently by hand."""

    def clauses(sheet_id: int, contest_id: str) -> tuple[str, ...]:
        out = []
        for (cid, _oid), t in target_evidence(store.evidence(sheet_id)).items():
            if cid != contest_id or t.get("hand") == t.get("scan"):
                continue
            out += [hand_clause_words(c) for c in t.get("hand_clauses", ())]
        return tuple(dict.fromkeys(out))

    return clauses


def prediction_for(store: Store, conn: Connection, tabulator: str, contest_id: str) -> Prediction:
    """The prediction for the audited race from the store as it is now."""
    sheets = scanner_sheets(store, conn, tabulator)
    return predict(store.election(), tabulator, contest_id, sheets.sheets, sheets.set_aside, hand_clauses(store))


def retrieval_list(store: Store, sheets: ScannerSheets) -> list[Container]:
    """Which batches hold the scanner's ballots, where they are kept, and how many sheets each."""
    per: dict[str, dict] = {}
    vote_types = {b.name: b.vote_type for b in store.batches()}
    for s in sheets.sheets:
        d = per.setdefault(s.record.batch, {"n": 0, "aside": 0, "pos": []})
        d["n"] += 1
        d["pos"].append(s.record.position)
    for a in sheets.set_aside:
        d = per.setdefault(a.batch, {"n": 0, "aside": 0, "pos": []})
        d["aside"] += 1
        d["pos"].append(a.position)
    out = []
    for batch, d in per.items():
        vt = vote_types.get(batch, "")
        out.append(
            Container(
                batch,
                f"{ARLO_CONTAINERS.get(vt, 'Container')}: {batch}",
                vt,
                d["n"],
                d["aside"],
                min(d["pos"]),
                max(d["pos"]),
            )
        )
    return out
