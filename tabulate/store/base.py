"""What the store keeps and the one interface every backend implements.

The central-count pipeline, the review queue and the reports talk to a
`Store`; SQLite (`tabulate.store.sqlite`) is the default backend and a
PostgreSQL one would be a second implementation of the same protocol.

The store's job under the reliability contract (DESIGN.md): every sheet a
scanner produced is recorded exactly once -- counted, queued for review, or
set aside with a reason -- and nothing is counted twice.

* A sheet is identified by the SHA-256 of its images' content (`sheet_identity`).
  Recording the same sheet again in the same batch adds nothing.
* The same images in another batch (or a sheet sharing a page with a sheet
  already counted) are recorded as a **duplicate** of the first, never counted.
* `Store.record_sheets` writes a group of sheets in one transaction: a crash
  leaves either all of them or none, never half a sheet.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Protocol, Sequence, runtime_checkable

from ..core.errors import TabulateError

# Re-exported: older code imports these from here.
from ..core.sheets import LIVE_STATUSES as LIVE_STATUSES
from ..core.sheets import SHEET_STATUSES as SHEET_STATUSES
from ..core.sheets import SheetReason as SheetReason
from ..core.sheets import SheetStatus as SheetStatus
from ..core.vocabulary import ballot_reference
from ..core.votes import BallotVotes, ContestVotes
from ..election import Election
from .journal import ChainCheck, JournalEntry
from .journal_signing import Registry, Signer

#: Reason codes the store gives a duplicate.
DUPLICATE_SHEET = "duplicate_sheet"
PAGE_ALREADY_SCANNED = "page_already_scanned"


class StoreError(TabulateError):
    """The store cannot be opened or used (missing, not a store, newer schema, unwritable)."""

    code = "store"


class ElectionMismatchError(StoreError):
    """The store already holds a different election; one store holds one election."""

    code = "store_election_mismatch"


class BatchMismatchError(StoreError):
    """A batch name already used with a different vote type or precinct."""

    code = "store_batch_mismatch"


@dataclass(frozen=True)
class PageImage:
    """One scanned page: where it came from and the SHA-256 of its content.

    ``source`` is the file path, or ``path#N`` for page N (from 1) of a
    multi-page TIFF.
    """

    source: str
    sha256: str


def sheet_identity(page_digests: Iterable[str]) -> str:
    """The identity of a sheet: SHA-256 over its pages' SHA-256s, sorted.

    Sorting makes the identity independent of which page the scanner produced
    first, so the same two images paired the other way round are still the
    same sheet.
    """
    h = hashlib.sha256()
    for d in sorted(page_digests):
        h.update(bytes.fromhex(d))
    return h.hexdigest()


@dataclass(frozen=True)
class SheetOutcome:
    """One sheet as the pipeline read it, ready to be recorded.

    ``position`` is the sheet's place (from 1) in the batch as fed.
    ``occurrence`` counts earlier sheets with the same identity in the same
    input (0 for the first), so that feeding the same content twice in one
    batch records a duplicate while re-running the batch records nothing.
    ``status`` is the reader's verdict (``counted``, ``needs_review`` or
    ``rejected``); the store may turn it into ``duplicate``. ``evidence`` (the
    reader's ``SheetReading.to_dict``: a `tabulate.store.evidence` blob, or
    JSON text) and ``marks`` (JSON text) are kept so any vote can be explained later.
    """

    position: int
    identity: str
    pages: tuple[PageImage, ...]
    status: SheetStatus
    occurrence: int = 0
    reasons: tuple[SheetReason, ...] = ()
    style_id: str | None = None
    precinct_id: str | None = None
    evidence: bytes | str | None = None
    marks: str | None = None
    votes: BallotVotes | None = None


@dataclass(frozen=True)
class Recorded:
    """What `Store.record_sheets` did with one outcome.

    ``added`` is False when the batch already held this sheet (a re-run or a
    resume): nothing was written. ``status`` is the sheet's status in the
    store (``duplicate`` when it repeats a sheet recorded earlier).
    ``reasons`` are the codes that put it there: the reasons the election
    queues for review, or why it was set aside (empty when not added).
    """

    sheet_id: int
    added: bool
    status: SheetStatus
    duplicate_of: int | None = None
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class Batch:
    """Sheets scanned together: a tub, a precinct's box, one absentee day."""

    id: int
    name: str
    vote_type: str
    precinct_id: str | None
    operator: str | None
    started_at: str
    ended_at: str | None = None
    #: The scanner or scanning station (NIST CVR ``CreatingDeviceId``).
    tabulator: str = "1"


@dataclass(frozen=True)
class BatchCounts:
    """How many sheets of a batch have each status.

    ``by_reason`` counts sheets per (status, reason code), for the reasons that
    put a sheet in review (those the election queues) or set it aside.
    """

    batch: Batch
    counted: int = 0
    needs_review: int = 0
    rejected: int = 0
    duplicate: int = 0
    by_reason: Mapping[tuple[str, str], int] = field(default_factory=dict)
    #: Of ``counted``, the sheets a person decided (review or entry by hand); 0 as the store alone counts.
    decided: int = 0

    @property
    def sheets(self) -> int:
        """Every sheet recorded: counted + needs review + rejected + duplicates."""
        return self.counted + self.needs_review + self.rejected + self.duplicate


@dataclass(frozen=True)
class StoredSheet:
    """A recorded sheet with everything needed to explain and report it."""

    id: int
    batch: Batch
    position: int
    identity: str
    status: SheetStatus
    pages: tuple[PageImage, ...]
    reasons: tuple[SheetReason, ...]
    style_id: str | None
    precinct_id: str | None
    duplicate_of: int | None
    recorded_at: str
    interpreted: BallotVotes | None
    #: Contest id -> the votes after adjudication, where a person changed them.
    modified: Mapping[str, ContestVotes]
    marks: str | None

    @property
    def ballot_id(self) -> str:
        """The ballot's id in reports and CVRs: its identity (unique among live sheets)."""
        return self.identity

    @property
    def label(self) -> str:
        """Where a person finds the paper: ``<batch> · <position>`` (`tabulate.core.vocabulary`)."""
        return ballot_reference(self.batch.name, self.position)


#: An entry of the store's journal (the name it had as the store's own event log).
Event = JournalEntry


@runtime_checkable
class Store(Protocol):
    """Persistence for one election: batches, sheets, readings, votes and the event log."""

    path: str

    # -- the election -------------------------------------------------------------
    def election(self) -> Election | None:
        """The election this store holds, or None for a new, empty store."""

    def bind_election(self, election: Election, definition: Mapping) -> None:
        """Tie a new store to ``election``; raise `ElectionMismatchError` if it holds another."""

    # -- batches --------------------------------------------------------------------
    def open_batch(
        self,
        name: str,
        vote_type: str,
        *,
        precinct_id: str | None = None,
        operator: str | None = None,
        tabulator: str = "1",
    ) -> Batch:
        """Create a batch, or return it unchanged to resume it (`BatchMismatchError` if it differs)."""

    def close_batch(self, batch_id: int) -> Batch:
        """Mark a batch as fed to the end (``ended_at``)."""

    def batches(self) -> list[Batch]:
        """Every batch, in the order they were opened."""

    def batch_counts(self) -> list[BatchCounts]:
        """Sheets per status and per reason, for every batch."""

    # -- sheets -----------------------------------------------------------------------
    def has_sheet(self, batch_id: int, identity: str, occurrence: int) -> bool:
        """Whether this batch already holds this sheet (the resume check)."""

    def sheet_count(self, batch_id: int) -> int:
        """How many sheets the batch holds."""

    def recorded_sources(self, batch_id: int) -> Iterator[tuple[str, tuple[str, ...]]]:
        """``(identity, its pages' sources)`` of every sheet the batch holds (a resume's readers skip these)."""

    def record_sheets(self, batch_id: int, outcomes: Sequence[SheetOutcome]) -> list[Recorded]:
        """Record a group of sheets in one transaction (all or none); see the module docstring."""

    def sheets(self, *, batch_id: int | None = None, status: str | None = None) -> Iterator[StoredSheet]:
        """Recorded sheets in batch then position order, optionally filtered."""

    def sheet(self, sheet_id: int) -> StoredSheet:
        """One sheet by id (KeyError if none)."""

    def evidence(self, sheet_id: int) -> dict | None:
        """The reader's evidence for one sheet (its `SheetReading.to_dict`), or None."""

    def set_modified(self, sheet_id: int, votes: Sequence[ContestVotes], *, actor: str, note: str = "") -> None:
        """Record adjudicated votes for some contests of a sheet and log who did it."""

    # -- the journal (tabulate.store.journal, docs/store.md) ----------------------------
    def log(
        self,
        kind: str,
        *,
        actor: str | None = None,
        batch_id: int | None = None,
        sheet_id: int | None = None,
        data: Mapping | None = None,
    ) -> JournalEntry:
        """Append an entry that seals no row (an export, a note)."""

    def journal(self) -> Iterator[JournalEntry]:
        """The journal in order."""

    def journal_head(self) -> tuple[int, str]:
        """The last entry's number and hash, to publish: ``(0, GENESIS)`` when empty."""

    def verify_journal(self, *, from_head: str | None = None, county_key: str | None = None) -> ChainCheck:
        """Check the chain and every entry's signature (and that it still holds a head published earlier;
        that its stations were registered by the county key given)."""

    def journal_registry(self) -> Registry:
        """The stations the journal registers and the county key that registered them (docs/security.md)."""

    def signing_problem(self, signer: Signer | None) -> str | None:
        """Why ``signer`` (None: no key) could not write this journal, in one line; None when it can."""

    def register_station(self, name: str, public_key: str, *, county: Signer, actor: str | None = None) -> JournalEntry:
        """Register a station's public key (hex) with an entry signed by the county key."""

    def facts(self) -> Iterator[tuple[str, str]]:
        """Every row the store seals, as ``(fact key, digest)``: the election, batches and sheets."""

    def events(self) -> Iterator[JournalEntry]:
        """The journal in order (the older name)."""

    def verify_events(self) -> int:
        """Check the chain; return the number of entries, raise `StoreError` at the first break."""

    def close(self) -> None:
        """Release the store."""


def is_postgres_url(location: object) -> bool:
    """Whether ``location`` names a PostgreSQL store (``postgresql://user@host/dbname``) rather than a file."""
    return str(location).startswith(("postgresql://", "postgres://"))
