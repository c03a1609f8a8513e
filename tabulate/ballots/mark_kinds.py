"""What each kind of mark a voter makes should read as: the one table, `MARK_KINDS`.

`MARK_KINDS` is the one table of what every kind of mark should read as under
31 KAR 6:030: the scanner rule of Section 2(1) ("Filling in the oval or box or
connecting the arrow next to the candidate's name") and the hand-count rule of
Section 3(1) ("(a) The majority of an oval, box, or space ... is filled in;
(b) The oval, box, or space next to the candidate's name ... is circled or
underlined; ... (e) There is an "X", a check mark, ... or any other mark
indicating the intent of the voter next to the candidate's name ...; or (f)
There is a diagonal, horizontal, or vertical line: A portion of which
intersects two (2) points on the oval ... and That does not intersect another
oval ... at any two (2) points."). The simulator writes it into every truth
file and the accuracy benchmark imports it. How each kind is drawn is
`tabulate.ballots.marks`.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

SCAN_LABELS = ("unmarked", "marked", "ambiguous")
HAND_LABELS = ("no_vote", "vote", "ambiguous")


@dataclass(frozen=True)
class MarkKind:
    """What one kind of mark should read as.

    ``scan`` is the expected scanner reading under 31 KAR 6:030 Section 2(1)
    and ``scan_accepts`` the mark classes (`tabulate.core.marks.MarkClass`) a
    correct reader may give it; ``hand`` is the expected hand-count reading
    under Section 3(1). ``selects`` says whether voters make it to choose an
    option (the simulator's intent); ``clause`` cites the rule that decides it.
    """

    name: str
    scan: str
    scan_accepts: tuple[str, ...]
    hand: str
    selects: bool
    clause: str
    description: str

    @property
    def needs_review(self) -> bool:
        """A person should look: either reading is uncertain, or the two readings disagree."""
        disagree = (self.scan == "unmarked") != (self.hand == "no_vote")
        return self.scan == "ambiguous" or self.hand == "ambiguous" or disagree

    def to_dict(self) -> dict:
        return {
            "scan": self.scan,
            "scan_accepts": list(self.scan_accepts),
            "hand": self.hand,
            "selects": self.selects,
            "needs_review": self.needs_review,
            "clause": self.clause,
            "description": self.description,
        }


#: Every reading: a reader may give this mark any class.
ANY_READING = ("unmarked", "marginal", "marked")


def _k(name, scan, accepts, hand, selects, clause, description) -> tuple[str, MarkKind]:
    return name, MarkKind(name, scan, accepts, hand, selects, clause, description)


#: Every mark kind -> its expected readings. The single source for the simulator's truth and the benchmark.
MARK_KINDS: Mapping[str, MarkKind] = MappingProxyType(
    dict(
        [
            _k("none", "unmarked", ("unmarked",), "no_vote", False, "6:030 §2(1), §3(1)", "no ink at the target"),
            _k(
                "full_fill",
                "marked",
                ("marked",),
                "vote",
                True,
                "6:030 §2(1)(a), §3(1)(a)",
                "the target filled in, solid or scribbled, sometimes over the outline",
            ),
            _k(
                "partial_fill",
                "marked",
                ("marked",),
                "vote",
                True,
                "6:030 §3(1)(a)",
                "55-85 % of the target's interior filled (a majority)",
            ),
            _k(
                "light_pencil",
                "ambiguous",
                ("marginal", "marked"),
                "vote",
                True,
                "6:030 §2(1)(a), §3(1)(a)",
                "the target filled with a light, grainy pencil",
            ),
            _k("x_mark", "ambiguous", ANY_READING, "vote", True, "6:030 §3(1)(e)", "an X drawn across the target"),
            _k(
                "check",
                "ambiguous",
                ANY_READING,
                "vote",
                True,
                "6:030 §3(1)(e)",
                "a check mark drawn across the target",
            ),
            _k(
                "line_through",
                "ambiguous",
                ANY_READING,
                "vote",
                True,
                "6:030 §3(1)(f)",
                "one line crossing the target's outline at two points and no other target",
            ),
            _k("dot", "ambiguous", ANY_READING, "ambiguous", False, "6:030 §3(1)", "a small dot inside the target"),
            _k(
                "circle",
                "unmarked",
                ("unmarked",),
                "vote",
                True,
                "6:030 §3(1)(b)",
                "a loop drawn around the target, all ink outside it",
            ),
            _k(
                "beside_name",
                "unmarked",
                ("unmarked",),
                "vote",
                True,
                "6:030 §3(1)(e)",
                "an X or check on the candidate's name, not on the target",
            ),
            _k(
                "erasure",
                "ambiguous",
                ("unmarked", "marginal"),
                "no_vote",
                False,
                "6:030 §3(3)(a)",
                "light, patchy residue of an erased pencil fill",
            ),
            _k(
                "hesitation",
                "unmarked",
                ("unmarked", "marginal"),
                "no_vote",
                False,
                "6:030 §2(1)",
                "a tiny pen touch at the edge of the target",
            ),
            _k(
                "stray",
                "unmarked",
                ("unmarked",),
                "no_vote",
                False,
                "6:030 §2(1)",
                "a scribble in white space away from every target",
            ),
        ]
    )
)
