"""Every CPU ms of `tabulate scan`, split by process and by stage (docs/perf.md, branch scanpath).

    python benchmarks/scan_split.py --sheets 400 --workers 2            # JPEG and G4
    python benchmarks/scan_split.py --sheets 200 --formats g4 --work DIR

Runs the scan's own `run_batch` in this process, with the real pool of
readers, on throughput.py's batch (``--sheets`` distinct sheets copied from
16 simulated ones), into a new SQLite store, after a 16-sheet warm-up batch
through the same readers (so imports, numba's cache and each style's layout
are paid before the measured batch). It reports CPU ms a sheet of:

* **the parent** (this process): its main thread split by stage -- the
  store's insert, the read-back that builds the journal's facts, the
  journal entry (hashing, signing, its insert), the transaction's commit,
  the occurrence counter, the rest of the loop -- and its other threads
  (the pool's: pickling each task, unpickling each result);
* **the workers** (and the forkserver): their CPU from /proc over the
  measured batch, beside the same steps timed one by one in this process on
  the 16 base sheets (file read, SHA-256, decode, reading after decoding,
  rules and marks, evidence encoding, the result's pickle both ways): what
  the workers spend beyond those steps is the pool's own cost.

Process and thread CPU clocks, so a shared machine slows it less than wall
time; still compare only figures taken in one run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pickle
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import throughput  # noqa: E402

_proc_cpu = throughput.proc_cpu


def _readers_cpu(readers) -> dict[int, float]:
    """CPU seconds so far of each worker process of the pool, and of the forkserver."""
    from multiprocessing import forkserver

    pids = [p.pid for p in (readers._pool._processes or {}).values()]
    server = getattr(forkserver._forkserver, "_forkserver_pid", None)
    if server:
        pids.append(server)
    return {pid: _proc_cpu(pid) for pid in pids}


class Clock:
    """Main-thread CPU per stage, by wrapping functions (a wrapper inside another is not counted twice)."""

    def __init__(self):
        self.ms: dict[str, float] = defaultdict(float)
        self._stack: list[str] = []

    def wrap(self, owner, name: str, label: str, *, instance: bool = True) -> None:
        fn = getattr(owner, name)

        def timed(*args, **kwargs):
            start = time.thread_time()
            self._stack.append(label)
            try:
                return fn(*args, **kwargs)
            finally:
                self._stack.pop()
                spent = time.thread_time() - start
                self.ms[label] += 1e3 * spent
                if self._stack:  # taken out of the caller's own figure
                    self.ms[self._stack[-1]] -= 1e3 * spent

        setattr(owner, name, timed)


_COPY: dict = {}


def copy_reading(election, pages):
    """A reader that reads nothing: the first sheet's real interpretation for every sheet (``--null``).

    What is left of the scan's CPU is the pipeline's own: file, SHA-256, the pool, the store.
    """
    from tabulate.central import interpret_sheet

    if "result" not in _COPY:
        _COPY["result"] = interpret_sheet(election, pages)
    return _COPY["result"]


def parent_split(
    folder: Path, warm: Path, work: Path, workers: int, null: bool = False, task_sheets: int | None = None
) -> tuple[dict[str, float], dict[str, float]]:
    """(parent stages, worker totals) in CPU ms a sheet of the measured batch."""
    from tabulate.central import ScanPlan, pipeline, run_batch
    from tabulate.central.readers import start_readers
    from tabulate.election import load_election
    from tabulate.store import _sqlite_record, open_store

    election = load_election(throughput.ELECTION)
    db = work / f"split-{folder.name}.db"
    for p in work.glob(db.name + "*"):
        p.unlink()
    store = open_store(db)
    store.bind_election(election, json.loads(throughput.ELECTION.read_text()))
    readers = start_readers(election, workers=workers, **({"interpreter": copy_reading} if null else {}))
    try:
        run_batch(store, election, store.open_batch("warm", "election_day"), ScanPlan([warm]), readers=readers)
        clock = Clock()
        clock.wrap(store, "record_sheets", "store: rest of record_sheets (transaction, commit, duplicate checks)")
        clock.wrap(store, "_insert", "store: insert rows")
        clock.wrap(_sqlite_record, "encode_marks", "store: marks compressed (zlib)")
        clock.wrap(store, "_sheet_facts", "store: read-back for the journal's facts")
        clock.wrap(store, "_append_event", "store: journal entry (hash, sign, insert)")
        clock.wrap(pipeline._Occurrences, "next", "occurrence counter")
        sheets = sum(1 for _ in ScanPlan([folder]))
        before = _readers_cpu(readers)
        cpu0, main0 = time.process_time(), time.thread_time()
        per_task = {} if task_sheets is None else {"task_sheets": task_sheets}
        batch = store.open_batch("split", "election_day")
        summary = run_batch(store, election, batch, ScanPlan([folder]), readers=readers, **per_task)
        cpu1, main1 = time.process_time(), time.thread_time()
        after = _readers_cpu(readers)
    finally:
        readers.close()
        store.close()
    assert summary.added == sheets, (summary.added, sheets)
    parent = {k: v / sheets for k, v in sorted(clock.ms.items())}
    main_ms = 1e3 * (main1 - main0) / sheets
    parent["loop: plan, submit, results in order, summary"] = main_ms - sum(parent.values())
    parent["pool threads: tasks pickled, results unpickled"] = 1e3 * ((cpu1 - cpu0) - (main1 - main0)) / sheets
    server = getattr(__import__("multiprocessing.forkserver").forkserver._forkserver, "_forkserver_pid", None)
    workers_ms = {
        "workers": 1e3 * sum(after[p] - before.get(p, 0.0) for p in after if p != server) / sheets,
        "forkserver": 1e3 * (after.get(server, 0.0) - before.get(server, 0.0)) / sheets if server else 0.0,
    }
    return parent, workers_ms


def worker_steps(base: Path, rounds: int) -> dict[str, float]:
    """The worker's steps one by one in this process (CPU ms a sheet, least of ``rounds``)."""
    from tabulate.central import ScanPlan, interpret_sheet
    from tabulate.central.pages import _read_file
    from tabulate.central.worker import read_sheet_source
    from tabulate.detect import read_sheet, sheet_marks
    from tabulate.detect.decode import decode_page, headers
    from tabulate.election import load_election
    from tabulate.rules import apply_rules, marks_to_dict
    from tabulate.store.evidence_reading import encode_reading

    election = load_election(throughput.ELECTION)
    sheets = list(ScanPlan([base]))
    files = [[p.path for p in s.pages] for s in sheets]
    data = [[_read_file(f) for f in fs] for fs in files]
    for d in data:
        interpret_sheet(election, d)  # warm
    readings = [read_sheet(election, list(d)) for d in data]
    marks = [sheet_marks(r) for r in readings]
    outcomes = [read_sheet_source(election, interpret_sheet, s) for s in sheets]
    steps = {
        "file read": lambda i: [_read_file(f) for f in files[i]],
        "SHA-256": lambda i: [hashlib.sha256(d).hexdigest() for d in data[i]],
        "decode": lambda i: [decode_page(d, h) for d in data[i] for h in headers(d)],
        "read (incl. decode)": lambda i: read_sheet(election, list(data[i])),
        "rules + marks JSON": lambda i: json.dumps(marks_to_dict(marks[i])) and apply_rules(election, marks[i]),
        "evidence encoding": lambda i: encode_reading(readings[i], election),
        "result pickled + unpickled": lambda i: pickle.loads(pickle.dumps(outcomes[i])),
        "whole task (read_sheet_source)": lambda i: read_sheet_source(election, interpret_sheet, sheets[i]),
    }
    best = {k: float("inf") for k in steps}
    for _ in range(rounds):
        for label, fn in steps.items():
            start = time.process_time()
            for i in range(len(sheets)):
                fn(i)
            best[label] = min(best[label], 1e3 * (time.process_time() - start) / len(sheets))
    best["reading after decoding"] = best.pop("read (incl. decode)") - best["decode"]
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=400)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--formats", default="jpeg,g4")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the one-process steps (least is kept)")
    ap.add_argument("--null", action="store_true", help="a reader that reads nothing: the pipeline's own cost")
    ap.add_argument("--work", type=Path, help="work folder, kept (default: a temporary one, removed)")
    a = ap.parse_args(argv)
    work = a.work or Path(tempfile.mkdtemp(prefix="tabulate-split-"))
    work.mkdir(parents=True, exist_ok=True)
    for fmt in a.formats.split(","):
        base = throughput.make_base(fmt, work)
        folder = throughput.make_batch(base, fmt, a.sheets, work)
        warm = throughput.make_batch(base, fmt, throughput.BASE_SHEETS, work)
        load = os.getloadavg()[0]
        parent, pool = parent_split(folder, warm, work, a.workers, a.null)
        steps = worker_steps(base, a.rounds)
        print(f"{fmt}: {a.sheets} sheets, {a.workers} workers, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
        print(f"  parent, CPU ms a sheet: {sum(parent.values()):.3f}")
        for k, v in parent.items():
            print(f"    {k:<70} {v:7.3f}")
        print(
            f"  workers (pool, from /proc), CPU ms a sheet: {pool['workers']:.3f}; forkserver {pool['forkserver']:.3f}"
        )
        print(f"  the worker's steps one by one in one process (least of {a.rounds}), CPU ms a sheet:")
        for k, v in steps.items():
            print(f"    {k:<70} {v:7.3f}")
        task = steps["whole task (read_sheet_source)"] + steps["result pickled + unpickled"] / 2
        # One pass under the machine's load against a least-of-N: not the pool's cost (pool_gap.py measures
        # that, the same tasks alone and in the pool, interleaved; docs/perf.md, branch poolgap).
        print(
            f"    {'workers (one pass) - task (least of N) - pickle/2: not the pool alone':<70} "
            f"{pool['workers'] - task:7.3f}"
        )
        total = sum(parent.values()) + pool["workers"] + pool["forkserver"]
        baseline = steps["file read"] + steps["SHA-256"] + steps["decode"]
        print(
            f"  total {total:.2f} CPU ms a sheet; file + SHA-256 + decode {baseline:.2f}; ratio {total / baseline:.2f}"
        )
    if a.work is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
