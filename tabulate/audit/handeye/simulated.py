"""A simulated hand tally, from the simulator's truth: what two careful poll workers would count.

For tests and the benchmark. Each target the simulator drew has an expected
hand-count reading under 31 KAR 6:030 Section 3(1) (`tabulate.ballots.mark_kinds.
MARK_KINDS`: a circle around the oval or an X beside the name is a vote by
hand, not by the scanner). Where the truth says a person could read a mark
either way (a dot), the counters follow what the voter meant. The ballot then
goes through the same rules (overvotes, straight party, write-ins) as any other.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Mapping

from ...ballots.mark_kinds import MARK_KINDS
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
        marks.setdefault(t["contest"], {})[t["option"]] = OptionMark(_hand_class(t), write_in_ink="write_in" in t)
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


# -- a simulated batch in a store (tests and benchmarks/handeye.py) -------------------------------------
_SCAN = {"marked": "marked", "unmarked": "unmarked", "ambiguous": "marginal"}
_HAND = {"vote": "marked", "no_vote": "unmarked", "ambiguous": "marginal"}


def _truth_outcome(election: Election, position: int, truth: Mapping, identity: str, pages: tuple):
    """A reading written from the truth (what a perfect reader reports), for fast tests without images."""
    import json

    from ...central.interpret import votes_outcome
    from ...rules import marks_to_dict
    from ...store import SheetOutcome

    marks: dict[str, dict[str, OptionMark]] = {}
    for t in truth["targets"]:
        marks.setdefault(t["contest"], {})[t["option"]] = OptionMark(
            _SCAN[t["scan"]], _HAND[t["hand"]], write_in_ink="write_in" in t
        )
    ballot = BallotMarks(identity, truth["style"], marks, truth.get("precinct"))
    votes = apply_rules(election, ballot)
    status, reasons = votes_outcome(votes)
    return SheetOutcome(
        position,
        identity,
        pages,
        status,
        reasons=reasons,
        style_id=truth["style"],
        precinct_id=truth.get("precinct"),
        marks=json.dumps(marks_to_dict(ballot)),
        votes=votes,
    )


def simulate_outcome(args: tuple) -> tuple:
    """Simulate sheet ``index`` and read it: ``(SheetOutcome, truth)`` (a picklable worker for a pool).

    ``args`` is ``(election, index, seed, read, population)``; ``read`` runs
    the real reader (`tabulate.central.interpret_sheet`) on the PNG images,
    otherwise the reading is written from the truth.
    """
    import hashlib

    from ...ballots.simulate import simulate_sheet
    from ...election.render import png_bytes
    from ...store import PageImage, SheetOutcome, sheet_identity

    election, index, seed, read, population = args
    sheet = simulate_sheet(election, index, seed, population=population)
    pngs = [png_bytes(p, 200) for p in sheet.pages]
    digests = [hashlib.sha256(b).hexdigest() for b in pngs]
    pages = tuple(PageImage(f"sim-{index + 1:05d}-{side}.png", d) for side, d in zip(("front", "back"), digests))
    identity = sheet_identity(digests)
    if not read:
        return _truth_outcome(election, index + 1, sheet.truth, identity, pages), sheet.truth
    from ...central import interpret_sheet

    r = interpret_sheet(election, pngs)
    return SheetOutcome(
        index + 1,
        identity,
        pages,
        r.status,
        reasons=r.reasons,
        style_id=r.style_id,
        precinct_id=r.precinct_id,
        evidence=r.evidence,
        marks=r.marks,
        votes=r.votes,
    ), sheet.truth


def planned_truth(election: Election, index: int, seed: int, population: str = "realistic") -> dict:
    """Sheet ``index``'s truth without drawing it: the same voter and marks as `simulate_sheet` draws.

    The expected readings of a mark depend only on its kind (`MARK_KINDS`), so
    the targets' ``scan`` and ``hand`` are known from the plan; nothing is
    rendered (milliseconds, not the ~50 ms of ink and scanner). The fields
    are those `hand_marks` and `_truth_outcome` read.
    """
    from ...ballots.plan import plan_sheet
    from ...ballots.simulate import sheet_rngs
    from ...ballots.truth import target_entries
    from ...ballots.voters import POPULATIONS, draw_voter
    from ...election.layout import layout_style

    pop = POPULATIONS[population]
    r_voter, _, _ = sheet_rngs(seed, index)
    intent = draw_voter(election, r_voter, pop)
    plan = plan_sheet(layout_style(election, intent.style_id), intent, pop, r_voter)
    return {
        "sheet": index + 1,
        "style": intent.style_id,
        "precinct": intent.precinct_id,
        "targets": target_entries(plan, {}, False, {}),
    }


def planned_outcome(args: tuple) -> tuple:
    """Like `simulate_outcome` with readings written from the planned truth (no images at all)."""
    import hashlib

    from ...store import PageImage, sheet_identity

    election, index, seed, _read, population = args
    truth = planned_truth(election, index, seed, population)
    digests = [hashlib.sha256(f"planned/{seed}/{index}/{side}".encode()).hexdigest() for side in (1, 2)]
    pages = tuple(PageImage(f"sim-{index + 1:05d}-{side}.png", d) for side, d in zip(("front", "back"), digests))
    return _truth_outcome(election, index + 1, truth, sheet_identity(digests), pages), truth
