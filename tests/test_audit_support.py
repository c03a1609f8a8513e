"""Small elections and a simulated county for the test-deck, recanvass and recount tests (holds no tests).

The county is recorded with the fake pages of `test_scan_support` (text files
standing in for images, read by its fake interpreter through the real rules),
so that a race of several hundred ballots -- needed for a margin of 0.25 % --
takes a second. The real reader is exercised by the test-deck tests and by
the recount of the adjudication sample store.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from test_scan_support import ELECTION_PATH, fake_interpreter, write_sheet

from tabulate.election import load_election
from tabulate.store import PageImage, SheetOutcome, open_store, sheet_identity

#: The offices of the sample general election's races (KRS 120.157(1) names all but the President).
OFFICES = {
    "president": "president",
    "us-senate": "us_senate",
    "us-house-6": "us_house",
    "state-senate-7": "state_senate",
    "state-rep-56": "state_representative",
    "state-rep-57": "state_representative",
}


def general_document() -> dict:
    """The sample general election with each race's ``office`` set."""
    doc = json.loads(ELECTION_PATH.read_text(encoding="utf-8"))
    for c in doc["contests"]:
        if c["id"] in OFFICES:
            c["office"] = OFFICES[c["id"]]
    return doc


def small_document(*, straight_party: bool = True, school_board: bool = True) -> dict:
    """One style: U.S. House (write-in line), optionally a vote-for-2 school board, and a question."""
    doc = general_document()
    keep = ["us-house-6"] + (["school-board-1"] if school_board else []) + ["amendment-1"]
    doc["contests"] = [c for c in doc["contests"] if c["id"] in keep]
    doc["precincts"] = [p for p in doc["precincts"] if p["id"] in ("A101", "A102")]
    doc["ballot_styles"] = [{"id": "1", "precincts": ["A101", "A102"], "contests": keep}]
    doc["straight_party"] = straight_party
    return doc


def write_election(path: Path, doc: dict):
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return load_election(path)


def _outcome(folder: Path, election, position: int, marks: dict, precinct: str, *, damaged: bool = False):
    front, back = write_sheet(folder, f"sheet-{position:05d}", election, marks, precinct=precinct, salt=position)
    if damaged:  # a torn sheet the scanner cannot read: not an image at all
        front.write_bytes(b"torn " + str(position).encode())
    data = [front.read_bytes(), back.read_bytes()]
    pages = tuple(PageImage(str(p), hashlib.sha256(d).hexdigest()) for p, d in zip((front, back), data))
    it = fake_interpreter(election, data)
    return SheetOutcome(
        position,
        sheet_identity(p.sha256 for p in pages),
        pages,
        it.status,
        0,
        it.reasons,
        it.style_id,
        it.precinct_id,
        it.evidence,
        it.marks,
        it.votes,
    )


def county(
    root: Path,
    *,
    barr: int,
    king: int,
    overvotes: int = 0,
    damaged: int = 0,
    tabulators: tuple[str, ...] = ("1", "2"),
    db: Path | str | None = None,
):
    """A store of the general election with a U.S. House race of ``barr`` to ``king`` votes.

    Sheets alternate between precincts A101 and A102 and between the
    tabulators; ``overvotes`` sheets mark both candidates, ``damaged`` sheets
    do not read at all. ``db`` is where (a PostgreSQL URL, say; ``root/county.db`` if None).
    Returns (election, document, store path).
    """
    doc = general_document()
    election = write_election(root / "election.json", doc)
    db = root / "county.db" if db is None else db
    store = open_store(db)
    store.bind_election(election, doc)
    plan = ["house-barr"] * barr + ["house-king"] * king + ["over"] * overvotes + ["damaged"] * damaged
    batches = {t: store.open_batch(f"tub-{t}", "election_day", tabulator=t) for t in tabulators}
    outcomes: dict[str, list] = {t: [] for t in tabulators}
    for i, what in enumerate(plan):
        t = tabulators[i % len(tabulators)]
        marks = {
            "us-house-6": ["house-barr", "house-king"] if what == "over" else ([] if what == "damaged" else [what])
        }
        folder = root / f"tub-{t}"
        folder.mkdir(exist_ok=True)
        outcomes[t].append(
            _outcome(folder, election, len(outcomes[t]) + 1, marks, ("A101", "A102")[i % 2], damaged=what == "damaged")
        )
    for t, batch in batches.items():
        store.record_sheets(batch.id, outcomes[t])
        store.close_batch(batch.id)
    store.close()
    return election, doc, db
