"""Tallies and reports: results, Kentucky's unofficial results and zero-file, NIST results and CVRs, RLA exports.

Every report is a pure function of the election and the `BallotRecord` of
each sheet (or of a `Tally` built from them); nothing here reads the store.
"""

from ..core.errors import ReportError
from ..core.records import BallotRecord
from ..core.vote_types import ABSENTEE_VOTE_TYPES, REPORTED_VOTE_TYPES, VOTE_TYPE_LABELS
from .kentucky import (
    unofficial_display,
    unofficial_results,
    unofficial_results_csv,
    write_in_threshold_met,
    zero_file,
    zero_file_csv,
)
from .nist_cvr import cast_vote_record_report, write_cast_vote_record_report
from .nist_cvr_sheet import cast_vote_record
from .nist_results import NIST_COUNT_ITEM_TYPES, election_results_report
from .results import results_csv, results_json, results_table
from .rla import (
    ARLO_CONTAINERS,
    ARLO_COUNTING_GROUPS,
    MANIFEST_COLUMNS,
    SetAsideSheet,
    arlo_ballot_manifest_csv,
    awaiting_review,
    dominion_cvr_csv,
)
from .tally import BallotCounts, ContestCounts, ContestTally, Tally, WriteInCounts, tally_records

__all__ = [
    "ABSENTEE_VOTE_TYPES",
    "ARLO_CONTAINERS",
    "ARLO_COUNTING_GROUPS",
    "MANIFEST_COLUMNS",
    "NIST_COUNT_ITEM_TYPES",
    "REPORTED_VOTE_TYPES",
    "VOTE_TYPE_LABELS",
    "BallotCounts",
    "BallotRecord",
    "ContestCounts",
    "ContestTally",
    "ReportError",
    "SetAsideSheet",
    "Tally",
    "WriteInCounts",
    "awaiting_review",
    "arlo_ballot_manifest_csv",
    "cast_vote_record",
    "cast_vote_record_report",
    "dominion_cvr_csv",
    "election_results_report",
    "results_csv",
    "results_json",
    "results_table",
    "tally_records",
    "unofficial_display",
    "unofficial_results",
    "unofficial_results_csv",
    "write_cast_vote_record_report",
    "write_in_threshold_met",
    "zero_file",
    "zero_file_csv",
]
