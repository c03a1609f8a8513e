"""What resuming a batch costs: half of it recorded, then the whole folder again (docs/perf.md, branch poolgap).

    python benchmarks/resume.py --sheets 400 --workers 2 --rounds 2

For each format, ``--sheets`` distinct sheets (throughput.py's batch). Half of
their files are linked into a folder and scanned (`run_batch`, the real pool)
into a new SQLite store; then the other half is linked in and the same batch
is run again: the resume, which must skip the recorded half and read the rest.
Then a third run over the whole folder, every sheet recorded. Of the second
and third runs: the parent's CPU, the workers' CPU (from /proc) and the wall
time, per sheet of the folder. Until this round the parent read and hashed
every file of a resumed batch before handing a sheet on, and a worker read and
hashed the unrecorded ones again; now each file is read and hashed once, by a
worker (`worker.read_unless_recorded`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import throughput  # noqa: E402

_cpu = throughput.proc_cpu


def timed_run(store, election, name: str, folder: Path, readers) -> dict:
    from tabulate.central import ScanPlan, run_batch

    pids = [p.pid for p in (readers._pool._processes or {}).values()]
    w0, c0, t0 = sum(_cpu(p) for p in pids), time.process_time(), time.monotonic()
    summary = run_batch(store, election, store.open_batch(name, "election_day"), ScanPlan([folder]), readers=readers)
    t1, c1 = time.monotonic(), time.process_time()
    pids = [p.pid for p in (readers._pool._processes or {}).values()]
    w1 = sum(_cpu(p) for p in pids)
    n = summary.sheets_read
    return {
        "parent": 1e3 * (c1 - c0) / n,
        "workers": 1e3 * (w1 - w0) / n,
        "wall": 1e3 * (t1 - t0) / n,
        "already": summary.already,
        "added": summary.added,
    }


def one_round(fmt: str, full: Path, work: Path, workers: int, tag: str) -> tuple[dict, dict]:
    from tabulate.central.readers import start_readers
    from tabulate.election import load_election
    from tabulate.store import open_store

    election = load_election(throughput.ELECTION)
    folder = work / f"resume-{fmt}-{tag}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    files = sorted(full.iterdir())
    half = len(files) // 2 - (len(files) // 2) % 2  # whole sheets: front and back
    for f in files[:half]:
        os.link(f, folder / f.name)
    db = work / f"resume-{fmt}-{tag}.db"
    for p in work.glob(db.name + "*"):
        p.unlink()
    store = open_store(db)
    store.bind_election(election, json.loads(throughput.ELECTION.read_text()))
    readers = start_readers(election, workers=workers)
    try:
        timed_run(store, election, "warm", throughput.make_batch(full.parent / f"base-{fmt}", fmt, 16, work), readers)
        timed_run(store, election, "B", folder, readers)
        for f in files[half:]:
            os.link(f, folder / f.name)
        resumed = timed_run(store, election, "B", folder, readers)
        again = timed_run(store, election, "B", folder, readers)
    finally:
        readers.close()
        store.close()
    return resumed, again


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--formats", default="jpeg,g4")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--work", type=Path, help="work folder, kept (default: a temporary one, removed)")
    a = ap.parse_args(argv)
    work = a.work or Path(tempfile.mkdtemp(prefix="tabulate-resume-"))
    work.mkdir(parents=True, exist_ok=True)
    for fmt in a.formats.split(","):
        base = throughput.make_base(fmt, work)
        full = throughput.make_batch(base, fmt, a.sheets, work)
        for r in range(a.rounds):
            load = os.getloadavg()[0]
            resumed, again = one_round(fmt, full, work, a.workers, f"{os.getpid()}-{r}")
            for label, x in (("half recorded, resumed", resumed), ("all recorded, run again", again)):
                print(
                    f"{fmt} round {r + 1} (load {load:.1f}) {label:<24}: parent {x['parent']:.2f}, workers "
                    f"{x['workers']:.2f} CPU ms a sheet; wall {x['wall']:.2f} ms a sheet "
                    f"({x['already']} already, {x['added']} added)",
                    flush=True,
                )
    if a.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
