"""Audits around the count: accuracy-test deck (31 KAR 2:020), recanvass (4:071), recount (4:220, KRS 120.157)."""

from .margins import AUTOMATIC_RECOUNT_OFFICES, RaceMargin, race_margin
from .recanvass import Recanvass, last_snapshot, recanvass, record_snapshot
from .recount import BoardDecision, RecountBallot, RecountResult, recount_result, recount_sheets

__all__ = [
    "AUTOMATIC_RECOUNT_OFFICES", "BoardDecision", "RaceMargin", "Recanvass", "RecountBallot", "RecountResult",
    "last_snapshot", "race_margin", "recanvass", "recount_result", "recount_sheets", "record_snapshot",
]
