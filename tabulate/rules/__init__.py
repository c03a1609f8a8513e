"""31 KAR 6:030 (and the FWAB exceptions of 31 KAR 5:011): a ballot's marks to its votes, and why a person must look.

``apply_rules(election, marks)`` turns one ballot's target classes into votes
per contest; ``resolve_write_in`` proposes whose vote a written name is;
``parse_marks``/``marks_to_dict`` read and write marks in the JSON format of
docs/marks.md. The rules read no images.
"""

from ..core.marks import MARK_CLASSES, BallotMarks, MarkClass, OptionMark
from ..core.votes import AdjudicationReason, BallotVotes, ContestStatus, ContestVotes, votes_to_dict
from ._apply import MarksError, apply_rules
from ._marks_io import marks_to_dict, parse_marks
from ._named import NamedVotes, NamedWriteIn, apply_write_in_names
from ._write_in import resolve_write_in
from ._write_in_decision import WriteInDecision
from .clauses import CLAUSE_TEXT, cite
from .clauses import STRAIGHT_PARTY as STRAIGHT_PARTY_CLAUSE

__all__ = [
    "CLAUSE_TEXT",
    "MARK_CLASSES",
    "STRAIGHT_PARTY_CLAUSE",
    "AdjudicationReason",
    "BallotMarks",
    "BallotVotes",
    "ContestStatus",
    "ContestVotes",
    "MarkClass",
    "MarksError",
    "NamedVotes",
    "NamedWriteIn",
    "OptionMark",
    "WriteInDecision",
    "apply_rules",
    "apply_write_in_names",
    "marks_to_dict",
    "parse_marks",
    "resolve_write_in",
    "votes_to_dict",
    "cite",
]
