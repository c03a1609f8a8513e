"""Shared fixtures for the hand-to-eye audit tests (imported by tests/test_audit_handeye_*.py).

`truth_store` is a store of the shipped sample scans (samples/general/scans,
18 sheets) whose readings are written from the simulator's truth, as a perfect
reader would report them: the scanner reading (31 KAR 6:030 §2(1)) and the
hand-count reading (§3(1)) of every target. No image is read, so it is fast;
tests/test_audit_handeye_reader.py runs the real reader.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from tabulate.audit.handeye.simulated import _truth_outcome, simulated_hand_tally
from tabulate.election import load_election
from tabulate.store import PageImage, open_store, sheet_identity

ROOT = Path(__file__).resolve().parents[1]
ELECTION = ROOT / "samples" / "general" / "election.json"
TRUTH = ROOT / "samples" / "general" / "scans" / "truth.json"


def truth_sheets() -> list[dict]:
    return json.loads(TRUTH.read_text(encoding="utf-8"))["sheets"]


def build_truth_store(db: Path, *, tabulator: str = "1", batch: str = "election-day-1") -> dict[str, dict]:
    """Record the shipped sample's sheets from their truth; return the truth by ballot id."""
    election = load_election(ELECTION)
    store = open_store(db)
    store.bind_election(election, json.loads(ELECTION.read_text(encoding="utf-8")))
    b = store.open_batch(batch, "election_day", operator="test", tabulator=tabulator)
    outcomes, by_id = [], {}
    for truth in truth_sheets():
        digests = [hashlib.sha256(f"{batch}/{truth['sheet']}/{side}".encode()).hexdigest() for side in (1, 2)]
        pages = tuple(PageImage(f"sheet-{truth['sheet']:05d}-{s}.png", d) for s, d in zip(("front", "back"), digests))
        identity = sheet_identity(digests)
        outcomes.append(_truth_outcome(election, truth["sheet"], truth, identity, pages))
        by_id[identity] = truth
    store.record_sheets(b.id, outcomes)
    store.close_batch(b.id)
    store.close()
    return by_id


@pytest.fixture(scope="session")
def truth_template(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("handeye-template") / "store.db"
    build_truth_store(db)
    return db


@pytest.fixture
def truth_store(truth_template, tmp_path) -> Path:
    """A fresh copy of the truth store for one test."""
    db = tmp_path / "store.db"
    shutil.copy(truth_template, db)
    return db


def hand_tally(contest_id: str) -> dict[str, int]:
    """What two careful poll workers count for ``contest_id`` on the shipped sample's paper."""
    return simulated_hand_tally(load_election(ELECTION), truth_sheets(), contest_id)


def counts_csv(counts: dict[str, int]) -> str:
    return "option,votes\n" + "".join(f"{k},{v}\n" for k, v in counts.items())
