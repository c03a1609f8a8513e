"""Tallies: votes per contest x option x precinct x vote type, from the records' effective votes.

Every number a report prints comes from a `Tally`. The order is the certified
order throughout: contests as in ``election.contests``, options as in
``contest.options``, precincts as in ``election.precincts``, vote types as in
`tabulate.election.VOTE_TYPES`. Nothing depends on the order of the records.

Counting rules:

- a record whose ``status`` is ``"needs_review"`` is not tallied; it is counted
  as *awaiting review* for its precinct and vote type, so the results say how
  many sheets are still out;
- for each contest on a counted sheet's style, ``votes + overvotes + undervotes
  == vote_for`` (slots); summed, ``votes + overvotes + undervotes == vote_for x
  ballots_cast``, where ballots cast are the counted sheets whose style holds
  the contest;
- a vote on a write-in line counts as a vote of that line; its name is then
  *pending* (no decision yet), *resolved* to a declared write-in candidate, or
  *not counted* (people decided the name cannot count, 31 KAR 6:030 Section 4).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable

from ..core.errors import ReportError
from ..core.records import BallotRecord
from ..core.votes import ContestVotes
from ..election.model import VOTE_TYPES, Contest, Election


@dataclass(frozen=True)
class WriteInCounts:
    """What became of the votes on a contest's write-in lines."""

    pending: int = 0
    not_counted: int = 0
    #: ``(declared write-in candidate id, votes)`` in the contest's declared order.
    resolved: tuple[tuple[str, int], ...] = ()

    def for_candidate(self, candidate_id: str) -> int:
        return dict(self.resolved).get(candidate_id, 0)

    @property
    def total(self) -> int:
        return self.pending + self.not_counted + sum(n for _, n in self.resolved)

    def __add__(self, other: WriteInCounts) -> WriteInCounts:
        merged = dict(self.resolved)
        for cand, n in other.resolved:
            merged[cand] = merged.get(cand, 0) + n
        return WriteInCounts(self.pending + other.pending, self.not_counted + other.not_counted, tuple(merged.items()))


@dataclass(frozen=True)
class ContestCounts:
    """One contest's counts for one precinct and vote type, or a sum of such cells.

    ``overvotes`` and ``undervotes`` count vote slots (a vote-for-3 contest
    overvoted on one ballot adds 3 overvotes). ``blank_ballots`` are ballots
    cast with no selection and no overvote in the contest.
    """

    ballots_cast: int
    blank_ballots: int
    overvotes: int
    undervotes: int
    #: ``(option id, votes)`` in ``contest.options`` order.
    votes: tuple[tuple[str, int], ...]
    write_ins: WriteInCounts = WriteInCounts()

    def votes_for(self, option_id: str) -> int:
        for oid, n in self.votes:
            if oid == option_id:
                return n
        raise KeyError(option_id)

    @property
    def total_votes(self) -> int:
        return sum(n for _, n in self.votes)

    def __add__(self, other: ContestCounts) -> ContestCounts:
        if [o for o, _ in self.votes] != [o for o, _ in other.votes]:
            raise ValueError("cannot add counts of different contests")
        return ContestCounts(
            self.ballots_cast + other.ballots_cast,
            self.blank_ballots + other.blank_ballots,
            self.overvotes + other.overvotes,
            self.undervotes + other.undervotes,
            tuple((o, a + b) for (o, a), (_, b) in zip(self.votes, other.votes)),
            self.write_ins + other.write_ins,
        )


def zero_counts(contest: Contest) -> ContestCounts:
    """The counts of a contest before any ballot: zeros for every option and declared write-in."""
    return ContestCounts(
        0,
        0,
        0,
        0,
        tuple((o.id, 0) for o in contest.options),
        WriteInCounts(resolved=tuple((w.id, 0) for w in contest.declared_write_ins)),
    )


@dataclass(frozen=True)
class ContestTally:
    """One contest, cell by cell: every precinct where it is on a ballot x every vote type."""

    contest: Contest
    #: ``(precinct id, vote type, counts)``, precincts in election order, vote types in `VOTE_TYPES` order.
    cells: tuple[tuple[str, str, ContestCounts], ...]

    @property
    def precinct_ids(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p for p, _, _ in self.cells))

    @cached_property
    def _by_cell(self) -> dict[tuple[str, str], ContestCounts]:
        return {(p, v): c for p, v, c in self.cells}

    def cell(self, precinct_id: str, vote_type: str) -> ContestCounts:
        """One precinct's counts for one vote type (zeros where the contest is not on its ballots)."""
        return self._by_cell.get((precinct_id, vote_type)) or zero_counts(self.contest)

    def counts(self, precinct_id: str | None = None, vote_type: str | Iterable[str] | None = None) -> ContestCounts:
        """The sum of the cells of one precinct and/or vote type(s); ``None`` means all."""
        if precinct_id is not None and isinstance(vote_type, str):
            return self.cell(precinct_id, vote_type)
        types = (vote_type,) if isinstance(vote_type, str) else (tuple(vote_type) if vote_type is not None else None)
        total = zero_counts(self.contest)
        for p, v, c in self.cells:
            if (precinct_id is None or p == precinct_id) and (types is None or v in types):
                total = total + c
        return total


@dataclass(frozen=True)
class BallotCounts:
    """Sheets of one precinct and vote type: tallied, entirely blank, still awaiting people."""

    counted: int = 0
    blank: int = 0
    awaiting_review: int = 0

    def __add__(self, other: BallotCounts) -> BallotCounts:
        return BallotCounts(
            self.counted + other.counted, self.blank + other.blank, self.awaiting_review + other.awaiting_review
        )


@dataclass(frozen=True)
class Tally:
    """Every contest of the election, tallied by precinct and vote type."""

    election: Election
    contests: tuple[ContestTally, ...]
    #: ``(precinct id, vote type, counts)`` for every precinct x vote type.
    ballots: tuple[tuple[str, str, BallotCounts], ...]

    def contest(self, contest_id: str) -> ContestTally:
        for c in self.contests:
            if c.contest.id == contest_id:
                return c
        raise KeyError(contest_id)

    def ballot_counts(self, precinct_id: str | None = None, vote_type: str | None = None) -> BallotCounts:
        total = BallotCounts()
        for p, v, c in self.ballots:
            if (precinct_id is None or p == precinct_id) and (vote_type is None or v == vote_type):
                total = total + c
        return total


def contest_precincts(election: Election, contest_id: str) -> tuple[str, ...]:
    """Precincts (election order) with the contest on at least one of their ballot styles."""
    on = {p for s in election.ballot_styles if contest_id in s.contests for p in s.precincts}
    return tuple(p.id for p in election.precincts if p.id in on)


class _Cell:
    """Mutable accumulator for one contest x precinct x vote type."""

    __slots__ = ("ballots", "blank", "over", "under", "votes", "pending", "not_counted", "resolved")

    def __init__(self) -> None:
        self.ballots = self.blank = self.over = self.under = self.pending = self.not_counted = 0
        self.votes: dict[str, int] = defaultdict(int)
        self.resolved: dict[str, int] = defaultdict(int)

    def freeze(self, contest: Contest) -> ContestCounts:
        return ContestCounts(
            self.ballots,
            self.blank,
            self.over,
            self.under,
            tuple((o.id, self.votes.get(o.id, 0)) for o in contest.options),
            WriteInCounts(
                self.pending,
                self.not_counted,
                tuple((w.id, self.resolved.get(w.id, 0)) for w in contest.declared_write_ins),
            ),
        )


class ElectionIndex:
    """Look-ups of one election by id, built once per report so that each record is checked in constant time."""

    def __init__(self, election: Election):
        self.election = election
        self.contests = {c.id: c for c in election.contests}
        self.options = {c.id: frozenset(o.id for o in c.options) for c in election.contests}
        self.write_in_lines = {
            c.id: frozenset(o.id for o in c.options if o.kind == "write_in") for c in election.contests
        }
        self.declared = {c.id: frozenset(w.id for w in c.declared_write_ins) for c in election.contests}
        self.styles = {s.id: s for s in election.ballot_styles}
        self.style_contests = {s.id: tuple(self.contests[c] for c in s.contests) for s in election.ballot_styles}
        self.style_precincts = {s.id: frozenset(s.precincts) for s in election.ballot_styles}
        self.style_contests_ids = {s.id: frozenset(s.contests) for s in election.ballot_styles}


def _check_contest_votes(record: BallotRecord, contest: Contest, options: frozenset, cv: ContestVotes) -> None:
    where = f"ballot {record.ballot_id!r} contest {contest.id!r}"
    unknown = [s for s in cv.selections if s not in options]
    if unknown:
        raise ReportError(f"{where}: selections {unknown} are not options of the contest")
    if len(set(cv.selections)) != len(cv.selections):
        raise ReportError(f"{where}: an option is selected twice ({list(cv.selections)})")
    if len(cv.selections) + cv.overvotes + cv.undervotes != contest.vote_for or min(cv.overvotes, cv.undervotes) < 0:
        raise ReportError(
            f"{where}: {len(cv.selections)} selections + {cv.overvotes} overvotes + {cv.undervotes} undervotes "
            f"!= vote for {contest.vote_for}"
        )


def check_record(
    election: Election, record: BallotRecord, index: ElectionIndex | None = None
) -> dict[str, ContestVotes]:
    """Raise `ReportError` unless the record fits the election (style, precinct, contests, write-ins).

    Returns the effective votes of the record's contests by contest id.
    """
    ix = index or ElectionIndex(election)
    where = f"ballot {record.ballot_id!r}"
    if record.style_id not in ix.styles:
        raise ReportError(f"{where}: ballot style {record.style_id!r} is not in the election")
    if record.precinct_id not in ix.style_precincts[record.style_id]:
        raise ReportError(f"{where}: precinct {record.precinct_id!r} does not vote ballot style {record.style_id!r}")
    by_id = {cv.contest_id: cv for cv in record.votes.contests}
    for contest in ix.style_contests[record.style_id]:
        cv = by_id.get(contest.id)
        if cv is None:
            raise ReportError(
                f"{where}: the votes have no outcome for contest {contest.id!r} of style {record.style_id!r}"
            )
        _check_contest_votes(record, contest, ix.options[contest.id], cv)
    for (cid, oid), cand in record.write_ins.items():
        if cand is None:
            continue
        if cid not in ix.declared:
            raise ReportError(f"{where}: write-in resolved for unknown contest {cid!r}")
        if cand not in ix.declared[cid]:
            raise ReportError(
                f"{where}: write-in {cid}/{oid} resolved to {cand!r}, not a declared write-in candidate of the contest"
            )
    return by_id


def tally_records(election: Election, records: Iterable[BallotRecord]) -> Tally:
    """Tally the effective votes of the counted records.

    Parameters
    ----------
    election
        The election the records belong to.
    records
        One `BallotRecord` per sheet, in any order.

    Returns
    -------
    Tally
        Counts for every contest x precinct (where the contest is on a ballot)
        x vote type, zeros included.

    Raises
    ------
    ReportError
        A record does not fit the election, a ballot id repeats, or a contest's
        slots do not add up to ``vote_for`` (31 KAR 6:030 Section 1(6): an
        overvote credits no option, so its slots are overvotes, not votes).
    """
    cells: dict[tuple[str, str, str], _Cell] = defaultdict(_Cell)
    sheets: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0])
    seen: set[str] = set()
    ix = ElectionIndex(election)
    for r in records:
        if r.ballot_id in seen:
            raise ReportError(f"ballot {r.ballot_id!r} appears twice; a sheet is counted once")
        seen.add(r.ballot_id)
        by_id = check_record(election, r, ix)
        sheet = sheets[(r.precinct_id, r.vote_type)]
        if r.status != "counted":
            sheet[2] += 1
            continue
        sheet[0] += 1
        sheet[1] += int(r.votes.blank)
        for contest in ix.style_contests[r.style_id]:
            cv = by_id[contest.id]
            cell = cells[(contest.id, r.precinct_id, r.vote_type)]
            cell.ballots += 1
            cell.over += cv.overvotes
            cell.under += cv.undervotes
            cell.blank += int(not cv.selections and not cv.overvotes)
            write_in_lines = ix.write_in_lines[contest.id]
            for s in cv.selections:
                cell.votes[s] += 1
                if s in write_in_lines:
                    key = (contest.id, s)
                    if key not in r.write_ins:
                        cell.pending += 1
                    elif r.write_ins[key] is None:
                        cell.not_counted += 1
                    else:
                        cell.resolved[r.write_ins[key]] += 1
    contests = tuple(
        ContestTally(
            c,
            tuple(
                (p, v, cells[(c.id, p, v)].freeze(c)) if (c.id, p, v) in cells else (p, v, zero_counts(c))
                for p in contest_precincts(election, c.id)
                for v in VOTE_TYPES
            ),
        )
        for c in election.contests
    )
    ballots = tuple(
        (p.id, v, BallotCounts(*sheets[(p.id, v)]) if (p.id, v) in sheets else BallotCounts())
        for p in election.precincts
        for v in VOTE_TYPES
    )
    return Tally(election, contests, ballots)
