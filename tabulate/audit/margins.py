"""Margins of victory, and the thresholds the law sets on them.

- KRS 120.157(1): "In any regular election or special election for any member
  of the General Assembly, the United States Senate or the United States House
  of Representatives, Governor and Lieutenant Governor, Treasurer, Auditor of
  Public Accounts, Commissioner of Agriculture, Labor and Statistics, Secretary
  of State, and Attorney General, a recount of the vote shall be required when
  a candidate is defeated by a margin of not more than one-half of one percent
  (0.5%) of the votes cast for the office."
- KRS 117.305(1), as issue #13 states it (the statute's text is not in the
  project's law folder): a candidate's recanvass request is sufficient when the
  margin is under one percent (1 %) of the votes cast for the office.
- 31 KAR 4:220 Section 9(11)(b): the State Board totals the overvotes and
  damaged ballots when "the count of ballots by the electronic voting
  equipment did result in a margin of victory of 0.25% or less".

All comparisons are in integers, so the boundaries are exact: a margin of
exactly 0.5 % is "not more than" 0.5 %.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..election.model import Contest
from ..report.tally import ContestCounts

#: The `tabulate.election.model.OFFICES` that KRS 120.157(1) names. The President is not among them.
AUTOMATIC_RECOUNT_OFFICES: frozenset[str] = frozenset(
    {
        "state_senate",
        "state_representative",
        "us_senate",
        "us_house",
        "governor",
        "treasurer",
        "auditor",
        "agriculture",
        "secretary_of_state",
        "attorney_general",
    }
)


@dataclass(frozen=True)
class RaceMargin:
    """A race's standings: candidates by votes, who is elected, and the margin over the first defeated."""

    contest: Contest
    #: ``(option id, votes)``, most votes first (ballot order breaks ties).
    standings: tuple[tuple[str, int], ...]
    #: Votes cast for the office: every vote on the contest's options, write-in lines included.
    votes_cast: int

    @property
    def elected(self) -> tuple[str, ...]:
        return tuple(o for o, _ in self.standings[: self.contest.vote_for])

    @property
    def first_defeated(self) -> str | None:
        n = self.contest.vote_for
        return self.standings[n][0] if len(self.standings) > n else None

    @property
    def margin(self) -> int | None:
        """Votes between the last elected and the first defeated candidate; None if nobody is defeated."""
        n = self.contest.vote_for
        if len(self.standings) <= n:
            return None
        return self.standings[n - 1][1] - self.standings[n][1]

    def within(self, numerator: int, denominator: int, *, strictly: bool = False) -> bool:
        """Whether the margin is at most (or, ``strictly``, under) ``numerator/denominator`` of the votes cast."""
        if self.margin is None or self.votes_cast == 0:
            return False
        lhs, rhs = self.margin * denominator, numerator * self.votes_cast
        return lhs < rhs if strictly else lhs <= rhs

    @property
    def percent(self) -> float | None:
        if self.margin is None or self.votes_cast == 0:
            return None
        return 100.0 * self.margin / self.votes_cast

    @property
    def automatic_recount(self) -> bool:
        """KRS 120.157(1): an office it names, and a candidate defeated by not more than 0.5 % of the votes cast."""
        return self.contest.office in AUTOMATIC_RECOUNT_OFFICES and self.within(5, 1000)

    @property
    def recanvass_sufficient(self) -> bool:
        """KRS 117.305(1) (per issue #13): a margin under 1 % of the votes cast for the office."""
        return self.within(1, 100, strictly=True)

    @property
    def board_count_test(self) -> bool:
        """31 KAR 4:220 Section 9(11)(b): a machine margin of victory of 0.25 % or less."""
        return self.within(25, 10000)


def race_margin(contest: Contest, counts: ContestCounts) -> RaceMargin | None:
    """The standings of a candidate contest from its counts (None for a question).

    Votes on write-in lines count toward the votes cast; declared write-in
    candidates whose names were resolved stand with the named candidates.
    """
    if contest.type != "candidate":
        return None
    order = [c.id for c in contest.candidates] + [w for w, _ in counts.write_ins.resolved]
    votes = {c.id: counts.votes_for(c.id) for c in contest.candidates}
    votes.update(dict(counts.write_ins.resolved))
    standings = tuple(sorted(votes.items(), key=lambda kv: (-kv[1], order.index(kv[0]))))
    return RaceMargin(contest, standings, counts.total_votes)
