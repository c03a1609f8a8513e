"""What detection reads at each target and the rules read: `OptionMark` and `BallotMarks`.

This is the contract between detection (which produces `BallotMarks` from
images), the rules (31 KAR 6:030: `BallotMarks` -> `BallotVotes`), the store
and adjudication. Nothing here knows about images.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping

MarkClass = Literal["marked", "marginal", "unmarked"]
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
