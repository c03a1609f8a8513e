"""Adjudication's window on the store: the sheets to review, their evidence, and where decisions go.

Everything adjudication reads about a ballot (reasons, marks, votes, page
images and their transforms) and everything it writes back (the decided
votes and write-in names) passes through `StoreSource`, a thin adapter over
`tabulate.store.Store`. Adjudication's own tables (users, leases, entries,
decisions, the audit log) are separate (`tabulate.adjudicate.schema`).

Images are found only through the store: a request names a sheet id and a
page number, the adapter looks up the file the store recorded for that page
and checks its sha256 against the store's before a single byte is shown. No
path ever comes from a request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

import numpy as np

from ..core.errors import TabulateError
from ..election import PAPER_SIZES_IN, Election
from ..rules import AdjudicationReason, BallotMarks, BallotVotes, ContestVotes
from ..store.records import marks_from_json
from ..templates import TemplateSet


class SourceError(TabulateError, RuntimeError):
    """The store cannot give what adjudication needs (a missing sheet, a changed image file ...)."""

    code = "review_source"


@dataclass(frozen=True)
class PageSide:
    """One scanned image of a sheet.

    ``side`` is its number in the store (1 = first fed), which image URLs
    carry; ``layout_page`` is 1 (front) or 2 (back) when the reader could tell;
    ``affine`` maps page inches to image ``(col, row)`` (a 2x3 array), when
    the reader registered the page; ``template_set`` the digest of the
    template set it was read with (None: our own layout).
    """

    side: int
    sha256: str
    layout_page: int | None = None
    affine: np.ndarray | None = None
    template_set: str | None = None


@dataclass(frozen=True)
class ReviewSheet:
    """One sheet as a review panel sees it (``sheet_id`` is the store's id as text)."""

    sheet_id: str
    ballot_id: str
    batch: str
    position: int
    vote_type: str
    status: str
    style_id: str | None
    precinct_id: str | None
    reasons: tuple[AdjudicationReason, ...]
    marks: BallotMarks | None
    interpreted: BallotVotes | None
    pages: tuple[PageSide, ...] = ()
    #: ``(contest id, option id) -> the reader's evidence for the target`` (features, hand-count clauses).
    targets: Mapping[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict)
    modified: Mapping[str, ContestVotes] = field(default_factory=dict)
    #: Read with a template set: its digest, and the set as the store's journal records it (None when
    #: the store does not record it). Our own ballots: both None.
    template_set: str | None = None
    templates: TemplateSet | None = field(default=None, compare=False, repr=False)

    @property
    def fwab(self) -> bool:
        return bool(self.marks and self.marks.fwab)

    def side_for(self, layout_page: int) -> PageSide | None:
        """The image showing the front (1) or back (2), if known."""
        for p in self.pages:
            if p.layout_page == layout_page:
                return p
        return None

    @property
    def pages_in_order(self) -> tuple[PageSide, ...]:
        """Front, back, then any image whose side is unknown."""
        return tuple(sorted(self.pages, key=lambda p: (p.layout_page or 9, p.side)))


@dataclass(frozen=True)
class Applied:
    """What the store is told about one decision."""

    votes: BallotVotes
    write_ins: Mapping[tuple[str, str], str | None]
    actor: str
    note: str


def _affine(value: Any) -> np.ndarray | None:
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if a.shape == (6,):
        a = a.reshape(2, 3)
    elif a.shape == (3, 3):
        a = a[:2]
    return a if a.shape == (2, 3) and np.all(np.isfinite(a)) else None


def page_sides(evidence: Any, stored_pages: Sequence) -> tuple[PageSide, ...]:
    """Match the reader's evidence pages to the store's images by sha256.

    The evidence (`tabulate.detect.SheetReading.to_dict`) lists pages front
    first with ``digest``, ``style_code.page`` and ``transform`` (row-major
    ``a..f``: ``col = a x + b y + c``, ``row = d x + e y + f``).
    """
    by_digest: dict[str, tuple[int | None, np.ndarray | None, str | None]] = {}
    ev_pages = evidence.get("pages") if isinstance(evidence, Mapping) else None
    for page in ev_pages if isinstance(ev_pages, Sequence) else ():
        if not isinstance(page, Mapping):
            continue
        code = page.get("style_code") if isinstance(page.get("style_code"), Mapping) else {}
        number = code.get("page", page.get("page"))
        affine = (
            _affine(page.get("transform", page.get("affine")))
            if page.get("transform", page.get("affine")) is not None
            else None
        )
        tset = page.get("template_set") if isinstance(page.get("template_set"), str) else None
        if isinstance(page.get("digest"), str):
            by_digest[page["digest"]] = (number if number in (1, 2) else None, affine, tset)
    out = []
    for side, p in enumerate(stored_pages, 1):
        number, affine, tset = by_digest.get(p.sha256, (None, None, None))
        out.append(PageSide(side, p.sha256, number, affine, tset))
    return tuple(out)


def target_evidence(evidence: Any) -> dict[tuple[str, str], Mapping[str, Any]]:
    out = {}
    ev_pages = evidence.get("pages") if isinstance(evidence, Mapping) else None
    for page in ev_pages if isinstance(ev_pages, Sequence) else ():
        for t in page.get("targets", ()) if isinstance(page, Mapping) else ():
            if isinstance(t, Mapping) and "contest_id" in t and "option_id" in t:
                out[(t["contest_id"], t["option_id"])] = t
    return out


class StoreSource:
    """The adapter over a `tabulate.store.Store` (SQLite by default)."""

    def __init__(self, store, *, base_dir: str | Path | None = None):
        self.store = store
        self._base_dir = Path(base_dir) if base_dir is not None else Path(store.path).resolve().parent
        self._election: Election | None = None
        self._template_sets: dict = {}

    # -- reading -------------------------------------------------------------------
    def election(self) -> Election:
        if self._election is None:
            election = self.store.election()
            if election is None:
                raise SourceError(f"{self.store.path} holds no election yet: scan a batch first")
            self._election = election
        return self._election

    def _review_sheet(self, s) -> ReviewSheet:
        marks = None
        if s.marks and s.style_id:
            try:
                marks = marks_from_json(s.marks, s.ballot_id, s.style_id, s.precinct_id)
            except (ValueError, AttributeError, TypeError):
                marks = None
        evidence = None
        get_evidence = getattr(self.store, "evidence", None)
        if get_evidence is not None:
            try:
                evidence = get_evidence(s.id)
            except (KeyError, ValueError):
                evidence = None
        reasons = tuple(AdjudicationReason(r.code, r.contest_id, r.option_id, r.detail) for r in s.reasons)
        pages = page_sides(evidence, s.pages)
        digest = next((p.template_set for p in pages if p.template_set), None)
        tset = self.template_set(digest) if digest else None
        return ReviewSheet(
            sheet_id=str(s.id),
            ballot_id=s.ballot_id,
            batch=s.batch.name,
            position=s.position,
            vote_type=s.batch.vote_type,
            status=s.status,
            style_id=s.style_id,
            precinct_id=s.precinct_id,
            reasons=reasons,
            marks=marks,
            interpreted=s.interpreted,
            pages=pages,
            targets=target_evidence(evidence),
            modified=dict(s.modified),
            template_set=digest,
            templates=tset,
        )

    def template_set(self, digest: str) -> TemplateSet | None:
        """The template set the store's journal records under ``digest`` (`tabulate.templates.recorded`),
        or None; the journal is read again only when a digest is new to this source."""
        from ..templates import JOURNAL_KIND, recorded_sets

        if digest not in self._template_sets:
            self._template_sets.update(recorded_sets(e for e in self.store.journal() if e.kind == JOURNAL_KIND))
            self._template_sets.setdefault(digest, None)
        return self._template_sets[digest]

    def sheets(self, status: str) -> Iterator[ReviewSheet]:
        """Sheets with a store status (``needs_review``, ``rejected`` ...), in batch order."""
        for s in self.store.sheets(status=status):
            yield self._review_sheet(s)

    def sheet(self, sheet_id: str) -> ReviewSheet:
        try:
            return self._review_sheet(self.store.sheet(int(sheet_id)))
        except (KeyError, ValueError):
            raise SourceError(f"no sheet {sheet_id!r} in the store") from None

    def page_image(self, sheet_id: str, page: int) -> np.ndarray:
        """The scanned page as a grey ``uint8`` array, after checking it is the file that was scanned.

        Raises
        ------
        SourceError
            No such sheet or page, the file is gone, or its sha256 differs from
            the one recorded when it was scanned.
        """
        try:
            stored = self.store.sheet(int(sheet_id))
        except (KeyError, ValueError):
            raise SourceError(f"no sheet {sheet_id!r} in the store") from None
        if not 1 <= page <= len(stored.pages):
            raise SourceError(f"sheet {sheet_id} has no page {page}")
        image = stored.pages[page - 1]
        from ..central import PageLoadError, PageSource, load_page
        from ..detect import ReadError, decode_page, headers

        file_part, hash_mark, frame = image.source.rpartition("#") if "#" in image.source else (image.source, "", "")
        path = Path(file_part)
        if not path.is_absolute() and not path.exists():
            path = self._base_dir / path  # recorded relative to where `tabulate scan` ran
        try:
            paper_in = PAPER_SIZES_IN[self.election().paper_size]
            data, digest = load_page(PageSource(str(path), int(frame) if hash_mark else None), paper_in)
        except (PageLoadError, ValueError) as e:
            raise SourceError(f"the image of sheet {sheet_id} page {page} cannot be read: {e}") from None
        if digest != image.sha256:
            raise SourceError(
                f"the image file of sheet {sheet_id} page {page} has changed since it was scanned "
                "(its sha256 differs), so it is not shown"
            )
        try:
            return decode_page(data, headers(data)[0])
        except (ReadError, IndexError) as e:
            raise SourceError(f"the image of sheet {sheet_id} page {page} cannot be decoded: {e}") from None

    # -- writing ---------------------------------------------------------------------
    def apply(self, sheet_id: str, applied: Applied) -> None:
        """Write decided votes to the store.

        The contest votes go in through ``set_modified``; the write-in names
        and the status stay in adjudication's tables
        (`tabulate.adjudicate.records` folds them in).
        """
        sheet = self.store.sheet(int(sheet_id))
        if sheet.interpreted is None:
            raise SourceError(
                f"sheet {sheet_id} has no machine votes, and this store cannot take votes entered by hand yet"
            )
        self.store.set_modified(int(sheet_id), list(applied.votes.contests), actor=applied.actor, note=applied.note)

    def unapply(self, sheet_id: str, *, actor: str, note: str) -> None:
        """A decision was reopened: the store keeps its copy of the votes until the next decision."""
