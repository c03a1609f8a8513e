"""A batch-level warning that a bitonal scanner may have erased the voters' pencil.

A bitonal (black-and-white) scanner keeps a pixel black only where it is
darker than its threshold. Set too dark, it erases light pencil and even a
solid pencil fill: the sheet then reads as a ballot with no vote in those
contests, and nothing about one such sheet looks wrong. Under 31 KAR 6:030
Section 2(1)(a) a vote on a scan voting system is "Filling in the oval or box
or connecting the arrow next to the candidate's name", and under Section
3(1)(a) a person counts "The majority of an oval, box, or space ... is filled
in": a filled oval the image no longer shows is a vote the count has lost
without anyone being asked.

The same threshold shows across a batch: the printed outlines wash out (the
reader flags such pages ``outlines_faint``), and far more contests read
blank than voters leave blank. `pencil_warning` looks at a batch's bitonal
sheets for either sign; the clerk's remedy is to rescan the batch grey or
with the threshold lighter, and compare (`tabulate scan` into a new batch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from ..core.vocabulary import ERROR_DIFFUSED_FLAG
from ..core.votes import BallotVotes
from ..store.base import Batch, Store

#: Fewer bitonal sheets than this say nothing about the scanner.
MIN_SHEETS = 10
#: Share of bitonal pages whose printed outlines are hardly seen (``outlines_faint``) that warns.
FAINT_SHARE = 0.2
#: Share of the contests on bitonal sheets read blank that warns (no grey sheets to compare with).
BLANK_SHARE = 0.5
#: With grey sheets in the same batch: how much more often bitonal sheets' contests may read blank.
BLANK_EXCESS = 0.25
#: Sheets of a batch `batch_warnings` looks at (evenly spread): enough to see a scanner setting, cheap for `status`.
SAMPLE = 400

CODE = "pencil_may_have_vanished"


@dataclass(frozen=True)
class SheetLook:
    """What the check needs of one read sheet."""

    bitonal: bool
    contests: int
    blank_contests: int
    pages: int
    faint_pages: int
    #: Pages the reader read as error diffusion (flag ``error_diffused``: `tabulate.central.diffused`).
    diffused_pages: int = 0


@dataclass(frozen=True)
class BatchWarning:
    """A warning about a whole batch: a stable ``code`` and one line for the clerk."""

    batch: str
    code: str
    message: str


def _is_bitonal(page: Mapping) -> bool:
    # The reader measures paper and ink on the page's registration marks: only a black-and-white
    # image gives exactly white paper and black ink (a grey scan has sensor noise and a paper tone).
    return page.get("paper") is not None and page["paper"] >= 254.5 and page.get("ink", 255) <= 0.5


def sheet_look(evidence: Mapping | None, votes: BallotVotes | None) -> SheetLook | None:
    """The look of one sheet from its stored evidence and votes (None for a sheet that was not read)."""
    if not evidence or votes is None:
        return None
    pages = [p for p in evidence.get("pages", ()) if p.get("ok")]
    if not pages:
        return None
    return SheetLook(
        bitonal=all(_is_bitonal(p) for p in pages),
        contests=len(votes.contests),
        blank_contests=sum(c.status == "blank" for c in votes.contests),
        pages=len(pages),
        faint_pages=sum("outlines_faint" in p.get("flags", ()) for p in pages),
        diffused_pages=sum(ERROR_DIFFUSED_FLAG in p.get("flags", ()) for p in pages),
    )


def _blank_share(looks: list[SheetLook]) -> float:
    contests = sum(x.contests for x in looks)
    return sum(x.blank_contests for x in looks) / contests if contests else 0.0


def pencil_warning(batch: str, looks: Iterable[SheetLook | None]) -> BatchWarning | None:
    """Warn when a batch's bitonal sheets show thin print or unusually many blank contests."""
    seen = [x for x in looks if x is not None]
    bitonal = [x for x in seen if x.bitonal]
    if len(bitonal) < MIN_SHEETS:
        return None
    pages = sum(x.pages for x in bitonal)
    faint = sum(x.faint_pages for x in bitonal) / pages if pages else 0.0
    blank = _blank_share(bitonal)
    grey = [x for x in seen if not x.bitonal]
    limit = min(BLANK_SHARE, _blank_share(grey) + BLANK_EXCESS) if len(grey) >= MIN_SHEETS else BLANK_SHARE
    signs = []
    if faint >= FAINT_SHARE:
        signs.append(f"printed outlines faint on {100 * faint:.0f} % of its bitonal pages")
    if blank >= limit:
        signs.append(f"{100 * blank:.0f} % of the contests on its bitonal sheets read blank")
    if not signs:
        return None
    return BatchWarning(
        batch,
        CODE,
        f"batch {batch!r}: {' and '.join(signs)} ({len(bitonal)} bitonal sheets): the scanner's black-and-white "
        "threshold may have erased pencil marks; rescan a few sheets in grey and compare",
    )


def _step(store: Store, batch: Batch) -> int:
    """Every how many read sheets `_sample` looks at one: about `SAMPLE` of them.

    The read sheets are the live ones (counted or in review), so the batch's counts give their number."""
    counts = next((c for c in store.batch_counts() if c.batch.id == batch.id), None)
    live = 0 if counts is None else counts.counted + counts.needs_review
    return max(1, live // SAMPLE)


def _sample(store: Store, batch: Batch, step: int | None = None) -> list[SheetLook | None]:
    """Every ``step``-th read sheet of the batch (about `SAMPLE` of them), streamed.

    The sheets are not held in a list: the check runs at the end of every
    scan, and a 40,000-sheet batch's sheets (marks and votes) would be a few
    hundred MB in the scan's process.
    """
    step = _step(store, batch) if step is None else step
    read = (s for s in store.sheets(batch_id=batch.id) if s.interpreted is not None)
    return [sheet_look(store.evidence(s.id), s.interpreted) for k, s in enumerate(read) if k % step == 0]


def batch_warnings(store: Store, batches: Iterable[Batch] | None = None) -> list[BatchWarning]:
    """The warnings about the given batches (every batch of the store by default): a threshold that may
    have erased pencil (`pencil_warning`), pages made by error diffusion (`tabulate.central.diffused`)."""
    from .diffused import diffused_warning  # it builds on this module's `SheetLook` and `BatchWarning`

    out = []
    for b in store.batches() if batches is None else batches:
        step = _step(store, b)
        looks = _sample(store, b, step)
        for w in (pencil_warning(b.name, looks), diffused_warning(b.name, looks, step=step)):
            if w is not None:
                out.append(w)
    return out
