"""What a hand count of one race should find on one ballot, from the marks the store keeps.

The scanner counts under 31 KAR 6:030 Section 2(1): "a vote cast on a scan
voting system shall be the choice made by a voter by: (a) Filling in the oval
or box or connecting the arrow next to the candidate's name". The two poll
workers of a hand-to-eye audit count under Section 3(1): "(a) The majority of
an oval, box, or space designating a candidate or question choice is filled
in; (b) The oval, box, or space next to the candidate's name or the question
choice is circled or underlined; ... (e) There is an "X", a check mark, a plus
sign, an asterisk, a star, or any other mark indicating the intent of the voter
next to the candidate's name or question choice; or (f) There is a diagonal,
horizontal, or vertical line: A portion of which intersects two (2) points on
the oval ... and That does not intersect another oval, box, or space at any
two (2) points."

The reader keeps both readings of every target (`OptionMark.scan` and
`OptionMark.hand`), so the hand count's votes are the same rules applied to the
hand reading. A hand reading the reader could not settle (``marginal``) is
counted both ways: the hand count may find the vote or not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...core import BallotRecord
from ...election import Election
from ...rules import BallotMarks, apply_rules


@dataclass(frozen=True)
class HandVotes:
    """The hand count's votes in one race on one ballot.

    ``low`` counts a marginal hand reading as no mark, ``high`` as a mark; they
    are equal when the reader was sure of every target. ``machine`` are the
    votes the count credits (the scanner's reading, or people's decision where
    they adjudicated the ballot).
    """

    machine: tuple[str, ...]
    low: tuple[str, ...]
    high: tuple[str, ...]
    uncertain: tuple[str, ...]

    def delta(self, option_id: str) -> tuple[int, int]:
        """(sure, possible) change the hand count makes for ``option_id``: low - machine and high - machine."""
        base = int(option_id in self.machine)
        return int(option_id in self.low) - base, int(option_id in self.high) - base


def _as_counted(marks: BallotMarks, contest_id: str, marginal_as: str) -> BallotMarks:
    """The ballot's marks as a person counting by hand reads them (scanner class replaced by the hand class)."""
    out = {}
    for cid, options in marks.marks.items():
        row = {}
        for oid, m in options.items():
            hand = m.hand if m.hand is not None else m.scan
            if cid == contest_id and hand == "marginal":
                hand = marginal_as
            row[oid] = replace(m, scan=hand, hand=None)
        out[cid] = row
    return replace(marks, marks=out)


def uncertain_options(marks: BallotMarks, contest_id: str) -> tuple[str, ...]:
    """Options of the race whose hand reading the reader left marginal."""
    opts = marks.marks.get(contest_id, {})
    return tuple(oid for oid, m in opts.items() if (m.hand if m.hand is not None else m.scan) == "marginal")


def hand_votes(election: Election, record: BallotRecord, contest_id: str) -> HandVotes:
    """The machine's and the hand count's votes in ``contest_id`` on one ballot.

    The whole ballot goes through the rules (31 KAR 6:030 Section 5's straight
    party reaches into the race), read as a person would read it.
    """
    try:
        machine = record.votes.contest(contest_id).selections
    except KeyError:
        return HandVotes((), (), (), ())
    if not record.marks.marks:  # entered by hand from the paper: no reading, the entry is the hand count
        return HandVotes(machine, machine, machine, ())
    low = apply_rules(election, _as_counted(record.marks, contest_id, "unmarked")).contest(contest_id).selections
    unsure = uncertain_options(record.marks, contest_id)
    if not unsure:
        return HandVotes(machine, low, low, ())
    high = apply_rules(election, _as_counted(record.marks, contest_id, "marked")).contest(contest_id).selections
    return HandVotes(machine, low, high, unsure)
