"""Write-in names given with the marks: the §4 resolver and the §5(1) fallback to the straight party.

A marks file may carry the name read on a write-in line (``write_in_name``,
docs/marks.md). `apply_write_in_names` runs the rules, asks
`resolve_write_in` whose vote each name is, and folds the answers in the way
the adjudication app does (`tabulate.adjudicate.entries`): the write-in line
stays the selection and ``write_ins`` maps it to the declared candidate, or to
None when the name is not counted; the marks change only where the law says
another option gets the vote.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping

from ..core.marks import BallotMarks, OptionMark
from ..core.votes import BallotVotes, ContestVotes
from ..election import Contest, Election
from . import clauses as K
from ._apply import apply_rules
from ._contest import contest_status, read_contest
from ._write_in import resolve_write_in
from ._write_in_decision import WriteInDecision


@dataclass(frozen=True)
class NamedWriteIn:
    """One write-in line whose name was given, what the resolver made of it and what that did."""

    contest_id: str
    option_id: str
    name: str
    decision: WriteInDecision
    effect: str


@dataclass(frozen=True)
class NamedVotes:
    """The votes with the names folded in.

    ``write_ins`` maps ``(contest_id, write-in option_id)`` to the declared
    candidate's id, or to None when the name is not counted; a write-in
    selection absent from it still needs a person (as in `BallotRecord`).
    """

    votes: BallotVotes
    write_ins: Mapping[tuple[str, str], str | None]
    named: tuple[NamedWriteIn, ...]


def _names(marks: BallotMarks, contest: Contest) -> dict[str, str]:
    lines = {o.id for o in contest.options if o.kind == "write_in"}
    return {
        oid: m.write_in_name
        for oid, m in marks.marks.get(contest.id, {}).items()
        if oid in lines and m.write_in_name and m.write_in_name.strip()
    }


def _adjust(
    marks: dict[str, OptionMark],
    contest: Contest,
    own: tuple[str, ...],
    decisions: dict[str, WriteInDecision],
    straight_party: str | None,
    fwab: bool,
) -> dict[str, str]:
    """Change ``marks`` where the law gives the vote to another option; return option id -> effect.

    ``own`` are the voter's own selections (before straight party and the overvote rule).
    """
    effects: dict[str, str] = {}
    on_ballot = {c.id for c in contest.candidates}
    for oid, d in decisions.items():
        if d.outcome == "candidate" and d.candidate_id in on_ballot and fwab:
            # 31 KAR 5:011 §2 suspends §4(2): on an FWAB a written name of a candidate on the ballot is their vote.
            marks[oid] = OptionMark()
            marks[d.candidate_id] = OptionMark(scan="marked")
            effects[oid] = f"a vote for {d.candidate_id}, on the ballot ({K.FWAB})"
        elif d.outcome == "not_counted" and d.clause == K.ALREADY_ON_BALLOT and d.candidates and d.candidates[0] in own:
            marks[oid] = OptionMark()  # the same person as the mark beside it: not "a different person" (§2(2)(b))
            effects[oid] = f"not counted ({K.ALREADY_ON_BALLOT}); the mark for {d.candidates[0]} stands"
    not_counted = {oid for oid, d in decisions.items() if d.outcome == "not_counted" and oid not in effects}
    if straight_party and contest.partisan and own and set(own) <= not_counted:
        # §5(1) gives the race to "an eligible write-in candidate" only; an ineligible name leaves it to the party.
        for oid in own:
            marks[oid] = OptionMark()
            effects[oid] = f"not counted; the race goes to the straight party {straight_party} ({K.STRAIGHT_PARTY})"
    return effects


def apply_write_in_names(election: Election, marks: BallotMarks) -> NamedVotes:
    """Apply the rules to ``marks`` and resolve every write-in name they carry.

    31 KAR 6:030 Section 5(1): "if a voter designates a choice to vote a
    straight political party ticket and also ... writes in the name of an
    eligible write-in candidate in a specific race, the vote shall be counted
    for ... the eligible write-in candidate for that specific race and the
    remaining votes on the ballot shall be counted for the straight political
    party." A name that is not an eligible write-in candidate's is no such
    vote, so on a straight-party ballot a race whose only selection is that
    write-in goes to the party. A name of a candidate the voter also marked
    is not "a different person" (§2(2)(b)): the write-in is not counted (§4(2))
    and the mark stands. On an FWAB (31 KAR 5:011 §2) a name of a candidate on
    the ballot is a vote for them.

    Names on write-in lines the rules did not count (a name beside an unmarked
    target, §2(1)(b)) are resolved and shown but change nothing.
    """
    votes = apply_rules(election, marks)
    decisions: dict[tuple[str, str], WriteInDecision] = {}
    adjusted = {cid: dict(opts) for cid, opts in marks.marks.items()}
    effects: dict[tuple[str, str], str] = {}
    changed_any = False
    for cv in votes.contests:
        contest = election.contest(cv.contest_id)
        mine = {
            oid: resolve_write_in(name, contest, election, fwab=marks.fwab)
            for oid, name in _names(marks, contest).items()
        }
        decisions.update({(contest.id, oid): d for oid, d in mine.items()})
        own = read_contest(contest, marks.marks.get(contest.id, {}), fwab=marks.fwab)
        counted = {oid: d for oid, d in mine.items() if oid in own.write_ins}
        changed = _adjust(
            adjusted.setdefault(contest.id, {}), contest, own.votes, counted, votes.straight_party, marks.fwab
        )
        effects.update({(contest.id, oid): e for oid, e in changed.items()})
        changed_any |= bool(changed)
        for oid in mine:
            if oid not in own.write_ins:
                effects[(contest.id, oid)] = "not a vote: the write-in target is not marked (§2(1)(b))"
    if changed_any:
        votes = apply_rules(election, replace(marks, marks=adjusted))
    return _fold(election, marks, votes, decisions, effects)


def _fold(
    election: Election,
    marks: BallotMarks,
    votes: BallotVotes,
    decisions: dict[tuple[str, str], WriteInDecision],
    effects: dict[tuple[str, str], str],
) -> NamedVotes:
    write_ins: dict[tuple[str, str], str | None] = {}
    contests = []
    for cv in votes.contests:
        lines = {o.id for o in election.contest(cv.contest_id).options if o.kind == "write_in"}
        if not lines & set(cv.selections):
            contests.append(cv)
            continue
        pending = False
        clauses = cv.clauses
        for s in cv.selections:
            if s not in lines:
                continue
            d = decisions.get((cv.contest_id, s))
            if d is None or d.outcome == "person_must_decide":
                pending = True
                continue
            write_ins[(cv.contest_id, s)] = d.candidate_id if d.outcome == "candidate" else None
            effects.setdefault(
                (cv.contest_id, s), f"a vote for {d.candidate_id}" if d.outcome == "candidate" else "not counted"
            )
            clauses += tuple(c for c in d.clauses if c not in clauses)
        status = (
            cv.status if cv.status == "overvote" else contest_status(cv.selections, _vote_for(election, cv), pending)
        )
        contests.append(replace(cv, status=status, clauses=clauses))
    reasons = tuple(
        r for r in votes.reasons if not (r.code == "marked_write_in" and (r.contest_id, r.option_id) in write_ins)
    )
    queued = set(election.adjudication.reasons)
    votes = replace(
        votes, contests=tuple(contests), reasons=reasons, needs_review=any(r.code in queued for r in reasons)
    )
    overvoted = {cv.contest_id for cv in votes.contests if cv.status == "overvote"}
    for cid, oid in decisions:
        if cid in overvoted:  # a named candidate and "the name of a different person": neither counts
            effects.setdefault(
                (cid, oid), f"part of an overvote: no option gets the vote ({K.CANDIDATE_PLUS_WRITE_IN})"
            )
    named = tuple(
        NamedWriteIn(
            cid, oid, _names(marks, election.contest(cid))[oid], d, effects.get((cid, oid), "a person decides")
        )
        for (cid, oid), d in decisions.items()
    )
    return NamedVotes(votes, write_ins, named)


def _vote_for(election: Election, cv: ContestVotes) -> int:
    return election.contest(cv.contest_id).vote_for
