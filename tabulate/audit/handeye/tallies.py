"""The two hand tallies of a hand-to-eye audit: who counted, what they found, and whether they agree.

31 KAR 4:230 Section 2(1): "there shall be a hand-to-eye recount of ballots,
during which poll workers shall hand-tally ballots cast in the election on a
Form SBE 90". Two poll workers not of the same political party each tally the
pile; the board checks that the two tallies match and, if they do not, the
pile is counted again by both until they do. Every attempt is kept.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ...core import TabulateError
from ...election import Contest, Election


class TallyError(TabulateError, ValueError):
    """A tally that cannot be accepted (wrong party, unknown option, a count that is not a number ...)."""

    code = "audit_tally"


@dataclass(frozen=True)
class TallyEntry:
    """One counter's totals for the race, in one attempt."""

    attempt: int
    counter: str
    party: str
    counts: Mapping[str, int]
    entered_at: str = ""
    entered_by: str = ""

    def to_dict(self) -> dict:
        return {
            "attempt": self.attempt,
            "counter": self.counter,
            "party": self.party,
            "counts": dict(self.counts),
            "entered_at": self.entered_at,
            "entered_by": self.entered_by,
        }


@dataclass(frozen=True)
class Attempt:
    """One count of the pile by two counters: ``entries`` holds zero, one or two tallies."""

    number: int
    entries: tuple[TallyEntry, ...]

    @property
    def complete(self) -> bool:
        return len(self.entries) == 2

    @property
    def differences(self) -> tuple[str, ...]:
        """Options where the two tallies differ (empty until both are in, and when they match)."""
        if not self.complete:
            return ()
        a, b = self.entries
        return tuple(o for o in a.counts if a.counts.get(o) != b.counts.get(o))

    @property
    def matched(self) -> bool:
        return self.complete and not self.differences


def current_attempt(entries: Sequence[TallyEntry]) -> Attempt:
    """The attempt a new tally joins: the last one if it is not complete, else a new one."""
    attempts = group_attempts(entries)
    if attempts and not attempts[-1].complete:
        return attempts[-1]
    return Attempt(len(attempts) + 1, ())


def group_attempts(entries: Iterable[TallyEntry]) -> list[Attempt]:
    by: dict[int, list[TallyEntry]] = {}
    for e in entries:
        by.setdefault(e.attempt, []).append(e)
    return [Attempt(n, tuple(by[n])) for n in sorted(by)]


def matched_tally(entries: Sequence[TallyEntry]) -> Attempt | None:
    """The attempt whose two tallies agree, or None while none does."""
    return next((a for a in group_attempts(entries) if a.matched), None)


def check_counter(election: Election, attempt: Attempt, counter: str, party: str) -> str:
    """The counter's party id, after the different-party rule; raise `TallyError` otherwise.

    The two poll workers who tally must not be of the same political party
    (KRS 117.383(8) as 31 KAR 4:230 applies it; compare 4:220 §7(1), "teams of
    two (2) so that each team contains individuals registered of differing
    political party affiliations"). The party must be one of the election's.
    """
    counter = " ".join(counter.split())
    if not counter:
        raise TallyError("give the counter's name")
    parties = {p.id.upper(): p.id for p in election.parties}
    parties.update({p.abbreviation.upper(): p.id for p in election.parties})
    party_id = parties.get(party.strip().upper())
    if party_id is None:
        raise TallyError(
            f"party {party!r} is not one of this election's parties ({', '.join(p.id for p in election.parties)})"
        )
    for e in attempt.entries:
        if e.counter.casefold() == counter.casefold():
            raise TallyError(f"{counter} already entered a tally in attempt {attempt.number}")
        if e.party == party_id:
            raise TallyError(
                f"{counter} ({party_id}) cannot tally with {e.counter} ({e.party}): the two counters "
                "must not be of the same political party"
            )
    return party_id


def option_keys(contest: Contest) -> dict[str, str]:
    """Every way a tally file may name an option (its id, or its label), casefolded -> option id."""
    keys = {}
    for o in contest.options:
        keys[o.id.casefold()] = o.id
        keys[" ".join(o.label.split()).casefold()] = o.id
    return keys


def parse_counts(contest: Contest, rows: Iterable[tuple[str, str]], *, what: str = "the tally") -> dict[str, int]:
    """``(option, votes)`` pairs to counts for every option of the race (each option exactly once)."""
    keys, out = option_keys(contest), {}
    for name, value in rows:
        name = " ".join(str(name).split())
        if not name or name.casefold() in ("option", "total", "totals"):
            continue
        oid = keys.get(name.casefold())
        if oid is None:
            raise TallyError(
                f"{what}: {name!r} is not an option of {contest.title} "
                f"(options: {', '.join(o.id for o in contest.options)})"
            )
        if oid in out:
            raise TallyError(f"{what}: {name!r} appears twice")
        text = str(value).strip()
        if not text.isdigit():
            raise TallyError(f"{what}: the count for {name!r} must be a whole number, not {text!r}")
        out[oid] = int(text)
    missing = [o.id for o in contest.options if o.id not in out]
    if missing:
        raise TallyError(f"{what}: no count for {', '.join(missing)} (write 0 where nobody got a vote)")
    return {o.id: out[o.id] for o in contest.options}


def read_counts_csv(contest: Contest, text: str, *, what: str = "the tally") -> dict[str, int]:
    """A CSV of ``option,votes`` (a header line is allowed) to counts for every option."""
    rows = [r for r in csv.reader(io.StringIO(text)) if r and any(c.strip() for c in r)]
    for r in rows:
        if len(r) < 2:
            raise TallyError(f"{what}: each line needs an option and a count, not {','.join(r)!r}")
    if rows and rows[0][1].strip().casefold() in ("votes", "count", "total"):
        rows = rows[1:]
    return parse_counts(contest, ((r[0], r[1]) for r in rows), what=what)
