"""The accuracy-test deck of 31 KAR 2:020 Section 3: which ballots, marked how, and the tally they must give.

A deck is designed per ballot style, as pure data (no images): a list of
`DeckBallot` (the options each ballot marks, write-in names included) and
the `TallySheet` the Accuracy Board approves (Section 1(9): "a listing of the
results from the test deck to be compared to the results printout").

Section 3(4): "The test deck created shall include the following:
(a) One (1) or more ballots with a vote for each candidate for office and each
option of a ballot question, if applicable; (b) One (1) or more ballots that
contain votes in excess of the total number of votes allowed by law to be cast
by a voter; (c) One (1) or more ballots that contain fewer votes than the total
number of votes allowed by law to be cast by a voter; (d) One (1) or more
ballots that contain a straight-party vote, if applicable; and (e) One (1) or
more ballots that contain a write-in vote, if applicable."

Beyond the clause, every option of a contest ends with a different number of
votes, so that two targets swapped in the tabulator's layout cannot give the
same totals as the right ones. The expected totals are worked out here from
the deck's own design (straight party following 31 KAR 6:030 Section 5, an
overvote crediting no option, Section 1(6)), independently of
`tabulate.rules`, which is what the deck tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ...election.model import STRAIGHT_PARTY_CONTEST_ID, Contest, Election

#: The purposes a deck ballot serves, in deck order.
PURPOSES = ("straight_party", "overvote", "undervote", "votes")
#: The name written on a write-in line when the contest has no declared write-in candidate.
TEST_WRITE_IN_NAME = "Test Write-In"


@dataclass(frozen=True)
class DeckBallot:
    """One test ballot: its place in the style's deck, why it is there, and what it marks.

    ``marks`` holds ``(contest id, option id)`` pairs, the straight-party
    target as ``("straight-party", party id)``; ``write_ins`` the name written
    on each marked write-in line.
    """

    number: int
    purpose: str
    marks: tuple[tuple[str, str], ...]
    write_ins: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class ContestExpectation:
    """A contest's predetermined results: votes per option, overvoted and undervoted slots."""

    contest_id: str
    votes: tuple[tuple[str, int], ...]
    overvotes: int
    undervotes: int


@dataclass(frozen=True)
class TallySheet:
    """What one style's deck must count (31 KAR 2:020 Section 1(9), Section 3(5))."""

    style_id: str
    precinct_id: str
    ballots: int
    contests: tuple[ContestExpectation, ...]
    #: ``(party id, ballots voting that party straight)``; empty without a straight-party option.
    straight_party: tuple[tuple[str, int], ...] = ()

    def to_dict(self) -> dict:
        return {
            "style": self.style_id,
            "precinct": self.precinct_id,
            "ballots": self.ballots,
            "straight_party": dict(self.straight_party),
            "contests": {
                c.contest_id: {"votes": dict(c.votes), "overvotes": c.overvotes, "undervotes": c.undervotes}
                for c in self.contests
            },
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> TallySheet:
        contests = tuple(
            ContestExpectation(
                cid, tuple((o, int(n)) for o, n in c["votes"].items()), int(c["overvotes"]), int(c["undervotes"])
            )
            for cid, c in d["contests"].items()
        )
        return cls(
            d["style"],
            d["precinct"],
            int(d["ballots"]),
            contests,
            tuple((p, int(n)) for p, n in d.get("straight_party", {}).items()),
        )


@dataclass(frozen=True)
class StyleDeck:
    """One ballot style's deck and its tally sheet."""

    style_id: str
    precinct_id: str
    ballots: tuple[DeckBallot, ...]
    tally: TallySheet


def _write_in_name(contest: Contest) -> str:
    return contest.declared_write_ins[0].name if contest.declared_write_ins else TEST_WRITE_IN_NAME


def _parties_on_ballot(election: Election, contests: tuple[Contest, ...]) -> tuple[str, ...]:
    used = {c.party for k in contests for c in k.candidates if c.party}
    return tuple(p.id for p in election.straight_party_contest.candidates if p.id in used)


def _straight_party_choice(contest: Contest, party: str) -> tuple[str, ...]:
    """31 KAR 6:030 Section 5(1): the party's candidates in a partisan contest the voter left empty.

    A contest with no candidate of the party (or more than may be elected)
    gets nothing, as on a valid ballot; questions and nonpartisan contests
    are never touched.
    """
    if contest.type != "candidate" or not contest.partisan:
        return ()
    mine = tuple(c.id for c in contest.candidates if c.party == party)
    return mine if 0 < len(mine) <= contest.vote_for else ()


def _fixed_ballots(election: Election, contests: tuple[Contest, ...]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Straight-party ballots (party k of the ballot: k ballots), one overvote and one undervote ballot."""
    fixed: list[tuple[str, list[tuple[str, str]]]] = []
    parties = _parties_on_ballot(election, contests) if election.straight_party else ()
    for k, party in enumerate(parties, 1):
        fixed += [("straight_party", [(STRAIGHT_PARTY_CONTEST_ID, party)])] * k
    over = [(STRAIGHT_PARTY_CONTEST_ID, p) for p in parties[:2]] if len(parties) > 1 else []
    for c in contests:
        # Named options first; a write-in line only where the names alone cannot overvote (2 seats, 2 names).
        pool = [o.id for o in c.options if o.kind != "write_in"] + [o.id for o in c.options if o.kind == "write_in"]
        if len(pool) > c.vote_for:
            over += [(c.id, o) for o in pool[: c.vote_for + 1]]
    fixed.append(("overvote", over))
    under = [(c.id, o.id) for c in contests for o in c.options[: c.vote_for - 1] if o.kind != "write_in"]
    if not under:  # every contest votes for 1: one vote in the last contest keeps the ballot from being blank
        under = [(contests[-1].id, contests[-1].options[0].id)]
    fixed.append(("undervote", under))
    return fixed


def _counted(contest: Contest, marks: list[tuple[str, str]], straight: str | None) -> tuple[str, ...] | None:
    """The options a ballot's marks credit in a contest; None for an overvote (Section 1(6))."""
    own = tuple(o for c, o in marks if c == contest.id)
    if len(own) > contest.vote_for:
        return None
    if not own and straight is not None:
        return _straight_party_choice(contest, straight)
    return own


def _straight(marks: list[tuple[str, str]]) -> str | None:
    parties = [o for c, o in marks if c == STRAIGHT_PARTY_CONTEST_ID]
    return parties[0] if len(parties) == 1 else None


def _distinct_totals(contest: Contest, marked: Mapping[str, int], straight: Mapping[str, int]) -> dict[str, int]:
    """How many counted marks each option's target gets in the whole deck.

    Two swapped targets exchange their *marks*, not the straight-party votes
    (those come from the party's target), so the marks at each target differ
    from every other option's, and so do the totals (marks plus straight-party
    votes). Options are taken in ballot order; each gets the smallest count
    that keeps both different and leaves it at least one vote from a ballot of
    the series (Section 3(4)(a), and a write-in vote on every write-in line,
    3(4)(e)).
    """
    used_marks: set[int] = set()
    used_totals: set[int] = set()
    out = {}
    for o in contest.options:
        m = marked.get(o.id, 0) + 1
        while m in used_marks or m + straight.get(o.id, 0) in used_totals:
            m += 1
        used_marks.add(m)
        used_totals.add(m + straight.get(o.id, 0))
        out[o.id] = m
    return out


def _vote_ballots(contests: tuple[Contest, ...], need: dict[str, dict[str, int]]) -> list[list[tuple[str, str]]]:
    """Ballots that give every option its remaining votes, at most ``vote_for`` options per contest per ballot.

    Each ballot takes, in each contest, the options with most votes still to
    give: this uses the fewest ballots, max(largest need, total / vote_for).
    """
    ballots: list[list[tuple[str, str]]] = []
    order = {c.id: [o.id for o in c.options] for c in contests}
    while any(n for c in need.values() for n in c.values()):
        ballot = []
        for c in contests:
            left = need[c.id]
            pick = sorted((o for o in order[c.id] if left[o]), key=lambda o: (-left[o], order[c.id].index(o)))
            for o in sorted(pick[: c.vote_for], key=order[c.id].index):
                left[o] -= 1
                ballot.append((c.id, o))
        ballots.append(ballot)
    return ballots


def design_style_deck(election: Election, style_id: str) -> StyleDeck:
    """The deck of one ballot style and its tally sheet (31 KAR 2:020 Section 3(2): "all ballot styles").

    Parameters
    ----------
    election
        The election.
    style_id
        The ballot style; the deck is printed for its first precinct.
    """
    style = election.style(style_id)
    contests = tuple(election.contest(cid) for cid in style.contests)
    fixed = _fixed_ballots(election, contests)
    marked: dict[str, dict[str, int]] = {c.id: {} for c in contests}
    by_party: dict[str, dict[str, int]] = {c.id: {} for c in contests}
    for _purpose, marks in fixed:
        straight = _straight(marks)
        own = {(c, o) for c, o in marks}
        for c in contests:
            for o in _counted(c, marks, straight) or ():
                tally = marked if (c.id, o) in own else by_party
                tally[c.id][o] = tally[c.id].get(o, 0) + 1
    need = {
        c.id: {o: t - marked[c.id].get(o, 0) for o, t in _distinct_totals(c, marked[c.id], by_party[c.id]).items()}
        for c in contests
    }
    every = fixed + [("votes", marks) for marks in _vote_ballots(contests, need)]
    names = {c.id: _write_in_name(c) for c in contests}
    write_in_lines = {(c.id, o.id) for c in contests for o in c.options if o.kind == "write_in"}
    ballots = tuple(
        DeckBallot(n, purpose, tuple(marks), tuple((c, o, names[c]) for c, o in marks if (c, o) in write_in_lines))
        for n, (purpose, marks) in enumerate(every, 1)
    )
    return StyleDeck(style_id, style.precincts[0], ballots, expected_tally(election, style_id, ballots))


def expected_tally(election: Election, style_id: str, ballots: tuple[DeckBallot, ...]) -> TallySheet:
    """Work out the tally sheet of a deck from its ballots' marks."""
    style = election.style(style_id)
    contests = tuple(election.contest(cid) for cid in style.contests)
    votes = {c.id: {o.id: 0 for o in c.options} for c in contests}
    over = {c.id: 0 for c in contests}
    under = {c.id: 0 for c in contests}
    parties: dict[str, int] = {}
    if election.straight_party:
        parties = dict.fromkeys(_parties_on_ballot(election, contests), 0)
    for b in ballots:
        marks = list(b.marks)
        straight = _straight(marks)
        if straight is not None:
            parties[straight] += 1
        for c in contests:
            counted = _counted(c, marks, straight)
            if counted is None:
                over[c.id] += c.vote_for
                continue
            under[c.id] += c.vote_for - len(counted)
            for o in counted:
                votes[c.id][o] += 1
    expect = tuple(ContestExpectation(c.id, tuple(votes[c.id].items()), over[c.id], under[c.id]) for c in contests)
    return TallySheet(style_id, style.precincts[0], len(ballots), expect, tuple(parties.items()))
