"""One sheet's pages to its outcome: read (detect), then apply the rules (31 KAR 6:030).

An *interpreter* is any picklable function ``(election, pages) -> Interpretation``
where ``pages`` holds the bytes of the sheet's one or two pages.
`interpret_sheet` is the real one; tests inject small fakes. An interpreter
must not raise on bad input (the worker turns an exception into a
``reader_failed`` rejection anyway, so a bug never stops a batch).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Sequence

from ..core.sheets import SheetReason, SheetStatus
from ..core.votes import BallotVotes
from ..election import Election


@dataclass(frozen=True)
class Interpretation:
    """What reading a sheet decided: its status, reasons, votes and the evidence behind them."""

    status: SheetStatus
    reasons: tuple[SheetReason, ...] = ()
    style_id: str | None = None
    precinct_id: str | None = None
    #: The reader's evidence (`SheetReading.to_dict`): a compact blob (`tabulate.store.evidence`),
    #: encoded here in the worker so no JSON is written for it; JSON text is accepted too.
    evidence: bytes | str | None = None
    #: JSON text of the marks (`tabulate.rules.marks_to_dict`).
    marks: str | None = None
    votes: BallotVotes | None = None


Interpreter = Callable[[Election, Sequence[bytes]], Interpretation]


def _json(value) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def votes_outcome(votes: BallotVotes) -> tuple[SheetStatus, tuple[SheetReason, ...]]:
    """A readable sheet's status from its votes: ``needs_review`` if the election queues a reason."""
    reasons = tuple(SheetReason(r.code, r.detail, r.contest_id, r.option_id) for r in votes.reasons)
    return ("needs_review" if votes.needs_review else "counted"), reasons


def _reasons(reading) -> tuple[SheetReason, ...]:
    """A rejected reading's reasons: each rejected page's own code when pages were at fault.

    The reader's sheet-level code for a bad page is ``page_rejected``; the
    clerk and the summary need the page's reason (``wrong_election``,
    ``corrupt_image`` ...), so each bad page gives its own.
    """
    bad = [(n, p) for n, p in enumerate(reading.pages, 1) if not p.ok] if reading.reason_code == "page_rejected" else []
    if not bad:
        return (SheetReason(reading.reason_code or "rejected", reading.reason or ""),)
    # Pages of a rejected sheet stay in feed order: page n is the sheet's n-th image.
    return tuple(SheetReason(p.reason_code, f"page {n}: {p.reason or ''}") for n, p in bad)


def interpret_sheet(election: Election, pages: Sequence[bytes], reader=None) -> Interpretation:
    """Read one sheet with `tabulate.detect` and apply `tabulate.rules`.

    A rejected reading gives a ``rejected`` outcome with the reader's reason
    codes and sentences; otherwise the marks go through the rules and the
    sheet is ``counted`` or ``needs_review`` (a reason the election queues).
    """
    from ..detect import read_sheet, sheet_marks
    from ..rules import MarksError, apply_rules, marks_to_dict
    from ..store.evidence_reading import encode_reading  # imports the reader: only where sheets are read

    reading = read_sheet(election, list(pages), reader=reader)
    evidence = encode_reading(reading, election)  # the bytes of encode_evidence(reading.to_dict(), election)
    if not reading.ok:
        return Interpretation("rejected", _reasons(reading), reading.style_id, reading.precinct_id, evidence)
    marks = sheet_marks(reading)
    try:
        votes = apply_rules(election, marks)
    except MarksError as e:
        return Interpretation(
            "rejected",
            (SheetReason("marks_not_in_election", str(e).splitlines()[0]),),
            marks.style_id,
            marks.precinct_id,
            evidence,
        )
    status, reasons = votes_outcome(votes)
    return Interpretation(
        status, reasons, marks.style_id, marks.precinct_id, evidence, _json(marks_to_dict(marks)), votes
    )


@dataclass(frozen=True)
class TemplateInterpreter:
    """`interpret_sheet` with a template set (``tabulate scan --templates DIR``); picklable for the workers."""

    folder: str

    def __call__(self, election: Election, pages: Sequence[bytes]) -> Interpretation:
        from ..templates import TemplateReader

        return interpret_sheet(election, pages, reader=TemplateReader(self.folder))
