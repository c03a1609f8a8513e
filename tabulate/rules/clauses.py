"""The clauses the rules cite, by name: the public face of `tabulate.rules._clauses`.

Every `ContestVotes.clauses` entry and every `WriteInDecision.clause` is one of
these constants; ``CLAUSE_TEXT`` holds the words of each as published.
"""

from ._clauses import (
    ALREADY_ON_BALLOT,
    CANDIDATE_PLUS_WRITE_IN,
    CLAUSE_TEXT,
    ELIGIBLE_ONLY,
    FIRST_NAME,
    FWAB,
    GOVERNOR_SLATE,
    INITIALS,
    MISSPELLING,
    NICKNAME,
    OTHER_NAME,
    OVERVOTE,
    PRESIDENT_SLATE,
    SCANNER_VOTE,
    SCANNER_WRITE_IN,
    STICKER,
    STRAIGHT_PARTY,
    STRAIGHT_PARTY_NOT_OVERVOTE,
    SURNAME,
    WRITE_IN_VOTE,
)

__all__ = [
    "ALREADY_ON_BALLOT",
    "CANDIDATE_PLUS_WRITE_IN",
    "CLAUSE_TEXT",
    "ELIGIBLE_ONLY",
    "FIRST_NAME",
    "FWAB",
    "GOVERNOR_SLATE",
    "INITIALS",
    "MISSPELLING",
    "NICKNAME",
    "OTHER_NAME",
    "OVERVOTE",
    "PRESIDENT_SLATE",
    "SCANNER_VOTE",
    "SCANNER_WRITE_IN",
    "STICKER",
    "STRAIGHT_PARTY",
    "STRAIGHT_PARTY_NOT_OVERVOTE",
    "SURNAME",
    "WRITE_IN_VOTE",
]
