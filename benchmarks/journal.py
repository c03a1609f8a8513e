"""What sealing every row in the journal costs: recording sheets with and without it, and `verify`.

    python benchmarks/journal.py                 # 4000 sheets, evidence of ~60 kB JSON each
    python benchmarks/journal.py --sheets 20000

Sheets are synthetic (the sample election, one style, votes for every
contest, a reader's evidence of realistic size) and recorded 64 per
transaction, as the scan pipeline does. The baseline replaces the sealing
(`_sheet_facts`) with nothing, so the difference is the journal's cost per
sheet. Then it times ``verify --fast`` (what every report runs first) and
the full ``verify`` (the rules re-applied to every sheet).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
import time
from pathlib import Path

from tabulate.election import load_election
from tabulate.election.load import normalise
from tabulate.rules import BallotMarks, OptionMark, apply_rules, marks_to_dict
from tabulate.store import PageImage, SheetOutcome, open_store, sheet_identity

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "general" / "election.json"
GROUP = 64


def outcomes(election, n: int):
    style = election.ballot_styles[0]
    contests = election.style_contests(style.id)
    marks = {c.id: {c.options[0].id: OptionMark(scan="marked")} for c in contests}
    evidence = json.dumps({"pages": [{"targets": [{"score": 0.123456789, "features": [0.1] * 40}] * 60}] * 2})
    for i in range(n):
        digests = [hashlib.sha256(f"{i}-{side}".encode()).hexdigest() for side in (1, 2)]
        identity = sheet_identity(digests)
        bm = BallotMarks(identity, style.id, marks, precinct_id=style.precincts[0])
        yield SheetOutcome(
            i + 1,
            identity,
            tuple(PageImage(f"img/{i}-{s}.jpg", d) for s, d in zip((1, 2), digests)),
            "counted",
            style_id=style.id,
            precinct_id=style.precincts[0],
            evidence=evidence,
            marks=json.dumps(marks_to_dict(bm)),
            votes=apply_rules(election, bm),
        )


def record_batch(store, election, n: int) -> float:
    """Bind the sample election, open a batch and record ``n`` synthetic sheets; seconds spent recording."""
    store.bind_election(election, normalise(json.loads(SAMPLE.read_text())))
    batch = store.open_batch("bench", "election_day")
    items = list(outcomes(election, n))
    start = time.perf_counter()
    for k in range(0, n, GROUP):
        store.record_sheets(batch.id, items[k : k + GROUP])
    return time.perf_counter() - start


def record(path: Path, n: int, *, seal: bool) -> float:
    election = load_election(SAMPLE)
    store = open_store(path)
    if not seal:
        store._sheet_facts = lambda db, ids: {}
    elapsed = record_batch(store, election, n)
    store.close()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sheets", type=int, default=4000)
    args = parser.parse_args()
    from tabulate.adjudicate.schema import connect
    from tabulate.commands.verify import check

    with tempfile.TemporaryDirectory() as tmp:
        base = record(Path(tmp) / "base.db", args.sheets, seal=False)
        sealed = record(Path(tmp) / "sealed.db", args.sheets, seal=True)
        store, conn = open_store(Path(tmp) / "sealed.db", create=False), connect(Path(tmp) / "sealed.db")
        start = time.perf_counter()
        fast = check(store, conn, fast=True)
        t_fast = time.perf_counter() - start
        start = time.perf_counter()
        full = check(store, conn, fast=False)
        t_full = time.perf_counter() - start
        assert fast.ok and full.ok, (fast.problem, full.problem)
    n = args.sheets
    print(f"{n} sheets, {GROUP} per transaction")
    print(f"record without sealing: {base:6.2f} s  ({1000 * base / n:.2f} ms/sheet)")
    print(
        f"record with sealing:    {sealed:6.2f} s  ({1000 * sealed / n:.2f} ms/sheet, "
        f"+{1000 * (sealed - base) / n:.2f} ms/sheet)"
    )
    print(f"verify --fast:          {t_fast:6.2f} s  ({1000 * t_fast / n:.2f} ms/sheet)")
    print(f"verify (rules too):     {t_full:6.2f} s  ({1000 * t_full / n:.2f} ms/sheet)")


if __name__ == "__main__":
    main()
