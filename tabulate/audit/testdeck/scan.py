"""Run the deck through the central count, into a test store of its own.

31 KAR 2:020 Section 5(4): "An accuracy test shall be conducted by processing
each test deck prepared under the direction of the county board of elections
or the Accuracy Board for each voting machine or voting system to be used in
the election." The deck goes through the same pipeline as the election's
ballots (`tabulate.central.run_batch`: decode, register, identify, score,
classify, 31 KAR 6:030), one batch per style, but into a store made for the
test: the election's store never sees a test ballot.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from ...central import ScanPlan, run_batch
from ...election.model import Election
from ...store import open_store
from .check import DeckResult, ReadSheet, compare_style
from .design import TallySheet
from .draw import DeckError

#: The test store's file name inside the check's output folder.
TEST_STORE = "test-store.db"


def scan_deck(
    election: Election,
    document: Mapping,
    deck: str | Path,
    manifest: Mapping,
    out: str | Path,
    *,
    workers: int | None = None,
    progress: bool = False,
) -> DeckResult:
    """Scan every style of the deck into ``out/test-store.db`` (a new store) and compare with its tally sheets."""
    db = Path(out) / TEST_STORE
    if db.exists():
        raise DeckError(f"{db} already exists: each check scans into a new test store (give another --out)")
    db.parent.mkdir(parents=True, exist_ok=True)
    store = open_store(db)
    results = []
    try:
        store.bind_election(election, document)
        for style_id, entry in manifest["styles"].items():
            scans = Path(deck) / entry["folder"] / "scans"
            if not scans.is_dir():
                raise DeckError(f"{scans} not found: the deck's scanned images are missing")
            batch = store.open_batch(
                f"test-deck-style-{style_id}", "election_day", operator="accuracy-test", tabulator="accuracy-test"
            )
            run_batch(store, election, batch, ScanPlan([scans]), workers=workers, progress=progress)
            sheets = [
                ReadSheet(s.label, s.status, s.style_id, s.interpreted, tuple(r.code for r in s.reasons))
                for s in store.sheets(batch_id=batch.id)
            ]
            tally = TallySheet.from_dict(entry["tally_sheet"])
            results.append(compare_style(election, tally, sheets))
    finally:
        store.close()
    return DeckResult(tuple(results))
