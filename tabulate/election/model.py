"""The election as the rest of the pipeline sees it: frozen dataclasses.

Everything downstream (layout, rendering, detection, rules, reports) reads these
types; nothing downstream reads ``election.json`` itself.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

# Re-exported: older code imports these from here.
from ..core.canonical import canonical_json as canonical_json
from ..core.vote_types import VOTE_TYPES as VOTE_TYPES

ElectionType = Literal["general", "primary", "special"]
TargetShape = Literal["oval", "box", "arrow"]
PaperSize = Literal["letter", "legal"]

#: Paper sizes in inches (width, height).
PAPER_SIZES_IN: dict[str, tuple[float, float]] = {"letter": (8.5, 11.0), "legal": (8.5, 14.0)}

#: Every reason the rules can give for a person to look at a ballot.
ADJUDICATION_REASONS: tuple[str, ...] = (
    "marginal_mark",
    "overvote",
    "marked_write_in",
    "unmarked_write_in",
    "blank_ballot",
    "scan_hand_disagreement",
    "undervote",
)
#: Undervotes are legal and common; queueing them is off unless a county asks.
DEFAULT_ADJUDICATION_REASONS: tuple[str, ...] = tuple(r for r in ADJUDICATION_REASONS if r != "undervote")

#: Id of the pseudo-contest that holds the straight-party targets.
STRAIGHT_PARTY_CONTEST_ID = "straight-party"


@dataclass(frozen=True)
class Thresholds:
    """Fill-score thresholds: ``>= definite`` is a mark, ``>= marginal`` goes to a person.

    The score is the target interior's mean darkness between paper (0) and ink
    (1) (`tabulate.kernels.FEATURES`). The defaults come from the accuracy
    benchmark (``benchmarks/accuracy.py``: 2,000 simulated 200 DPI sheets, every
    mark kind, default and rough scans, a quarter bitonal; docs/detect.md has
    the table): no blank target of 57,129 scored above 0.025; light pencil fills
    with ink left in the image score from about 0.05; an erasure's residue
    scored at most 0.131; a filled or majority-filled target on a grey scan at
    least 0.22. ``marginal`` sits just above the blank targets (light and
    erased marks then go to a person); ``definite`` between the erasures and
    the fills, 0.05 from each. With these defaults no definite mark read as
    unmarked and no clear non-mark read as marked.
    """

    marginal: float = 0.035
    definite: float = 0.18


@dataclass(frozen=True)
class Adjudication:
    reasons: tuple[str, ...] = DEFAULT_ADJUDICATION_REASONS
    decided_by: Literal["team", "board"] = "team"
    #: Members of the county board of elections; its majority decides (31 KAR 4:220 §9(12)(a)).
    board_members: int | None = None


@dataclass(frozen=True)
class Party:
    id: str
    name: str
    abbreviation: str


@dataclass(frozen=True)
class Candidate:
    id: str
    name: str
    party: str | None = None
    running_mate: str | None = None


@dataclass(frozen=True)
class DeclaredWriteIn:
    """A write-in candidate who filed a declaration of intent (KRS 117.265)."""

    id: str
    name: str
    variations: tuple[str, ...] = ()
    running_mate: str | None = None


#: Offices an election definition may name in a contest's ``office`` field.
OFFICES: tuple[str, ...] = (
    "president",
    "us_senate",
    "us_house",
    "governor",
    "secretary_of_state",
    "attorney_general",
    "auditor",
    "treasurer",
    "agriculture",
    "state_senate",
    "state_representative",
    "other",
)
#: The offices a slate contest may be for, each with its write-in clause: 31 KAR 6:030
#: Section 4(11) (President and Vice President) and Section 4(10) (Governor and Lieutenant Governor).
SLATE_OFFICES: tuple[str, ...] = ("president", "governor")


@dataclass(frozen=True)
class ContestOption:
    """One line of a contest on paper: a candidate, a write-in line, yes/no, or a party."""

    id: str
    label: str
    kind: Literal["candidate", "write_in", "yes", "no", "party"]
    party: str | None = None
    running_mate: str | None = None


@dataclass(frozen=True)
class Contest:
    """A candidate contest or a yes/no question, as certified."""

    id: str
    type: Literal["candidate", "question"]
    title: str
    level: str = "other"
    vote_for: int = 1
    candidates: tuple[Candidate, ...] = ()
    write_ins: int = 0
    partisan: bool = True
    slate: bool = False
    #: The office where the law singles it out (KRS 120.157(1), 31 KAR 6:030
    #: Section 4(10)-(11)): one of `OFFICES`, or ``None`` for any other.
    office: str | None = None
    declared_write_ins: tuple[DeclaredWriteIn, ...] = ()
    text: str | None = None
    yes_label: str = "YES"
    no_label: str = "NO"

    @cached_property
    def options(self) -> tuple[ContestOption, ...]:
        """The options in ballot order (candidates, then write-in lines; or yes, no).

        Built once a contest (the contest is frozen): the rules ask for them for every contest of every sheet.
        """
        if self.type == "question":
            return (
                ContestOption("yes", self.yes_label, "yes"),
                ContestOption("no", self.no_label, "no"),
            )
        opts = [ContestOption(c.id, c.name, "candidate", c.party, c.running_mate) for c in self.candidates]
        opts += [ContestOption(f"write-in-{i + 1}", "Write-in", "write_in") for i in range(self.write_ins)]
        return tuple(opts)


@dataclass(frozen=True)
class Precinct:
    id: str
    name: str


@dataclass(frozen=True)
class BallotStyle:
    id: str
    precincts: tuple[str, ...]
    contests: tuple[str, ...]
    party: str | None = None


@dataclass(frozen=True)
class Election:
    title: str
    date: str
    type: ElectionType
    jurisdiction: str
    parties: tuple[Party, ...]
    contests: tuple[Contest, ...]
    precincts: tuple[Precinct, ...]
    ballot_styles: tuple[BallotStyle, ...]
    straight_party: bool = False
    target_shape: TargetShape = "oval"
    paper_size: PaperSize = "letter"
    thresholds: Thresholds = field(default_factory=Thresholds)
    adjudication: Adjudication = field(default_factory=Adjudication)
    #: sha256 hex of the canonical form; set by the loader.
    hash: str = ""

    # -- look-ups ---------------------------------------------------------
    def contest(self, contest_id: str) -> Contest:
        for c in self.contests:
            if c.id == contest_id:
                return c
        if contest_id == STRAIGHT_PARTY_CONTEST_ID and self.straight_party:
            return self.straight_party_contest
        raise KeyError(contest_id)

    def party(self, party_id: str) -> Party:
        for p in self.parties:
            if p.id == party_id:
                return p
        raise KeyError(party_id)

    def style(self, style_id: str) -> BallotStyle:
        for s in self.ballot_styles:
            if s.id == style_id:
                return s
        raise KeyError(style_id)

    def precinct(self, precinct_id: str) -> Precinct:
        for p in self.precincts:
            if p.id == precinct_id:
                return p
        raise KeyError(precinct_id)

    @cached_property
    def straight_party_contest(self) -> Contest:
        """The straight-party option as a vote-for-1 pseudo-contest of parties.

        Only parties with at least one candidate on some ballot are offered.
        It is not a contest in the tallies; the rules use it under 31 KAR 6:030 Section 5.
        Built once an election (it is frozen), so every sheet's rules see the same contest and its options.
        """
        used = {c.party for k in self.contests for c in k.candidates if c.party}
        cands = tuple(Candidate(p.id, p.name, p.id) for p in self.parties if p.id in used)
        return Contest(
            STRAIGHT_PARTY_CONTEST_ID, "candidate", "Straight Party", vote_for=1, candidates=cands, partisan=False
        )

    def style_contests(self, style_id: str) -> tuple[Contest, ...]:
        """Contests on a style's ballot in ballot order, the straight-party option first when offered.

        Looked up once a style (the election is frozen): the rules ask for every sheet.
        """
        known = self._style_contests
        if style_id not in known:
            known[style_id] = self._find_style_contests(style_id)
        return known[style_id]

    @cached_property
    def _style_contests(self) -> dict[str, tuple[Contest, ...]]:
        return {}

    def _find_style_contests(self, style_id: str) -> tuple[Contest, ...]:
        style = self.style(style_id)
        contests = tuple(self.contest(cid) for cid in style.contests)
        if self.straight_party:
            contests = (self.straight_party_contest,) + contests
        return contests

    @property
    def hash_prefix(self) -> str:
        """The first 12 hex digits of the hash, printed in every style code."""
        return self.hash[:12]


def election_hash(document: dict) -> str:
    """sha256 of the canonical form of a normalised election document."""
    return hashlib.sha256(canonical_json(document)).hexdigest()
