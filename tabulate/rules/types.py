"""What the rules read (marks) and what they produce (votes), as plain frozen dataclasses.

This is the contract between detection (which produces `BallotMarks` from
images), the rules (31 KAR 6:030: `BallotMarks` -> `BallotVotes`), the store,
adjudication (which produces new `BallotMarks`/decisions) and the reports
(which tally `BallotVotes`). Nothing here knows about images.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping

MarkClass = Literal["marked", "marginal", "unmarked"]
ContestStatus = Literal["valid", "undervote", "overvote", "blank", "write_in_pending"]
MARK_CLASSES: tuple[str, ...] = ("marked", "marginal", "unmarked")


@dataclass(frozen=True)
class OptionMark:
    """What was read at one target.

    ``scan`` is the scanner reading (31 KAR 6:030 Section 2(1)): the fill score
    classed by the election's thresholds. ``hand`` is the reading a person
    counting by hand would make under Section 3(1) (majority filled, circled,
    an X or check beside the name, a line through the target); ``None`` means
    "not read", and is taken to agree with ``scan``. ``write_in_ink`` is ink in
    the write-in area of a write-in line. ``score`` is the fill score, kept as
    evidence. ``write_in_name`` is the name read in that area, where someone
    read it (``None``: not read); `tabulate.rules.apply_write_in_names` resolves it.
    """

    scan: MarkClass = "unmarked"
    hand: MarkClass | None = None
    write_in_ink: bool = False
    score: float | None = None
    write_in_name: str | None = None


@dataclass(frozen=True)
class BallotMarks:
    """Every target of one sheet, by contest id then option id.

    The straight-party targets sit under the contest id ``"straight-party"``
    with the party ids as option ids. Options missing from ``marks`` are
    unmarked. ``fwab`` marks a federal write-in absentee ballot (31 KAR 5:011).
    """

    ballot_id: str
    style_id: str
    marks: Mapping[str, Mapping[str, OptionMark]]
    precinct_id: str | None = None
    fwab: bool = False


@dataclass(frozen=True)
class AdjudicationReason:
    """Why a person should look at a ballot: one of `tabulate.election.ADJUDICATION_REASONS`."""

    code: str
    contest_id: str | None = None
    option_id: str | None = None
    detail: str = ""


@dataclass(frozen=True)
class ContestVotes:
    """The outcome of one contest on one ballot.

    ``selections`` are the option ids credited with a vote (a write-in line's
    id while its name awaits a person). ``overvotes`` and ``undervotes`` count
    vote slots, so that for every contest
    ``len(selections) + overvotes + undervotes == vote_for``.
    ``clauses`` cite the 31 KAR 6:030 provisions that decided it.
    """

    contest_id: str
    status: ContestStatus
    selections: tuple[str, ...] = ()
    overvotes: int = 0
    undervotes: int = 0
    from_straight_party: bool = False
    clauses: tuple[str, ...] = ()


@dataclass(frozen=True)
class BallotVotes:
    """The rules' result for one ballot: votes per contest and the reasons a person must see it."""

    ballot_id: str
    style_id: str
    contests: tuple[ContestVotes, ...]
    precinct_id: str | None = None
    straight_party: str | None = None
    reasons: tuple[AdjudicationReason, ...] = ()
    #: True when any reason is one the election queues (``election.adjudication.reasons``).
    needs_review: bool = False
    blank: bool = False
    #: A federal write-in absentee ballot (31 KAR 5:011), as its marks said.
    fwab: bool = False

    def contest(self, contest_id: str) -> ContestVotes:
        for c in self.contests:
            if c.contest_id == contest_id:
                return c
        raise KeyError(contest_id)
