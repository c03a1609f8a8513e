"""Straight-party voting (31 KAR 6:030 Section 5) on top of the voter's own selections."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterator, Mapping

from ..core.marks import OptionMark
from ..core.votes import AdjudicationReason, ContestVotes
from ..election import STRAIGHT_PARTY_CONTEST_ID, Election
from . import clauses as K
from ._contest import OwnSelections, contest_status, overvote, own_votes, read_contest


def straight_party_choice(
    election: Election, marks: Mapping[str, OptionMark]
) -> tuple[str | None, OwnSelections, list[AdjudicationReason]]:
    """The party a ballot votes straight, if any.

    31 KAR 6:030 Section 5(1): "if a voter designates a choice to vote a
    straight political party ticket ...". The straight-party option is a
    choice of one party; two or more straight-party targets marked designate no
    single ticket, so no straight-party vote is applied (an overvote of the
    straight-party option, Section 1(6): "more than the permitted number of
    selections"), while the voter's marks in each contest still count. A
    marginal straight-party mark is not applied; it goes to a person.

    Parameters
    ----------
    marks
        The ballot's marks under the ``"straight-party"`` contest id, by party id.

    Returns
    -------
    The party id or None, the reading of the straight-party targets, and the
    reasons a person should look at them.
    """
    own = read_contest(election.straight_party_contest, marks)
    reasons = list(own.reasons)
    if len(own.votes) > 1:
        reasons.append(
            AdjudicationReason(
                "overvote",
                STRAIGHT_PARTY_CONTEST_ID,
                None,
                f"{len(own.votes)} straight-party targets marked ({', '.join(own.votes)}): no straight-party vote "
                "is applied; the marks in each contest still count",
            )
        )
        return None, own, reasons
    return (own.votes[0] if own.votes else None), own, reasons


def apply_straight_party(own: OwnSelections, party: str) -> tuple[ContestVotes, list[AdjudicationReason]]:
    """A partisan contest on a ballot that votes a straight party ticket.

    31 KAR 6:030 Section 5(1): "if a voter designates a choice to vote a
    straight political party ticket and also designates a vote for an opposing
    candidate whose name appears on the ballot or writes in the name of an
    eligible write-in candidate in a specific race, the vote shall be counted
    for the opposing candidate or the eligible write-in candidate for that
    specific race and the remaining votes on the ballot shall be counted for the
    straight political party."

    Section 5(2): "Straight party voting shall not be considered an overvote if
    cast in a manner consistent with subsection (1) of this section."

    Where the voter selected nothing in the contest, the party's candidates get
    the vote. Where the voter selected anyone (an opposing candidate, a
    write-in, or the party's own candidate), the voter's selections alone count
    in that contest, and it is no overvote; in a vote-for-N contest the
    voter's selections replace the party's (the project's reading, see
    docs/rules.md). An overvote among the voter's own marks stays an overvote:
    Section 5(2) protects only the combination of a straight-party choice with
    a selection in the race.
    """
    contest = own.contest
    party_candidates = tuple(c.id for c in contest.candidates if c.party == party)
    if len(own.votes) > contest.vote_for:
        votes, reason = overvote(own)
        return votes, list(_note_reasons(own, party_candidates)) + [reason]
    if own.votes:
        crossed = any(v not in party_candidates for v in own.votes)
        cited = (K.STRAIGHT_PARTY, K.STRAIGHT_PARTY_NOT_OVERVOTE) if crossed else ()
        return own_votes(own, cited), list(_note_reasons(own, party_candidates))
    if not party_candidates or len(party_candidates) > contest.vote_for:
        # No nominee of the party here (or more nominees than seats, which a
        # valid general-election ballot never has): nothing to apply.
        return own_votes(own), list(own.reasons)
    status = contest_status(party_candidates, contest.vote_for, False)
    votes = ContestVotes(
        contest.id,
        status,
        party_candidates,
        overvotes=0,
        undervotes=contest.vote_for - len(party_candidates),
        from_straight_party=True,
        clauses=(K.STRAIGHT_PARTY,),
    )
    return votes, list(_note_reasons(own, party_candidates))


def _note_reasons(own: OwnSelections, party_candidates: tuple[str, ...]) -> Iterator[AdjudicationReason]:
    """The contest's reasons, each told what straight party changes for it."""
    names = {c.id: c.name for c in own.contest.candidates}
    fallback = ", ".join(names[c] for c in party_candidates) or "no one (the party has no candidate here)"
    for r in own.reasons:
        if r.code == "marked_write_in" and r.option_id in own.write_ins:
            yield replace(
                r,
                detail=r.detail + f"; if the name is not an eligible write-in candidate, §5(1) gives "
                f"this contest to the straight party: {fallback}",
            )
        elif not own.votes and r.option_id is not None:
            yield replace(
                r,
                detail=r.detail + f"; the straight-party vote ({fallback}) counts in this contest "
                "unless a person finds a vote of the voter's own",
            )
        else:
            yield r
