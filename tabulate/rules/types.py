"""What the rules read (marks) and what they produce (votes): kept here for older imports.

The types live in the bottom layer, `tabulate.core`; import them from
`tabulate.rules` or `tabulate.core`.
"""

from ..core.marks import MARK_CLASSES, BallotMarks, MarkClass, OptionMark
from ..core.votes import AdjudicationReason, BallotVotes, ContestStatus, ContestVotes

__all__ = [
    "MARK_CLASSES",
    "AdjudicationReason",
    "BallotMarks",
    "BallotVotes",
    "ContestStatus",
    "ContestVotes",
    "MarkClass",
    "OptionMark",
]
