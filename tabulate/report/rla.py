"""Exports for risk-limiting-audit tools: a Dominion-style CVR CSV and an Arlo ballot manifest.

Arlo (VotingWorks) reads both as they are: the manifest lists every batch
(``Container, Tabulator, Batch Name, Number of Ballots``, and ``CVR`` for a
hybrid audit), the CVR file one row per sheet whose ``TabulatorNum`` and
``BatchId`` match the manifest's ``Tabulator`` and ``Batch Name``, and whose
``RecordId`` orders the sheets in their batch. Both are built from the same
sheets, so the counts agree.

**Positions are true to the paper.** Arlo numbers a batch's ballots 1..N and
tells auditors to count through the container to "ballot k". So every sheet
of paper in the batch counts: a sheet that was set aside stays in its
container, is counted in ``Number of Ballots`` and has a CVR row (``BallotType``
``set aside: <reason>``, every contest cell empty: no votes). ``RecordId`` is
the sheet's place among the batch's sheets of paper in scan order; a duplicate
(the same images fed again) is no sheet of paper and takes no place.
``ImprintedId`` is ``<tabulator>-<batch>-<position in the store>``, the sheet's
label in ``tabulate status`` and the review app.

The CVR CSV follows the Dominion "CVR export" layout:

1. the election title, the exporting application and, while sheets await
   review, ``provisional: N sheet(s) await review`` (Arlo ignores these cells);
2. blank under the eight id columns, then ``<contest title> (Vote For=<n>)``
   over each of its choice columns;
3. blank, then the choice names;
4. ``CvrNumber, TabulatorNum, BatchId, RecordId, ImprintedId, CountingGroup,
   PrecinctPortion, BallotType``, then each choice's party abbreviation;

``ImprintedId`` is the ballot's reference "batch · position", the same words
the review app, ``tabulate explain`` and the decisions CSV use to name it;
then one row per sheet: ``1``/``0`` per choice, empty where the contest is not
on the sheet's ballot style. **An overvoted contest carries the marks as read**
(a ``1`` for every marked choice), as Dominion's own export does: Arlo applies
the overvote rule itself, and compares reported marks with the marks the audit
board sees, so zeros there would be a false discrepancy on every audited
overvote. The rules' outcome (no choice credited, 31 KAR 6:030 Section
2(2)(b)) is in the NIST SP 1500-103 CVR and in every tally.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Iterable

from .. import __version__
from ..core.errors import ReportError
from ..core.records import BallotRecord
from ..core.vocabulary import ballot_reference
from ..core.vote_types import VOTE_TYPES
from ..election.model import Contest, Election
from .csvsafe import writer as csv_writer
from .results import display_name, option_party
from .tally import ElectionIndex, check_record

#: Columns of the Arlo ballot manifest, exactly as Arlo expects them.
MANIFEST_COLUMNS: tuple[str, ...] = ("Container", "Tabulator", "Batch Name", "Number of Ballots")
#: The manifest column a hybrid audit needs: Y where the batch's ballots have CVRs.
HYBRID_COLUMN = "CVR"


@dataclass(frozen=True)
class SetAsideSheet:
    """A sheet of paper in a batch that carries no votes: the reader set it aside (a rejected sheet).

    It is still in its container, so the audit exports count it: Arlo numbers
    the ballots of a batch 1..N and auditors count through the box to reach
    "ballot k". A duplicate (the same images fed again) is no sheet of paper
    and is not one of these.
    """

    batch: str
    position: int
    vote_type: str
    reason: str
    precinct_id: str = ""
    tabulator: str = "1"

    def __post_init__(self) -> None:
        if self.vote_type not in VOTE_TYPES:
            raise ReportError(
                f"set-aside sheet {self.batch!r} #{self.position}: vote type {self.vote_type!r} "
                f"is not one of {', '.join(VOTE_TYPES)}"
            )
        if not isinstance(self.position, int) or self.position < 1:
            raise ReportError(f"set-aside sheet in batch {self.batch!r}: position must be a whole number from 1")


Sheet = BallotRecord | SetAsideSheet


def place(sheet: Sheet) -> tuple[str, str, int]:
    """Where the paper is: (tabulator, batch, position in the batch as scanned)."""
    return (sheet.tabulator, sheet.batch, sheet.position)


#: The id columns of a Dominion CVR export (row 4, before the choices).
DOMINION_ID_COLUMNS: tuple[str, ...] = (
    "CvrNumber",
    "TabulatorNum",
    "BatchId",
    "RecordId",
    "ImprintedId",
    "CountingGroup",
    "PrecinctPortion",
    "BallotType",
)

#: Kentucky vote type -> Arlo counting group: the one set of labels written for Arlo, in the
#: manifest's ``Container`` and the CVR's ``CountingGroup`` alike (Arlo builds a manifest from
#: a CVR's counting groups and checks them against this allow-list). Arlo's list has one name
#: for early in-person voting, so both in-person absentee types map to it; the batch name
#: keeps them apart.
ARLO_COUNTING_GROUPS: dict[str, str] = {
    "mail_in_absentee": "Absentee by Mail",
    "excused_in_person_absentee": "Advance Voting",
    "no_excuse_in_person_absentee": "Advance Voting",
    "election_day": "Election Day",
    "provisional": "Provisional",
}
#: The manifest's name for the same labels.
ARLO_CONTAINERS = ARLO_COUNTING_GROUPS


def _ordered(records: Iterable[BallotRecord], set_aside: Iterable[SetAsideSheet] = ()) -> list[tuple[int, Sheet]]:
    """Every sheet of paper by tabulator, batch and position, each with its place among its batch's sheets.

    Raises `ReportError` on a repeated sheet or place, or a batch of two vote types.
    """
    out: list[Sheet] = sorted([*records, *set_aside], key=lambda r: (*place(r), getattr(r, "ballot_id", "")))
    ids: set[str] = set()
    places: set[tuple[str, str, int]] = set()
    batch_type: dict[tuple[str, str], str] = {}
    for r in out:
        if isinstance(r, BallotRecord):
            if r.ballot_id in ids:
                raise ReportError(f"ballot {r.ballot_id!r} appears twice")
            ids.add(r.ballot_id)
        if place(r) in places:
            raise ReportError(f"two sheets at position {r.position} of batch {r.batch!r} on tabulator {r.tabulator!r}")
        vt = batch_type.setdefault(place(r)[:2], r.vote_type)
        if vt != r.vote_type:
            raise ReportError(
                f"batch {r.batch!r} on tabulator {r.tabulator!r} holds both {vt} and {r.vote_type} "
                f"ballots; a batch has one vote type"
            )
        places.add(place(r))
    numbered: list[tuple[int, Sheet]] = []
    batch, k = None, 0
    for r in out:
        k = k + 1 if place(r)[:2] == batch else 1
        batch = place(r)[:2]
        numbered.append((k, r))
    return numbered


def arlo_ballot_manifest_csv(
    records: Iterable[BallotRecord], set_aside: Iterable[SetAsideSheet] = (), *, hybrid: bool = False
) -> str:
    """The Arlo ballot manifest: one row per (tabulator, batch), columns `MANIFEST_COLUMNS`.

    ``Number of Ballots`` counts every sheet of paper in the batch: the
    records and the ``set_aside`` sheets. With ``hybrid`` a ``CVR`` column says
    ``Y`` for every batch (each has its sheets in our CVR export), as Arlo's
    hybrid audits ask. Rows are ordered by tabulator then batch name.
    """
    counts: dict[tuple[str, str], list] = {}
    for _k, r in _ordered(records, set_aside):
        counts.setdefault(place(r)[:2], [ARLO_COUNTING_GROUPS[r.vote_type], 0])[1] += 1
    out = io.StringIO()
    w = csv_writer(out, lineterminator="\n")
    w.writerow(MANIFEST_COLUMNS + ((HYBRID_COLUMN,) if hybrid else ()))
    for (tab, batch), (container, n) in counts.items():
        w.writerow([container, tab, batch, n] + (["Y"] if hybrid else []))
    return out.getvalue()


def _choice_names(contest: Contest) -> list[str]:
    names = [display_name(o.label, o.running_mate) for o in contest.options]
    lines = [i for i, o in enumerate(contest.options) if o.kind == "write_in"]
    if len(lines) > 1:
        for n, i in enumerate(lines, start=1):
            names[i] = f"Write-in {n}"
    for i, name in enumerate(names):
        if names.count(name) > 1:
            names[i] = f"{name} [{contest.options[i].id}]"
    return names


def _contest_headers(election: Election) -> dict[str, str]:
    heads = {c.id: f"{c.title} (Vote For={c.vote_for})" for c in election.contests}
    titles = [c.title for c in election.contests]
    for c in election.contests:
        if titles.count(c.title) > 1:  # Arlo keys contests by name
            heads[c.id] = f"{c.title} [{c.id}] (Vote For={c.vote_for})"
    return heads


def _marks_as_read(record: BallotRecord, contest: Contest) -> set[str]:
    """The choices marked on the paper, as read (the scanner's or a hand count's reading)."""
    marks = record.marks.marks.get(contest.id, {})
    return {oid for oid, m in marks.items() if "marked" in (m.scan, m.hand)}


def _vote_cells(election: Election, r: BallotRecord, ix: ElectionIndex) -> list[str]:
    by_id = check_record(election, r, ix)
    values = []
    for c in election.contests:
        cv = by_id.get(c.id) if c.id in ix.style_contests_ids[r.style_id] else None
        if cv is None:
            values += [""] * len(c.options)
            continue
        # An overvote is written as marked (Arlo applies the overvote rule); every other contest as counted.
        chosen = _marks_as_read(r, c) if cv.overvotes else set(cv.selections)
        values += ["1" if o.id in chosen else "0" for o in c.options]
    return values


def awaiting_review(records: Iterable[BallotRecord]) -> int:
    """How many sheets still await a person's decision (their machine reading is what an export holds)."""
    return sum(r.status == "needs_review" for r in records)


def dominion_cvr_csv(
    election: Election, records: Iterable[BallotRecord], set_aside: Iterable[SetAsideSheet] = ()
) -> str:
    """Every sheet as a Dominion-style CVR export (see the module docstring for the layout).

    Votes are the effective votes (after people decided), except that an
    overvoted contest carries the marks as read. A sheet awaiting review is
    written with the rules' reading, and the first row says how many there
    are. A ``set_aside`` sheet has a row with no votes at its place.

    Raises
    ------
    ReportError
        A record does not fit the election; a sheet or a batch position repeats;
        a batch mixes vote types.
    """
    records = list(records)
    sheets = _ordered(records, set_aside)
    heads = _contest_headers(election)
    columns = [(c, o) for c in election.contests for o in c.options]
    n_id = len(DOMINION_ID_COLUMNS)
    width = n_id + len(columns)
    pending = awaiting_review(records)
    first = [election.title, f"ballot-tabulate {__version__}"] + (
        [f"provisional: {pending} sheet(s) await review"] if pending else []
    )
    rows: list[list] = [
        first + [""] * (width - len(first)),
        [""] * n_id + [heads[c.id] for c, _ in columns],
        [""] * n_id + [name for c in election.contests for name in _choice_names(c)],
        list(DOMINION_ID_COLUMNS) + [option_party(election, o.party) for _, o in columns],
    ]
    ix = ElectionIndex(election)
    for number, (k, r) in enumerate(sheets, start=1):
        ids = [
            number,
            r.tabulator,
            r.batch,
            k,
            ballot_reference(r.batch, r.position),
            ARLO_COUNTING_GROUPS[r.vote_type],
            r.precinct_id,
        ]
        if isinstance(r, SetAsideSheet):
            rows.append(ids + [f"set aside: {r.reason}"] + [""] * len(columns))
        else:
            rows.append(ids + [r.style_id] + _vote_cells(election, r, ix))
    out = io.StringIO()
    csv_writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
