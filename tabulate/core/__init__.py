"""The bottom layer: the types every stage passes to the next, and the helpers all of them share.

Marks (`OptionMark`, `BallotMarks`), votes (`ContestVotes`, `BallotVotes`,
`AdjudicationReason`) and their one dict converter, the ballot record the
reports read (`BallotRecord`), a sheet's status and reasons, the vote types,
canonical JSON, the hash-chain helpers and the common error base
`TabulateError`. This package imports nothing else of ours, and everything
may import it (docs/architecture.md).
"""

from .canonical import canonical_json, canonical_text
from .chain import GENESIS, body_hash, link_hash
from .errors import ReportError, TabulateError
from .marks import MARK_CLASSES, BallotMarks, MarkClass, OptionMark
from .pagebytes import PageBytes, page_sha256
from .records import RECORD_STATUSES, BallotRecord, RecordStatus
from .sheets import LIVE_STATUSES, SHEET_STATUSES, SheetReason, SheetStatus
from .vote_types import ABSENTEE_VOTE_TYPES, REPORTED_VOTE_TYPES, VOTE_TYPE_LABELS, VOTE_TYPES
from .votes import (
    AdjudicationReason,
    BallotVotes,
    ContestStatus,
    ContestVotes,
    contest_votes_from_dict,
    contest_votes_to_dict,
    votes_from_dict,
    votes_to_dict,
)

__all__ = [
    "ABSENTEE_VOTE_TYPES",
    "GENESIS",
    "LIVE_STATUSES",
    "MARK_CLASSES",
    "RECORD_STATUSES",
    "REPORTED_VOTE_TYPES",
    "SHEET_STATUSES",
    "VOTE_TYPES",
    "VOTE_TYPE_LABELS",
    "AdjudicationReason",
    "BallotMarks",
    "BallotRecord",
    "BallotVotes",
    "ContestStatus",
    "ContestVotes",
    "MarkClass",
    "OptionMark",
    "PageBytes",
    "RecordStatus",
    "ReportError",
    "SheetReason",
    "SheetStatus",
    "TabulateError",
    "body_hash",
    "canonical_json",
    "canonical_text",
    "contest_votes_from_dict",
    "contest_votes_to_dict",
    "link_hash",
    "page_sha256",
    "votes_from_dict",
    "votes_to_dict",
]
