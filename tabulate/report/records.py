"""What every report reads: one `BallotRecord` per counted sheet, kept here for older imports.

The record lives in the bottom layer (`tabulate.core.records`) so that the
store can build records without importing the reports.
"""

from ..core.errors import ReportError
from ..core.records import RECORD_STATUSES, BallotRecord, RecordStatus
from ..core.vote_types import ABSENTEE_VOTE_TYPES, REPORTED_VOTE_TYPES, VOTE_TYPE_LABELS

__all__ = [
    "ABSENTEE_VOTE_TYPES",
    "RECORD_STATUSES",
    "REPORTED_VOTE_TYPES",
    "VOTE_TYPE_LABELS",
    "BallotRecord",
    "RecordStatus",
    "ReportError",
]
