"""A simulated hand tally, from the simulator's truth: what two careful poll workers would count.

For tests and the benchmark. Each target the simulator drew has an expected
hand-count reading under 31 KAR 6:030 Section 3(1) (`tabulate.ballots.marks.
MARK_KINDS`: a circle around the oval or an X beside the name is a vote by
hand, not by the scanner). Where the truth says a person could read a mark
either way (a dot), the counters follow what the voter meant. The ballot then
goes through the same rules (overvotes, straight party, write-ins) as any other.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

from ...ballots.marks import MARK_KINDS
from ...election import Election
from ...rules import BallotMarks, OptionMark, apply_rules


def _hand_class(target: Mapping) -> str:
    hand = target["hand"]
    if hand == "ambiguous":
        return "marked" if MARK_KINDS[target["kind"]].selects else "unmarked"
    return "marked" if hand == "vote" else "unmarked"


def hand_marks(truth: Mapping, ballot_id: str = "") -> BallotMarks:
    """One simulated sheet's marks as a hand counter reads them."""
    marks: dict[str, dict[str, OptionMark]] = {}
    for t in truth["targets"]:
        marks.setdefault(t["contest"], {})[t["option"]] = OptionMark(_hand_class(t),
                                                                    write_in_ink="write_in" in t)
    return BallotMarks(ballot_id or f"sheet-{truth['sheet']}", truth["style"], marks, truth.get("precinct"))


def hand_selections(election: Election, truth: Mapping, contest_id: str) -> tuple[str, ...]:
    """The options a hand count credits in ``contest_id`` on one simulated sheet (empty if not on its style)."""
    votes = apply_rules(election, hand_marks(truth))
    try:
        return votes.contest(contest_id).selections
    except KeyError:
        return ()


def simulated_hand_tally(election: Election, truths: Iterable[Mapping], contest_id: str) -> dict[str, int]:
    """The hand count of ``contest_id`` over simulated sheets: every option, 0 where none."""
    counts: Counter[str] = Counter()
    for t in truths:
        counts.update(hand_selections(election, t, contest_id))
    return {o.id: counts.get(o.id, 0) for o in election.contest(contest_id).options}
