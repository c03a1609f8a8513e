"""A ballot's marks to its votes: 31 KAR 6:030 for a scan voting system."""

from __future__ import annotations

from ..core.errors import TabulateError
from ..core.marks import BallotMarks
from ..core.votes import AdjudicationReason, BallotVotes, ContestVotes
from ..election import STRAIGHT_PARTY_CONTEST_ID, Election
from ._contest import decide_contest, read_contest
from ._straight_party import apply_straight_party, straight_party_choice


class MarksError(TabulateError, ValueError):
    """Marks that do not fit the election (an unknown style, contest or option); ``problems`` lists each."""

    code = "marks"

    def __init__(self, source: str, problems: list):
        self.source = source
        self.problems = problems
        lines = "\n".join(f"  {p}" for p in problems)
        super().__init__(f"{source}: {len(problems)} problem(s) in the marks:\n{lines}")


def apply_rules(election: Election, marks: BallotMarks) -> BallotVotes:
    """Apply the uniform definition of a vote to one ballot's marks.

    Each contest on the ballot's style gets its selections and a status
    (valid, undervote, overvote, blank, write_in_pending) with the clauses that
    decided it; the ballot gets the reasons a person must see it.

    Only the contests of the ballot's style count; marks under any other
    contest id are ignored here (`parse_marks` rejects them at the boundary).
    Contests and options are read in ballot order, so the result does not
    depend on the order of ``marks.marks``.

    Parameters
    ----------
    election
        The election the ballot belongs to.
    marks
        The class of every target (``marked``/``marginal``/``unmarked``, per
        `OptionMark.scan`), write-in ink, and the optional hand reading.

    Returns
    -------
    BallotVotes
        ``needs_review`` is True iff a reason's code is one the election queues
        (``election.adjudication.reasons``).

    Raises
    ------
    MarksError
        The ballot's style is not in the election.

    References
    ----------
    31 KAR 6:030 Sections 1(6), 2(1), 2(2)(b), 4 and 5; 31 KAR 5:011 Section 2.
    """
    try:
        contests = election.style_contests(marks.style_id)
    except KeyError:
        raise MarksError(
            f"ballot {marks.ballot_id!r}", [f"no ballot style {marks.style_id!r} in the election"]
        ) from None
    reasons: list[AdjudicationReason] = []
    party = None
    touched = False
    results: list[ContestVotes] = []
    for contest in contests:
        contest_marks = marks.marks.get(contest.id, {})
        if contest.id == STRAIGHT_PARTY_CONTEST_ID:
            party, sp, sp_reasons = straight_party_choice(election, contest_marks)
            touched |= sp.touched
            reasons += sp_reasons
            continue
        own = read_contest(contest, contest_marks, fwab=marks.fwab)
        touched |= own.touched
        if party is not None and contest.partisan and contest.type == "candidate":
            votes, contest_reasons = apply_straight_party(own, party)
        else:
            votes, overvote_reasons = decide_contest(own)
            contest_reasons = list(own.reasons) + overvote_reasons
        results.append(votes)
        reasons += contest_reasons
        if votes.undervotes:
            reasons.append(
                AdjudicationReason(
                    "undervote", contest.id, None, f"{votes.undervotes} of {contest.vote_for} vote(s) not used"
                )
            )
    if not touched:
        reasons.insert(
            0, AdjudicationReason("blank_ballot", None, None, "no mark, light mark or write-in anywhere on the ballot")
        )
    queued = set(election.adjudication.reasons)
    return BallotVotes(
        ballot_id=marks.ballot_id,
        style_id=marks.style_id,
        contests=tuple(results),
        precinct_id=marks.precinct_id,
        straight_party=party,
        reasons=tuple(reasons),
        needs_review=any(r.code in queued for r in reasons),
        blank=not touched,
        fwab=marks.fwab,
    )
