"""A write-in's decision, and the filed candidates a written name is compared with (31 KAR 6:030 Section 4).

The shared ground of `tabulate.rules._write_in` (which reads the name) and
`tabulate.rules._write_in_surname` (a name with a filed surname).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..election import Contest
from . import clauses as K
from ._names import PersonName, split_name

Outcome = Literal["candidate", "not_counted", "person_must_decide"]


@dataclass(frozen=True)
class WriteInDecision:
    """What a written name is worth in one contest.

    ``clause`` is the provision that decides it, ``clauses`` every provision
    cited (``clause`` first); ``candidate_id`` is set for ``candidate``;
    ``candidates`` lists the candidates in question (the one meant, those who
    share a surname, those a misspelling could mean). ``written`` is the name
    as normalised for comparison.
    """

    outcome: Outcome
    clause: str
    explanation: str
    candidate_id: str | None = None
    candidates: tuple[str, ...] = ()
    clauses: tuple[str, ...] = ()
    written: str = ""


@dataclass(frozen=True)
class _Filed:
    """One person filed for the office: a candidate on the ballot, a running mate, or a declared write-in."""

    candidate_id: str
    name: str
    forms: tuple[PersonName, ...]  # the name as filed, then its filed variations (KRS 117.265(2))
    on_ballot: bool
    running_mate: bool = False


def _decision(
    outcome: Outcome,
    clauses: tuple[str, ...],
    explanation: str,
    candidate_id: str | None = None,
    candidates: tuple[str, ...] = (),
) -> WriteInDecision:
    return WriteInDecision(outcome, clauses[0], explanation, candidate_id, candidates, clauses)


def _filed(contest: Contest) -> list[_Filed]:
    out = []
    for c in contest.candidates:
        out.append(_Filed(c.id, c.name, (split_name(c.name),), True))
        if c.running_mate:
            out.append(_Filed(c.id, c.running_mate, (split_name(c.running_mate),), True, True))
    for w in contest.declared_write_ins:
        out.append(_Filed(w.id, w.name, tuple(split_name(n) for n in (w.name,) + w.variations), False))
        if w.running_mate:
            out.append(_Filed(w.id, w.running_mate, (split_name(w.running_mate),), False, True))
    return out


def _slate_clause(contest: Contest) -> str:
    """The slate clause for the contest's office, never guessed from its title.

    31 KAR 6:030 Section 4(10): "Writing in the surname of the candidate for Governor or the surname of the
    candidate for Lieutenant Governor shall be sufficient to cast a write-in vote for the slate." Section
    4(11): the same for President and Vice President. The election definition refuses a slate contest
    whose ``office`` is neither.
    """
    clause = {"president": K.PRESIDENT_SLATE, "governor": K.GOVERNOR_SLATE}.get(contest.office or "")
    if clause is None:  # the election loader refuses such a contest; a hand-built one is a bug
        raise ValueError(f"slate contest {contest.id!r} has office {contest.office!r}, not president or governor")
    return clause


def _vote_for(entry: _Filed, clauses: tuple[str, ...], why: str, fwab: bool) -> WriteInDecision:
    """A name that means ``entry``: a vote for them, unless they are on the ballot already.

    31 KAR 6:030 Section 4(2): "A write-in vote for a candidate whose name
    already appears on the ballot as a candidate shall not be counted as a
    vote". Suspended for an FWAB (31 KAR 5:011 Section 2), whose voter writes
    every choice, on-ballot candidates included.
    """
    if entry.on_ballot and not fwab:
        return _decision(
            "not_counted",
            (K.ALREADY_ON_BALLOT,) + clauses,
            f"{why}; {entry.name} is already on the ballot for this office, so a write-in for them "
            "is not counted (§4(2))",
            candidates=(entry.candidate_id,),
        )
    if entry.on_ballot:
        clauses += (K.FWAB,)
        why += "; on a federal write-in absentee ballot §4(2) is suspended (31 KAR 5:011 §2)"
    return _decision("candidate", clauses, why, entry.candidate_id, (entry.candidate_id,))
