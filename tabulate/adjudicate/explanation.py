"""Why a ballot counted the way it did: one sheet explained end to end.

`explain_ballot` gathers, for any sheet of the store (flagged or not, decided
or not), what a board member needs to answer "why did ballot X count for Y?":

- where the paper is (batch · position, the Arlo container) and where its
  record is in the cast vote records (the Dominion ``CvrNumber`` and
  ``ImprintedId``, the NIST ``UniqueId``);
- its scanned images, and for every target the fill score, the scanner's
  class (31 KAR 6:030 §2(1)) and the hand-count reading (§3(1));
- per contest, the votes the rules gave with the clauses they applied, and
  the votes after people decided;
- why it was flagged, in the same words as everywhere else;
- every entry, decision and reopening, with who, when and why.

The CLI (``tabulate explain``) prints it as text or JSON, the review app
renders it at ``/ballot/<id>/explain``; both read this one model.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ..core.errors import TabulateError
from ..core.vocabulary import ballot_reference, parse_reference, reason_words
from ..report import ARLO_CONTAINERS
from ..store.base import LIVE_STATUSES
from ..store.sqldb import Connection
from .ballot_history import EntryView, HistoryItem, _history, ballot_entries, disagreements
from .contest_story import ContestStory, _contests, _sentence
from .records import adjudicated_counts, current_decisions, votes_from_dict
from .source import ReviewSheet, StoreSource


class BallotNotFound(TabulateError, LookupError):
    """No sheet, or more than one, answers to what the user typed."""

    code = "ballot_not_found"


@dataclass(frozen=True)
class BallotExplanation:
    sheet_id: str
    reference: str
    identity: str
    batch: str
    position: int
    vote_type: str
    container: str
    precinct_id: str | None
    style_id: str | None
    store_status: str
    outcome: str
    images: tuple[dict[str, Any], ...]
    reasons: tuple[dict[str, str], ...]
    contests: tuple[ContestStory, ...]
    entries: tuple[EntryView, ...]
    disagreements: tuple[str, ...]
    history: tuple[HistoryItem, ...]
    cvr: dict[str, Any] | None = None
    duplicate_of: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return asdict(self)


def find_sheet(store, text: str) -> int:
    """The sheet id for what a person typed: "batch · position", a sheet id, or a prefix of the hash.

    Raises
    ------
    BallotNotFound
        Nothing matches, or a hash prefix matches more than one sheet.
    """
    text = text.strip()
    ref = parse_reference(text)
    if ref is not None:
        batch = next((b for b in store.batches() if b.name == ref[0]), None)
        if batch is not None:
            for s in store.sheets(batch_id=batch.id):
                if s.position == ref[1]:
                    return s.id
        raise BallotNotFound(f"no sheet at position {ref[1]} of batch {ref[0]!r}")
    if text.isdigit() and len(text) < 12:
        try:
            return store.sheet(int(text)).id
        except KeyError:
            raise BallotNotFound(f"no sheet {text} in the store") from None
    prefix = text.lower()
    if len(prefix) < 6 or any(ch not in "0123456789abcdef" for ch in prefix):
        raise BallotNotFound(
            f'{text!r} is not a ballot reference: give batch·position (e.g. "abs-1·7"), '
            "a sheet id, or at least 6 characters of the ballot's hash"
        )
    found = [s for s in store.sheets() if s.identity.startswith(prefix)]
    if not found:
        raise BallotNotFound(f"no sheet's hash starts with {text!r}")
    live = [s for s in found if s.duplicate_of is None] or found
    if len(live) > 1:
        refs = ", ".join(s.label for s in live[:5])
        raise BallotNotFound(f"{text!r} matches several sheets ({refs}): give more of the hash")
    return live[0].id


def _cvr_place(store, conn, sheet) -> dict[str, Any] | None:
    """Where the sheet's row sits in the Dominion CVR export: every sheet of paper (a set-aside one has a
    row with no votes), by tabulator, batch and position; a duplicate is no paper and has none.

    Counted from the per-batch counts and this batch's sheets alone, not from
    every record, so a 40,000-ballot store explains a ballot as fast as a small one.
    """
    if sheet.status == "duplicate":
        return None
    decided = current_decisions(conn)
    counts = adjudicated_counts(store, conn, store.batch_counts())
    per_batch = {(c.batch.tabulator, c.batch.name): c.counted + c.needs_review + c.rejected for c in counts}
    here = (sheet.batch.tabulator, sheet.batch.name)
    before = sum(n for k, n in per_batch.items() if k < here)
    before += sum(
        1 for s in store.sheets(batch_id=sheet.batch.id) if s.status != "duplicate" and s.position < sheet.position
    )
    votes = sheet.status in LIVE_STATUSES or str(sheet.id) in decided
    return {
        "cvr_number": before + 1,
        "imprinted_id": ballot_reference(sheet.batch.name, sheet.position),
        "tabulator": sheet.batch.tabulator,
        "batch_id": sheet.batch.name,
        "record_id": sheet.position,
        "nist_unique_id": sheet.ballot_id if votes else None,
        "votes": votes,
        "of": sum(per_batch.values()),
    }


def _outcome(sheet, decided: bool, in_cvr: bool) -> str:
    if sheet.status == "duplicate":
        return "not counted: a duplicate of a sheet already scanned"
    if decided:
        return "counted as people decided"
    if sheet.status == "counted":
        return "counted as the scanner read it (never flagged)"
    if sheet.status == "needs_review":
        return "awaiting review: counted as read until people decide" if in_cvr else "awaiting review"
    return "set aside, not counted: " + "; ".join(reason_words(r.code) for r in sheet.reasons)


def _template_words(sheet: ReviewSheet, page) -> str:
    where = f"style {sheet.style_id} page {page.layout_page}" if page.layout_page else "page not identified"
    held = "" if sheet.templates is not None else " (not recorded in this store)"
    return f"template set {page.template_set[:12]}{held}, {where}"


def explain_ballot(store, conn: Connection, sheet_id: int) -> BallotExplanation:
    """Everything about one sheet, for the CLI and the review app (see the module docstring)."""
    source = StoreSource(store)
    election = source.election()
    stored = store.sheet(int(sheet_id))
    sheet = source.sheet(str(sheet_id))
    decision = current_decisions(conn).get(str(sheet_id))
    after = votes_from_dict(json.loads(decision["after_votes"])) if decision is not None else None
    write_ins = (
        {tuple(k.split("/", 1)): v for k, v in json.loads(decision["write_ins"]).items()}
        if decision is not None
        else {}
    )
    images = tuple(
        {
            "side": p.side,
            "page": {1: "front", 2: "back"}.get(p.layout_page, "unknown"),
            "file": stored.pages[p.side - 1].source,
            "sha256": p.sha256,
            # Read with a template set (issue #11): which one, so the layout it was scored on can be found.
            **({"template": _template_words(sheet, p)} if p.template_set else {}),
        }
        for p in sheet.pages_in_order
    )
    # Reasons the election does not queue (undervotes, by default) are not why it was flagged.
    shown = [r for r in sheet.reasons if stored.status != "needs_review" or r.code in election.adjudication.reasons]
    reasons = tuple(
        {
            "code": r.code,
            "words": reason_words(r.code),
            "contest_id": r.contest_id or "",
            "sentence": _sentence(election, sheet, r),
        }
        for r in shown
    )
    entries = ballot_entries(conn, election, str(sheet_id))
    cvr = _cvr_place(store, conn, stored) if stored.status != "duplicate" else None
    dup = None
    if stored.duplicate_of is not None:
        dup = store.sheet(stored.duplicate_of).label
    return BallotExplanation(
        sheet_id=str(sheet_id),
        reference=stored.label,
        identity=stored.identity,
        batch=stored.batch.name,
        position=stored.position,
        vote_type=stored.batch.vote_type,
        container=ARLO_CONTAINERS.get(stored.batch.vote_type, stored.batch.vote_type),
        precinct_id=(after.precinct_id if after is not None else None) or stored.precinct_id,
        style_id=(after.style_id if after is not None else None) or stored.style_id,
        store_status=stored.status,
        outcome=_outcome(stored, decision is not None, cvr is not None),
        images=images,
        reasons=reasons,
        contests=_contests(election, sheet, after, write_ins),
        entries=entries,
        disagreements=disagreements(entries),
        history=_history(conn, str(sheet_id)),
        cvr=cvr,
        duplicate_of=dup,
    )


__all__ = [
    "BallotExplanation",
    "BallotNotFound",
    "explain_ballot",
    "find_sheet",
]
