"""Exports for risk-limiting-audit tools: a Dominion-style CVR CSV and an Arlo ballot manifest.

Arlo (VotingWorks) reads both as they are: the manifest lists every batch
(``Container, Tabulator, Batch Name, Number of Ballots``), the CVR file one row
per sheet whose ``TabulatorNum`` and ``BatchId`` match the manifest's
``Tabulator`` and ``Batch Name``, and whose ``RecordId`` orders the sheets in
their batch. Both are built from the same records, so the counts agree.

The CVR CSV follows the Dominion "CVR export" layout:

1. the election title and the exporting application;
2. blank under the eight id columns, then ``<contest title> (Vote For=<n>)``
   over each of its choice columns;
3. blank, then the choice names;
4. ``CvrNumber, TabulatorNum, BatchId, RecordId, ImprintedId, CountingGroup,
   PrecinctPortion, BallotType``, then each choice's party abbreviation;

``ImprintedId`` is the ballot's reference "batch · position", the same words
the review app, ``tabulate explain`` and the decisions CSV use to name it;
then one row per sheet: ``1``/``0`` per choice, empty where the contest is not
on the sheet's ballot style. An overvoted contest is all ``0``: 31 KAR 6:030
Section 2(2)(b) credits no option, and Arlo counts an overvote as no vote for
any choice, so the file's totals equal ours.
"""

from __future__ import annotations

import io
from typing import Iterable

from .. import __version__
from ..core.vocabulary import ballot_reference
from ..election.model import Contest, Election
from .csvsafe import writer as csv_writer
from .records import VOTE_TYPE_LABELS, BallotRecord, ReportError
from .results import display_name, option_party
from .tally import ElectionIndex, check_record

#: Columns of the Arlo ballot manifest, exactly as Arlo expects them.
MANIFEST_COLUMNS: tuple[str, ...] = ("Container", "Tabulator", "Batch Name", "Number of Ballots")

#: The id columns of a Dominion CVR export (row 4, before the choices).
DOMINION_ID_COLUMNS: tuple[str, ...] = (
    "CvrNumber", "TabulatorNum", "BatchId", "RecordId", "ImprintedId", "CountingGroup", "PrecinctPortion",
    "BallotType",
)

#: Kentucky vote type -> Arlo manifest container type. Arlo's allow-list
#: (server/util/enums.py ``ContainerType``) has one name for early in-person
#: voting, so both in-person absentee types map to it; the batch name keeps them apart.
ARLO_CONTAINERS: dict[str, str] = {
    "mail_in_absentee": "Absentee by Mail",
    "excused_in_person_absentee": "Advance Voting",
    "no_excuse_in_person_absentee": "Advance Voting",
    "election_day": "Election Day",
    "provisional": "Provisional",
}


def _ordered(records: Iterable[BallotRecord]) -> list[BallotRecord]:
    """Records by tabulator, batch and position; raise on a repeated sheet or place, or a batch of two vote types."""
    out = sorted(records, key=lambda r: (r.tabulator, r.batch, r.position, r.ballot_id))
    ids: set[str] = set()
    places: set[tuple[str, str, int]] = set()
    batch_type: dict[tuple[str, str], str] = {}
    for r in out:
        place = (r.tabulator, r.batch, r.position)
        if r.ballot_id in ids:
            raise ReportError(f"ballot {r.ballot_id!r} appears twice")
        if place in places:
            raise ReportError(f"two sheets at position {r.position} of batch {r.batch!r} on tabulator {r.tabulator!r}")
        vt = batch_type.setdefault(place[:2], r.vote_type)
        if vt != r.vote_type:
            raise ReportError(f"batch {r.batch!r} on tabulator {r.tabulator!r} holds both {vt} and {r.vote_type} "
                              f"ballots; a batch has one vote type")
        ids.add(r.ballot_id)
        places.add(place)
    return out


def arlo_ballot_manifest_csv(records: Iterable[BallotRecord]) -> str:
    """The Arlo ballot manifest: one row per (tabulator, batch), columns `MANIFEST_COLUMNS`.

    ``Number of Ballots`` counts the records of the batch, which must be every
    sheet physically in it. Rows are ordered by tabulator then batch name.
    """
    counts: dict[tuple[str, str], list] = {}
    for r in _ordered(records):
        counts.setdefault((r.tabulator, r.batch), [ARLO_CONTAINERS[r.vote_type], 0])[1] += 1
    out = io.StringIO()
    w = csv_writer(out, lineterminator="\n")
    w.writerow(MANIFEST_COLUMNS)
    for (tab, batch), (container, n) in counts.items():
        w.writerow([container, tab, batch, n])
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


def dominion_cvr_csv(election: Election, records: Iterable[BallotRecord]) -> str:
    """Every record as a Dominion-style CVR export (see the module docstring for the layout).

    Votes are the effective votes (after people decided). For a risk-limiting
    audit, export once every sheet is decided: a sheet awaiting review is
    written with the rules' reading.

    Raises
    ------
    ReportError
        A record does not fit the election; a sheet or a batch position repeats;
        a batch mixes vote types.
    """
    records = _ordered(records)
    heads = _contest_headers(election)
    columns = [(c, o) for c in election.contests for o in c.options]
    n_id = len(DOMINION_ID_COLUMNS)
    width = n_id + len(columns)
    rows: list[list] = [
        [election.title, f"ballot-tabulate {__version__}"] + [""] * (width - 2),
        [""] * n_id + [heads[c.id] for c, _ in columns],
        [""] * n_id + [name for c in election.contests for name in _choice_names(c)],
        list(DOMINION_ID_COLUMNS) + [option_party(election, o.party) for _, o in columns],
    ]
    ix = ElectionIndex(election)
    for number, r in enumerate(records, start=1):
        by_id = check_record(election, r, ix)
        values = []
        for c in election.contests:
            cv = by_id.get(c.id) if c.id in ix.style_contests_ids[r.style_id] else None
            if cv is None:
                values += [""] * len(c.options)
                continue
            chosen = set(cv.selections) if not cv.overvotes else set()
            values += ["1" if o.id in chosen else "0" for o in c.options]
        rows.append([number, r.tabulator, r.batch, r.position, ballot_reference(r.batch, r.position),
                     VOTE_TYPE_LABELS[r.vote_type], r.precinct_id, r.style_id] + values)
    out = io.StringIO()
    csv_writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()
