"""Persistence: the election, batches, sheets, readings, votes and an append-only event log.

`open_store` opens the default backend (one SQLite file); every backend
implements `Store` (see `tabulate.store.base`), and `ballot_records` turns a
store's sheets into the reports' `BallotRecord`.
"""

from __future__ import annotations

from pathlib import Path

from .base import (
    DUPLICATE_SHEET,
    LIVE_STATUSES,
    PAGE_ALREADY_SCANNED,
    SHEET_STATUSES,
    Batch,
    BatchCounts,
    BatchMismatchError,
    ElectionMismatchError,
    Event,
    PageImage,
    Recorded,
    SheetOutcome,
    SheetReason,
    Store,
    StoredSheet,
    StoreError,
    sheet_identity,
)


def open_store(location: str | Path, *, create: bool = True) -> Store:
    """Open the store at ``location`` (a SQLite file path).

    ``create=False`` refuses to create a new store (for commands that only read).
    """
    text = str(location)
    if "://" in text:
        raise StoreError(f"{text}: only SQLite files are supported as stores so far")
    from .sqlite import open_sqlite

    return open_sqlite(location, create=create)


__all__ = [
    "DUPLICATE_SHEET", "LIVE_STATUSES", "PAGE_ALREADY_SCANNED", "SHEET_STATUSES", "Batch", "BatchCounts",
    "BatchMismatchError", "ElectionMismatchError", "Event", "PageImage", "Recorded", "SheetOutcome",
    "SheetReason", "Store", "StoreError", "StoredSheet", "open_store", "sheet_identity",
]
