"""The election: its definition (``election.json``), validation, identity hash and ballot layout."""

from .load import ElectionError, Problem, load_election, parse_election
from .model import (
    ADJUDICATION_REASONS,
    OFFICES,
    PAPER_SIZES_IN,
    STRAIGHT_PARTY_CONTEST_ID,
    VOTE_TYPES,
    BallotStyle,
    Candidate,
    Contest,
    ContestOption,
    DeclaredWriteIn,
    Election,
    Party,
    Precinct,
    Thresholds,
)

__all__ = [
    "ADJUDICATION_REASONS",
    "OFFICES",
    "PAPER_SIZES_IN",
    "STRAIGHT_PARTY_CONTEST_ID",
    "VOTE_TYPES",
    "BallotStyle",
    "Candidate",
    "Contest",
    "ContestOption",
    "DeclaredWriteIn",
    "Election",
    "ElectionError",
    "Party",
    "Precinct",
    "Problem",
    "Thresholds",
    "load_election",
    "parse_election",
]
