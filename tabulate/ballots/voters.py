"""Simulated voters: what each one means to vote, before any ink touches paper.

A voter is drawn from a `Population`: an archetype (a full ballot, some
contests skipped, straight party with or without crossover votes, an
overvote, write-ins, a blank ballot), a party lean, and choices per contest.
How the intent is inked (which kind of mark, which pen, stray marks) is
decided afterwards by `tabulate.ballots.plan`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..election.model import STRAIGHT_PARTY_CONTEST_ID, Contest, Election
from .names import write_in_name

ARCHETYPES = (
    "full",
    "undervote",
    "straight_party",
    "straight_party_crossover",
    "straight_party_double",
    "overvote",
    "write_in",
    "blank",
)


@dataclass(frozen=True)
class WriteIn:
    """A name written on a write-in line.

    ``how`` says how the name relates to the contest (see `tabulate.ballots.names`);
    ``candidate`` is the declared write-in candidate it stands for, if any;
    ``marked`` says whether the voter also marked the line's target.
    """

    option_id: str
    name: str
    how: str
    candidate: str | None
    marked: bool


@dataclass(frozen=True)
class ContestChoice:
    """The options a voter marks in one contest (more than ``vote_for`` is an overvote) and names written."""

    contest_id: str
    selections: tuple[str, ...] = ()
    write_ins: tuple[WriteIn, ...] = ()


@dataclass(frozen=True)
class VoterIntent:
    """Everything one voter means to do on one ballot."""

    archetype: str
    style_id: str
    precinct_id: str
    lean: str | None
    straight_party: tuple[str, ...] = ()
    choices: tuple[ContestChoice, ...] = ()

    def choice(self, contest_id: str) -> ContestChoice:
        for c in self.choices:
            if c.contest_id == contest_id:
                return c
        return ContestChoice(contest_id)


@dataclass(frozen=True)
class Population:
    """How often voters do what: archetypes, the mark they vote with, pens, and marks that are not votes.

    Weights need not sum to 1. ``deviation`` is the chance that one selection
    uses another selecting mark than the voter's habit; ``extras`` the chance,
    per ballot, of each non-vote mark (erasure, hesitation, dot, stray).
    """

    name: str
    archetypes: tuple[tuple[str, float], ...]
    habits: tuple[tuple[str, float], ...]
    pens: tuple[tuple[str, float], ...] = (("black_pen", 0.5), ("blue_pen", 0.3), ("pencil", 0.2))
    deviation: float = 0.05
    extras: tuple[tuple[str, float], ...] = field(
        default=(("erasure", 0.05), ("hesitation", 0.08), ("dot", 0.03), ("stray", 0.08))
    )
    unmarked_write_in: float = 0.25


POPULATIONS: dict[str, Population] = {
    # What a county sees: nearly every voter fills the targets as told, so a few per cent of sheets go
    # to a person, most of them for a write-in (the rate counties report for hand-marked paper ballots
    # on optical scanners). The hard cases are the "stress" population's.
    "realistic": Population(
        "realistic",
        archetypes=(
            ("full", 0.50),
            ("undervote", 0.30),
            ("straight_party", 0.10),
            ("straight_party_crossover", 0.06),
            ("straight_party_double", 0.002),
            ("overvote", 0.003),
            ("write_in", 0.02),
            ("blank", 0.002),
        ),
        habits=(
            ("full_fill", 0.995),
            ("partial_fill", 0.001),
            ("light_pencil", 0.001),
            ("x_mark", 0.001),
            ("check", 0.0005),
            ("circle", 0.0005),
            ("line_through", 0.0005),
            ("beside_name", 0.0005),
        ),
        deviation=0.0003,
        extras=(("erasure", 0.002), ("hesitation", 0.002), ("dot", 0.001), ("stray", 0.005)),
        unmarked_write_in=0.1,
    ),
    # The former "realistic" mix: every hard case common enough that a small run shows each of them.
    "varied": Population(
        "varied",
        archetypes=(
            ("full", 0.38),
            ("undervote", 0.17),
            ("straight_party", 0.10),
            ("straight_party_crossover", 0.08),
            ("straight_party_double", 0.01),
            ("overvote", 0.07),
            ("write_in", 0.09),
            ("blank", 0.02),
        ),
        habits=(
            ("full_fill", 0.70),
            ("partial_fill", 0.07),
            ("light_pencil", 0.04),
            ("x_mark", 0.05),
            ("check", 0.05),
            ("circle", 0.03),
            ("line_through", 0.03),
            ("beside_name", 0.03),
        ),
    ),
    # Every voter fills targets well; nothing else on the page.
    "clean": Population(
        "clean",
        archetypes=(("full", 0.6), ("undervote", 0.25), ("straight_party", 0.15)),
        habits=(("full_fill", 1.0),),
        deviation=0.0,
        extras=(),
        unmarked_write_in=0.0,
    ),
    # Every kind of mark and voter equally often: for benchmarks of the hard cases.
    "stress": Population(
        "stress",
        archetypes=tuple((a, 1.0) for a in ARCHETYPES),
        habits=tuple(
            (k, 1.0)
            for k in (
                "full_fill",
                "partial_fill",
                "light_pencil",
                "x_mark",
                "check",
                "circle",
                "line_through",
                "beside_name",
            )
        ),
        deviation=0.3,
        extras=(("erasure", 0.4), ("hesitation", 0.4), ("dot", 0.3), ("stray", 0.4)),
        unmarked_write_in=0.4,
    ),
}


def pick(rng: np.random.Generator, weighted: tuple[tuple[str, float], ...]) -> str:
    """One name from (name, weight) pairs."""
    names = [n for n, _ in weighted]
    w = np.array([x for _, x in weighted], dtype=np.float64)
    return names[int(rng.choice(len(names), p=w / w.sum()))]


def _candidates(contest: Contest):
    return [o for o in contest.options if o.kind != "write_in"]


def _write_in_lines(contest: Contest):
    return [o for o in contest.options if o.kind == "write_in"]


def _vote(contest: Contest, lean: str | None, rng: np.random.Generator, k: int | None = None) -> tuple[str, ...]:
    """``k`` (default: usually ``vote_for``, sometimes fewer) distinct options, own party's first."""
    opts = _candidates(contest)
    if k is None:
        k = contest.vote_for
        if k > 1 and rng.random() >= 0.7:
            k = int(rng.integers(1, contest.vote_for + 1))
    k = min(k, len(opts))
    weights = np.array([4.0 if (lean and o.party == lean) else 1.0 for o in opts])
    idx = rng.choice(len(opts), size=k, replace=False, p=weights / weights.sum())
    return tuple(opts[i].id for i in sorted(idx))


def _write_in(contest: Contest, election: Election, rng: np.random.Generator, marked: bool) -> WriteIn:
    line = _write_in_lines(contest)[int(rng.integers(len(_write_in_lines(contest))))]
    name, how, cand = write_in_name(contest, election, rng)
    return WriteIn(line.id, name, how, cand, marked)


def _partisan(contest: Contest) -> bool:
    return contest.type == "candidate" and contest.partisan and any(c.party for c in contest.candidates)


def draw_voter(
    election: Election,
    rng: np.random.Generator,
    population: Population,
    style_id: str | None = None,
    precinct_id: str | None = None,
) -> VoterIntent:
    """Draw one voter's intent: a style and precinct (unless given), an archetype, and per-contest choices."""
    styles = election.ballot_styles
    style = election.style(style_id) if style_id else styles[int(rng.integers(len(styles)))]
    precinct = precinct_id or style.precincts[int(rng.integers(len(style.precincts)))]
    contests = [election.contest(cid) for cid in style.contests]
    party_ids = [p.id for p in election.straight_party_contest.candidates] if election.straight_party else []
    lean = style.party or (party_ids[int(rng.integers(len(party_ids)))] if party_ids else None)

    allowed = dict(population.archetypes)
    if not election.straight_party:
        for a in ("straight_party", "straight_party_crossover", "straight_party_double"):
            allowed.pop(a, None)
    if not any(c.write_ins for c in contests):
        allowed.pop("write_in", None)
    archetype = pick(rng, tuple(allowed.items()) or (("full", 1.0),))

    choices: dict[str, ContestChoice] = {}
    straight: tuple[str, ...] = ()
    if archetype == "blank":
        return VoterIntent(archetype, style.id, precinct, lean)
    if archetype.startswith("straight_party"):
        straight = (lean,)
        if archetype == "straight_party_double":
            others = [p for p in party_ids if p != lean]
            straight = tuple(sorted((lean, others[int(rng.integers(len(others)))]), key=party_ids.index))
    for c in contests:
        if archetype == "undervote" and rng.random() < rng.uniform(0.2, 0.6):
            continue
        if straight and _partisan(c):
            continue  # left to the straight-party vote (31 KAR 6:030 Section 5); crossovers below
        if straight and rng.random() < 0.2:
            continue
        choices[c.id] = ContestChoice(c.id, _vote(c, lean, rng))

    if archetype == "straight_party_crossover":
        partisan = [c for c in contests if _partisan(c)]
        for i in rng.permutation(len(partisan))[: int(rng.integers(1, 4))]:
            c = partisan[i]
            how = rng.random()
            if how < 0.15 and c.write_ins:
                w = _write_in(c, election, rng, marked=True)
                choices[c.id] = ContestChoice(c.id, (w.option_id,), (w,))
            elif how < 0.40:
                own = [o.id for o in _candidates(c) if o.party == lean]
                choices[c.id] = ContestChoice(c.id, tuple(own[: c.vote_for]) or _vote(c, None, rng))
            else:
                other = [o for o in _candidates(c) if o.party != lean]
                pick_from = other or _candidates(c)
                choices[c.id] = ContestChoice(c.id, (pick_from[int(rng.integers(len(pick_from)))].id,))
    elif archetype == "overvote":
        over = [c for c in contests if len(_candidates(c)) + min(c.write_ins, 1) > c.vote_for]
        if over:
            c = over[int(rng.integers(len(over)))]
            enough_named = len(_candidates(c)) > c.vote_for
            if c.write_ins and (not enough_named or rng.random() < 0.3):
                # A named candidate plus a write-in for someone else (31 KAR 6:030 §2(2)(b)).
                w = _write_in(c, election, rng, marked=True)
                choices[c.id] = ContestChoice(c.id, _vote(c, lean, rng, c.vote_for) + (w.option_id,), (w,))
            else:
                choices[c.id] = ContestChoice(c.id, _vote(c, lean, rng, c.vote_for + 1))
    elif archetype == "write_in":
        lines = [c for c in contests if c.write_ins]
        for i in rng.permutation(len(lines))[: int(rng.integers(1, 3))]:
            c = lines[i]
            marked = rng.random() >= population.unmarked_write_in
            w = _write_in(c, election, rng, marked)
            if marked:
                named = _vote(c, lean, rng, c.vote_for - 1) if c.vote_for > 1 else ()
                choices[c.id] = ContestChoice(c.id, named + (w.option_id,), (w,))
            else:
                # The name is written but the target left empty (not a vote, §2(1)(b)).
                keep = choices.get(c.id, ContestChoice(c.id))
                choices[c.id] = ContestChoice(c.id, keep.selections, (w,))
    ordered = tuple(choices[c.id] for c in contests if c.id in choices)
    return VoterIntent(archetype, style.id, precinct, lean, straight, ordered)


def intended_votes(election: Election, intent: VoterIntent, contest: Contest) -> tuple[tuple[str, ...], bool]:
    """What the voter means to have counted in a contest, and whether it comes from the straight-party vote.

    31 KAR 6:030 Section 5 as DESIGN.md reads it: one straight-party target
    marked gives the party's candidates in every partisan contest where the
    voter made no selection of their own; two marked give nothing. An
    overvoted contest counts nothing (§1(6), §2(2)(b)).
    """
    choice = intent.choice(contest.id)
    if choice.selections:
        return (() if len(choice.selections) > contest.vote_for else choice.selections), False
    if len(intent.straight_party) == 1 and _partisan(contest) and contest.id != STRAIGHT_PARTY_CONTEST_ID:
        own = tuple(o.id for o in _candidates(contest) if o.party == intent.straight_party[0])
        return own[: contest.vote_for], bool(own)
    return (), False
