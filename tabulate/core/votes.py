"""What the rules produce (`ContestVotes`, `BallotVotes`) and their one plain-dict form.

`contest_votes_to_dict` / `contest_votes_from_dict` and `votes_to_dict` /
`votes_from_dict` are the only converters between these types and JSON-ready
data: the store's columns, the ``tabulate votes`` output and adjudication's
decisions all use them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, Mapping

ContestStatus = Literal["valid", "undervote", "overvote", "blank", "write_in_pending"]


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
        """The votes of one contest (KeyError when the ballot does not hold it)."""
        for c in self.contests:
            if c.contest_id == contest_id:
                return c
        raise KeyError(contest_id)


def contest_votes_to_dict(v: ContestVotes) -> dict[str, Any]:
    """One contest's votes as JSON-ready data, fields in declaration order (tuples become lists)."""
    return {
        "contest_id": v.contest_id,
        "status": v.status,
        "selections": list(v.selections),
        "overvotes": v.overvotes,
        "undervotes": v.undervotes,
        "from_straight_party": v.from_straight_party,
        "clauses": list(v.clauses),
    }


def contest_votes_from_dict(d: Mapping[str, Any]) -> ContestVotes:
    """The inverse of `contest_votes_to_dict`; missing counts and flags take their defaults."""
    return ContestVotes(
        contest_id=d["contest_id"],
        status=d["status"],
        selections=tuple(d.get("selections", ())),
        overvotes=int(d.get("overvotes", 0)),
        undervotes=int(d.get("undervotes", 0)),
        from_straight_party=bool(d.get("from_straight_party", False)),
        clauses=tuple(d.get("clauses", ())),
    )


def votes_to_dict(votes: BallotVotes) -> dict[str, Any]:
    """A ballot's votes as plain JSON-ready data, fields in declaration order (tuples become lists)."""
    return {
        "ballot_id": votes.ballot_id,
        "style_id": votes.style_id,
        "contests": [contest_votes_to_dict(c) for c in votes.contests],
        "precinct_id": votes.precinct_id,
        "straight_party": votes.straight_party,
        "reasons": [asdict(r) for r in votes.reasons],
        "needs_review": votes.needs_review,
        "blank": votes.blank,
        "fwab": votes.fwab,
    }


def votes_from_dict(d: Mapping[str, Any]) -> BallotVotes:
    """The votes a person decided, back from `votes_to_dict` data.

    Reasons are not restored and ``needs_review`` is False: these are votes
    after people decided, which is what a record's ``modified`` holds.
    """
    contests = tuple(contest_votes_from_dict(c) for c in d["contests"])
    return BallotVotes(
        d["ballot_id"],
        d["style_id"],
        contests,
        d.get("precinct_id"),
        d.get("straight_party"),
        (),
        needs_review=False,
        blank=bool(d.get("blank", False)),
        fwab=bool(d.get("fwab", False)),
    )
