"""A scanned sheet's fate as every stage names it: `SheetStatus` and `SheetReason`.

The interpreter (`tabulate.central`) decides them, the store keeps them and
the review queue reads them. DESIGN.md: every sheet scanned is accounted for,
counted or set aside with a reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

SheetStatus = Literal["counted", "needs_review", "rejected", "duplicate"]
#: Every status a recorded sheet can have; the first three come from reading it,
#: ``duplicate`` only from the store.
SHEET_STATUSES: tuple[str, ...] = ("counted", "needs_review", "rejected", "duplicate")
#: Statuses whose votes can reach the results; a sheet repeating one of these is a duplicate.
LIVE_STATUSES: tuple[str, ...] = ("counted", "needs_review")


@dataclass(frozen=True)
class SheetReason:
    """Why a sheet was set aside or needs a person: a machine code and a sentence."""

    code: str
    detail: str = ""
    contest_id: str | None = None
    option_id: str | None = None
