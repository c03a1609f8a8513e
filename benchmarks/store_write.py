"""The parent's store cost a sheet (record, seal in the journal), variants interleaved in one process.

    python benchmarks/store_write.py --sheets 400 --rounds 6

Reads throughput.py's 16 base G4 sheets once (the real reader), then records
them ``--sheets`` times over (distinct identities, as new sheets) into fresh
SQLite stores, 64 sheets a transaction as `tabulate scan` commits them,
alternating the variants named in ``VARIANTS`` round by round, and prints the
least thread CPU ms a sheet of each, and of that the read-back that builds the
journal's facts (docs/perf.md, branch scanpath).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import throughput  # noqa: E402

from tabulate.store import _codec, _sqlite_read, _sqlite_record  # noqa: E402


def _plain_ids_text(ids):
    return _codec.dumps(list(ids))


def _plain_text_ids(text):
    return tuple(json.loads(text))


def _use(write: bool, read: bool) -> None:
    """The vote rows' JSON lists encoded (write) and decoded (read back) through a cache, or each time."""
    _sqlite_record.ids_text = _codec.ids_text if write else _plain_ids_text
    _sqlite_read.text_ids = _codec.text_ids if read else _plain_text_ids


#: label -> what to switch on before a round.
VARIANTS = {
    "JSON lists each time (before)": lambda: _use(False, False),
    "cached when written": lambda: _use(True, False),
    "cached when read back": lambda: _use(False, True),
    "cached both ways (after)": lambda: _use(True, True),
}


def outcomes(work: Path, fmt: str):
    from tabulate.central import ScanPlan, interpret_sheet
    from tabulate.central.worker import read_sheet_source
    from tabulate.election import load_election

    election = load_election(throughput.ELECTION)
    base = throughput.make_base(fmt, work)
    return election, [read_sheet_source(election, interpret_sheet, s) for s in ScanPlan([base])]


def _distinct(o, k: int):
    """Outcome ``o`` as the k-th new sheet: its identity and its pages' digests made unique (else a duplicate)."""
    pages = tuple(replace(p, sha256=f"{k:08x}" + p.sha256[8:]) for p in o.pages)
    return replace(o, identity=f"{k:08x}" + o.identity[8:], position=k + 1, pages=pages)


def record(work: Path, election, base, n: int, tag: str) -> tuple[float, float]:
    from tabulate.store import open_store

    db = work / f"store-{tag}.db"
    for p in work.glob(db.name + "*"):
        p.unlink()
    store = open_store(db)
    store.bind_election(election, json.loads(throughput.ELECTION.read_text()))
    batch = store.open_batch("b", "election_day")
    sheets = [_distinct(base[k % len(base)], k) for k in range(n)]
    facts, real = [0.0], store._sheet_facts

    def timed(db, ids):
        t = time.thread_time()
        try:
            return real(db, ids)
        finally:
            facts[0] += time.thread_time() - t

    store._sheet_facts = timed
    start = time.thread_time()
    for i in range(0, n, 64):
        store.record_sheets(batch.id, sheets[i : i + 64])
    spent = time.thread_time() - start
    counts = store.batch_counts()[0]
    store.close()
    assert counts.duplicate == 0 and counts.counted + counts.needs_review + counts.rejected == n, counts
    return 1e3 * spent / n, 1e3 * facts[0] / n


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--format", default="g4")
    a = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="tabulate-store-write-"))
    try:
        election, base = outcomes(work, a.format)
        best = {k: (float("inf"), 0.0) for k in VARIANTS}
        for r in range(a.rounds):
            for label, switch in VARIANTS.items():
                switch()
                best[label] = min(best[label], record(work, election, base, a.sheets, f"{r}"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{a.format}, {a.sheets} sheets, least of {a.rounds} rounds, load {os.getloadavg()[0]:.1f}:")
    for label, (ms, facts) in best.items():
        print(f"  {label:<40} record_sheets {ms:.3f} CPU ms a sheet, of which the read-back for the facts {facts:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
