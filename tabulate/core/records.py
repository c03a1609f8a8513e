"""One counted sheet as every report reads it: `BallotRecord`.

The store yields these; the reports never read the store, images or the rules
themselves. A record keeps the whole story of one sheet: the marks read from
its images (evidence), the votes the rules gave (``interpreted``), the votes
after people decided (``modified``), how each write-in name was resolved, and
where the sheet sits physically (tabulator, batch, position) so that an
auditor can pull it from its container.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Mapping

from .errors import ReportError
from .marks import BallotMarks
from .vote_types import VOTE_TYPES
from .votes import BallotVotes

RecordStatus = Literal["counted", "needs_review"]
RECORD_STATUSES: tuple[str, ...] = ("counted", "needs_review")

_SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class BallotRecord:
    """One counted sheet, as every report reads it.

    Parameters
    ----------
    ballot_id
        Unique id of the sheet (the store uses the images' content hash).
    batch
        Name of the batch the sheet was scanned in.
    position
        1-based place of the sheet in its batch, in scan order. Auditors use it
        to find the sheet (Arlo ``RecordId``, NIST ``BatchSequenceId``).
    vote_type
        One of `tabulate.election.VOTE_TYPES`; the batch's vote type.
    precinct_id, style_id
        Where the voter votes and the ballot style printed on the sheet.
    marks
        Every target's reading (scores and classes): the evidence.
    interpreted
        The rules' votes (31 KAR 6:030).
    modified
        The votes after people decided (adjudication), or ``None``.
    images
        ``(file name, sha256 hex)`` per page image, front first.
    write_ins
        ``(contest_id, write-in option_id) -> declared write-in candidate id``,
        or ``None`` where people decided the name is not counted. A write-in
        selection absent from the mapping is still pending.
    status
        ``"counted"``, or ``"needs_review"`` while people have not yet decided it.
    tabulator
        The scanner (or scanning station) that read the sheet.
    """

    ballot_id: str
    batch: str
    position: int
    vote_type: str
    precinct_id: str
    style_id: str
    marks: BallotMarks
    interpreted: BallotVotes
    modified: BallotVotes | None = None
    images: tuple[tuple[str, str], ...] = ()
    write_ins: Mapping[tuple[str, str], str | None] = field(default_factory=dict)
    status: RecordStatus = "counted"
    tabulator: str = "1"

    def __post_init__(self) -> None:
        where = f"ballot {self.ballot_id!r}"
        if self.vote_type not in VOTE_TYPES:
            raise ReportError(f"{where}: vote type {self.vote_type!r} is not one of {', '.join(VOTE_TYPES)}")
        if self.status not in RECORD_STATUSES:
            raise ReportError(f"{where}: status {self.status!r} is not one of {', '.join(RECORD_STATUSES)}")
        if not isinstance(self.position, int) or self.position < 1:
            raise ReportError(f"{where}: position in batch must be a whole number from 1, not {self.position!r}")
        for name, digest in self.images:
            if not _SHA256.match(digest):
                raise ReportError(f"{where}: image {name!r} has no lowercase sha256 hex digest ({digest!r})")
        for what, v in (
            ("marks", self.marks),
            ("interpreted votes", self.interpreted),
            ("modified votes", self.modified),
        ):
            if v is None:
                continue
            if v.ballot_id != self.ballot_id or v.style_id != self.style_id:
                raise ReportError(
                    f"{where}: {what} are for ballot {v.ballot_id!r} style {v.style_id!r}, not style {self.style_id!r}"
                )

    @property
    def votes(self) -> BallotVotes:
        """The effective votes: ``modified`` when people decided, else ``interpreted``."""
        return self.modified if self.modified is not None else self.interpreted

    @property
    def decided(self) -> bool:
        """True when people changed or completed the rules' reading (votes or write-in names)."""
        return self.modified is not None or bool(self.write_ins)
