"""Choosing the scanner and the race of a hand-to-eye audit from a public seed (KRS 117.383(8)(a)).

After every election the Secretary of State selects, in every county, one
ballot scanner and one race tabulated on it, at random. When the county makes
the draw itself it uses a public seed (for example twenty dice digits rolled in
public) and this algorithm, which anyone can re-run in a few lines of their
own code, as the consistent samplers of risk-limiting audit tools do::

    import hashlib
    def draw(seed: str, counter: int, n: int) -> int:
        digest = hashlib.sha256(f"{seed},{counter}".encode("utf-8")).hexdigest()
        return int(digest, 16) % n

    tabulator = tabulators[draw(seed, 1, len(tabulators))]
    race = races_of[tabulator][draw(seed, 2, len(races_of[tabulator]))]

``tabulators`` are the scanners that counted at least one ballot, sorted by
name (as text); ``races_of[t]`` the candidate contests on the ballot styles of
the sheets scanner ``t`` counted, in the election's (ballot) order. The seed is
used exactly as typed, with surrounding spaces removed. A 256-bit number taken
modulo ``n`` is uniform to within ``n / 2**256``, far below anything a test
could see.

Only candidate contests are eligible: 31 KAR 4:230 Section 1(9), '"Race" means
a single decision or set of associated decisions being put before voters for
candidates to elected office.' Questions are not races.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Iterable, Mapping

from ...core import BallotRecord, TabulateError
from ...election import STRAIGHT_PARTY_CONTEST_ID, Election

#: The counters of the two draws (the second element of each hashed string).
TABULATOR_COUNTER = 1
RACE_COUNTER = 2


class SelectionError(TabulateError, ValueError):
    """The draw cannot be made or the announced selection is not possible; the message says why."""

    code = "audit_selection"


@dataclass(frozen=True)
class Candidates:
    """What the draw chooses from: the scanners that counted ballots, and the races on each."""

    tabulators: tuple[str, ...]
    races: Mapping[str, tuple[str, ...]]
    #: Live sheets per tabulator, for the record.
    sheets: Mapping[str, int]


@dataclass(frozen=True)
class Selection:
    """The scanner and race to audit, and how they were chosen.

    ``method`` is ``"seed"`` (drawn here from ``seed``) or ``"announced"``
    (recorded as the Secretary of State announced it; ``seed`` is then empty).
    """

    tabulator: str
    contest_id: str
    method: str
    seed: str
    tabulators: tuple[str, ...]
    races: tuple[str, ...]

    def to_dict(self) -> dict:
        return {
            "tabulator": self.tabulator,
            "contest_id": self.contest_id,
            "method": self.method,
            "seed": self.seed,
            "tabulators": list(self.tabulators),
            "races": list(self.races),
            "algorithm": "index = int(sha256(f'{seed},{counter}').hexdigest(), 16) % n; "
            "counter 1 draws the tabulator, counter 2 the race",
        }


def draw(seed: str, counter: int, n: int) -> int:
    """The index in ``range(n)`` that ``seed`` and ``counter`` choose (see the module docstring)."""
    if n < 1:
        raise SelectionError("nothing to choose from")
    digest = hashlib.sha256(f"{seed},{counter}".encode()).hexdigest()
    return int(digest, 16) % n


def candidates(election: Election, records: Iterable[BallotRecord]) -> Candidates:
    """The scanners that counted ballots and, for each, the races on the styles it counted.

    Every live record (counted or awaiting review) counts: the scanner read it.
    """
    styles: dict[str, set[str]] = {}
    sheets: dict[str, int] = {}
    for r in records:
        styles.setdefault(r.tabulator, set()).add(r.style_id)
        sheets[r.tabulator] = sheets.get(r.tabulator, 0) + 1
    tabulators = tuple(sorted(styles))
    races = {}
    for t in tabulators:
        on_ballots = set()
        for style_id in styles[t]:
            try:
                on_ballots |= {c.id for c in election.style_contests(style_id)}
            except KeyError:
                continue
        races[t] = tuple(
            c.id
            for c in election.contests
            if c.id in on_ballots and c.type == "candidate" and c.id != STRAIGHT_PARTY_CONTEST_ID
        )
    return Candidates(tabulators, races, sheets)


def select_by_seed(pool: Candidates, seed: str) -> Selection:
    """Draw one tabulator, then one race tabulated on it, from the public ``seed``."""
    seed = seed.strip()
    if not seed:
        raise SelectionError("the seed is empty: roll it in public (for example 20 dice digits) and type it in")
    if not pool.tabulators:
        raise SelectionError("no scanner has counted a ballot in this store")
    tabulator = pool.tabulators[draw(seed, TABULATOR_COUNTER, len(pool.tabulators))]
    races = pool.races[tabulator]
    if not races:
        raise SelectionError(f"scanner {tabulator} counted no ballot with a race for office on it")
    return Selection(tabulator, races[draw(seed, RACE_COUNTER, len(races))], "seed", seed, pool.tabulators, races)


def select_announced(pool: Candidates, tabulator: str, contest_id: str) -> Selection:
    """Record the scanner and race the Secretary of State announced, after checking they are possible."""
    if tabulator not in pool.tabulators:
        listed = ", ".join(pool.tabulators) or "none"
        raise SelectionError(f"scanner {tabulator!r} counted no ballot in this store (scanners: {listed})")
    races = pool.races[tabulator]
    if contest_id not in races:
        raise SelectionError(
            f"race {contest_id!r} was not tabulated on scanner {tabulator} (its races: {', '.join(races) or 'none'})"
        )
    return Selection(tabulator, contest_id, "announced", "", pool.tabulators, races)
