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
    is_postgres_url,
    sheet_identity,
)


def open_store(location: str | Path, *, create: bool = True) -> Store:
    """Open the store at ``location``: a SQLite file path, or ``postgresql://user@host/dbname``.

    ``create=False`` refuses to create a new store (for commands that only read).
    """
    text = str(location)
    if is_postgres_url(text):
        from .postgres import open_postgres

        return open_postgres(text, create=create)
    if "://" in text:
        raise StoreError(f"{text}: a store is a SQLite file or a postgresql:// URL")
    from .sqlite import open_sqlite

    return open_sqlite(location, create=create)


__all__ = [
    "DUPLICATE_SHEET",
    "LIVE_STATUSES",
    "PAGE_ALREADY_SCANNED",
    "SHEET_STATUSES",
    "Batch",
    "BatchCounts",
    "BatchMismatchError",
    "ElectionMismatchError",
    "Event",
    "PageImage",
    "Recorded",
    "SheetOutcome",
    "SheetReason",
    "Store",
    "StoreError",
    "StoredSheet",
    "is_postgres_url",
    "open_store",
    "sheet_identity",
]
