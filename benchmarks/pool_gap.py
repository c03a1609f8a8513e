"""Why a sheet costs more CPU in the scan's process pool than alone (docs/perf.md, branch poolgap).

    python benchmarks/pool_gap.py --sheets 400 --rounds 3              # JPEG and G4
    python benchmarks/pool_gap.py --sheets 200 --kinds solo1,scan2 --knobs none,gc_freeze,malloc   # variants alternated

The same batch (throughput.py's: ``--sheets`` distinct sheets copied from 16
simulated ones) is read the same way -- `worker.read_tasks`, the scan's sheets a task,
by reader processes started exactly as the scan's (`start_readers`: the
forkserver, its preload, the layouts) -- in several arrangements, one after
the other, ``--rounds`` times interleaved:

* ``hot 1``: as scan_split timed the worker's steps: in this process, the 16
  base sheets over and over (as many sheets as the batch), files hot in cache;
* ``self 1``: every task of the batch in this process, once each;
* ``solo 1``: one worker reads every task in one call: no IPC, the parent idle;
* ``solo 2``: two workers, each one call with every other task, side by side;
* ``pool 1`` / ``pool 2``: the pool with 1 or 2 workers, a window of 4 tasks a
  worker, every result shipped back and unpickled, nothing stored;
* ``scan 1`` / ``scan 2``: the scan's own `run_batch` into a new SQLite store.

The knob ``tasksN`` reads N sheets a task instead of the scan's (`TASK_SHEETS`: 4, 8 since g4page7):
``--kinds scan2 --knobs none,tasks8,tasks16`` (docs/perf.md, branch g4page7).

For each, the workers' CPU, minor page faults and context switches from
/proc (all of a worker's threads), per sheet, and the parent's CPU. A knob
(``--knobs``) is applied in each worker before its first task: ``gc_freeze``
(`gc.freeze()`), ``malloc`` (glibc keeps freed page buffers instead of
returning them to the kernel: `mallopt`, what `worker.keep_page_buffers` now
does in every reader), ``threads`` (lists each worker's threads and their
CPU). ``--bare`` starts the readers' server as ``tabulate scan`` on the command
line does, before the election is known: that is where the workers paid
page faults for every sheet (docs/perf.md, branch poolgap).
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections import deque
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import throughput  # noqa: E402

_TICK = os.sysconf("SC_CLK_TCK")
_APPLIED: set[str] = set()
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3


def apply_knobs(knobs: tuple[str, ...]) -> None:
    """In a worker, once: the knobs asked for."""
    for knob in knobs:
        if knob in _APPLIED:
            continue
        _APPLIED.add(knob)
        if knob == "gc_freeze":
            gc.freeze()
        elif knob == "malloc":
            libc = ctypes.CDLL("libc.so.6")
            assert libc.mallopt(M_MMAP_THRESHOLD, 32 << 20) == 1  # 32 MB: glibc's most on 64-bit
            assert libc.mallopt(M_TRIM_THRESHOLD, 64 << 20) == 1


def task_size(knobs: tuple[str, ...], default: int) -> int:
    """Sheets a task: the knob ``tasksN`` (``--knobs none,tasks8,tasks16``), else ``default`` (the scan's)."""
    sizes = [int(k[len("tasks") :]) for k in knobs if k.startswith("tasks")]
    return sizes[-1] if sizes else default


def bench_tasks(sheets: list, knobs: tuple[str, ...]) -> list:
    """`worker.read_tasks` after the knobs."""
    from tabulate.central.worker import read_tasks

    apply_knobs(knobs)
    return read_tasks(sheets)


def solo(chunks: list[list], knobs: tuple[str, ...]) -> int:
    """Every task read in this one call, the outcomes pickled as the pool would and dropped."""
    import pickle

    from tabulate.central.worker import read_tasks

    apply_knobs(knobs)
    n = 0
    for chunk in chunks:
        n += len(pickle.dumps(read_tasks(chunk), protocol=pickle.HIGHEST_PROTOCOL))
    return n


def _proc(pid: int) -> tuple[float, int, int]:
    """(CPU s, minor faults, context switches) of process ``pid``, all its threads."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/status") as f:
            status = dict(line.split(":", 1) for line in f if "ctxt" in line)
    except OSError:
        return 0.0, 0, 0
    switches = sum(int(v) for v in status.values())
    return (int(fields[11]) + int(fields[12])) / _TICK, int(fields[7]), switches


def _threads(pid: int) -> list[str]:
    out = []
    for tid in sorted(os.listdir(f"/proc/{pid}/task")):
        with open(f"/proc/{pid}/task/{tid}/stat") as f:
            text = f.read()
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        out.append(f"{name}:{(int(fields[11]) + int(fields[12])) / _TICK:.2f}s")
    return out


def _pids(readers) -> list[int]:
    return [p.pid for p in (readers._pool._processes or {}).values()]


def _snap(pids: list[int]) -> dict[int, tuple[float, int, int]]:
    return {p: _proc(p) for p in pids}


def arrangement(kind: str, n: int, folder: Path, warm: Path, work: Path, knobs: tuple[str, ...]) -> dict:
    """Read ``folder`` in one arrangement; CPU ms, faults and switches a sheet."""
    from tabulate.central import ScanPlan, run_batch
    from tabulate.central.pipeline import TASK_SHEETS
    from tabulate.central.readers import start_readers
    from tabulate.election import load_election
    from tabulate.store import open_store

    election = load_election(throughput.ELECTION)
    sheets = list(ScanPlan([folder]))
    per = task_size(knobs, TASK_SHEETS)
    chunks = [sheets[i : i + per] for i in range(0, len(sheets), per)]
    if kind == "self":
        return in_this_process(election, chunks, warm, len(sheets), knobs)
    if kind == "hot":  # scan_split's way: the 16 base sheets over and over (their files stay in the CPU's cache)
        few = list(ScanPlan([warm]))
        again = [few[i % len(few)] for i in range(len(sheets))]
        chunks = [again[i : i + per] for i in range(0, len(again), per)]
        return in_this_process(election, chunks, warm, len(sheets), knobs)
    readers = start_readers(election, workers=n)
    pool = readers._pool
    store = None
    try:
        # Warm every worker (imports done, each style's layout, the knobs) before measuring.
        warm_chunks = [list(ScanPlan([warm]))] * n
        for f in [pool.submit(solo, [c], knobs) for c in warm_chunks]:
            f.result()
        pids = _pids(readers)
        if kind == "scan":
            db = work / f"gap-{folder.name}.db"
            for p in work.glob(db.name + "*"):
                p.unlink()
            store = open_store(db)
            store.bind_election(election, json.loads(throughput.ELECTION.read_text()))
            readers.submit_many = lambda s: pool.submit(bench_tasks, s, knobs)  # type: ignore[method-assign]
        before, cpu0, wall0 = _snap(pids), time.process_time(), time.monotonic()
        if kind == "solo":
            futures = [pool.submit(solo, chunks[i::n], knobs) for i in range(n)]
            for f in futures:
                f.result()
        elif kind == "pool":
            window: deque = deque()
            for c in chunks:
                window.append(pool.submit(bench_tasks, c, knobs))
                if len(window) >= 4 * n:
                    window.popleft().result()
            for f in window:
                f.result()
        else:
            batch = store.open_batch("gap", "election_day")
            summary = run_batch(store, election, batch, ScanPlan([folder]), readers=readers, task_sheets=per)
            assert summary.added == len(sheets), (summary.added, len(sheets))
        after, cpu1, wall1 = _snap(pids), time.process_time(), time.monotonic()
        threads = {p: _threads(p) for p in pids} if "threads" in knobs else {}
    finally:
        readers.close()
        if store is not None:
            store.close()
    k = len(sheets)
    return {
        "workers": 1e3 * sum(after[p][0] - before[p][0] for p in pids) / k,
        "faults": sum(after[p][1] - before[p][1] for p in pids) / k,
        "switches": sum(after[p][2] - before[p][2] for p in pids) / k,
        "parent": 1e3 * (cpu1 - cpu0) / k,
        "wall": 1e3 * (wall1 - wall0) / k,
        "threads": threads,
    }


def in_this_process(election, chunks: list[list], warm: Path, k: int, knobs: tuple[str, ...]) -> dict:
    """Every task read in this process (as scan_split's one-process steps are), after the same warm-up."""
    import resource

    from tabulate.central import ScanPlan, interpret_sheet
    from tabulate.central.worker import _state, one_thread_per_worker

    one_thread_per_worker()
    _state.update(election=election, interpreter=interpret_sheet)
    solo([list(ScanPlan([warm]))], knobs)
    r0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    solo(chunks, knobs)
    r1, wall1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    switches = (r1.ru_nvcsw + r1.ru_nivcsw) - (r0.ru_nvcsw + r0.ru_nivcsw)
    return {
        "workers": 1e3 * cpu / k,
        "faults": (r1.ru_minflt - r0.ru_minflt) / k,
        "switches": switches / k,
        "parent": 0.0,
        "wall": 1e3 * (wall1 - wall0) / k,
        "threads": {},
    }


KINDS = (("hot", 1), ("self", 1), ("solo", 1), ("solo", 2), ("pool", 1), ("pool", 2), ("scan", 1), ("scan", 2))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=400)
    ap.add_argument("--formats", default="jpeg,g4")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--kinds", default=",".join(f"{k}{n}" for k, n in KINDS), help="e.g. solo1,pool2,scan2")
    ap.add_argument(
        "--knobs",
        default="none",
        help="variants to alternate, each comma-separated knobs joined by '+': e.g. 'none,gc_freeze,malloc' "
        "(knobs: gc_freeze, malloc, threads, tasksN: N sheets a task instead of the scan's TASK_SHEETS)",
    )
    ap.add_argument(
        "--bare",
        action="store_true",
        help="start the readers' forkserver before the election is known, as `tabulate scan` on the command "
        "line does (`readers_start.start_before_parsing`: each worker then loads the layouts from the cache)",
    )
    ap.add_argument("--work", type=Path, help="work folder, kept (default: a temporary one, removed)")
    a = ap.parse_args(argv)
    if a.bare:
        from tabulate.central import layouts_cache
        from tabulate.central.readers_start import start_early
        from tabulate.election import load_election

        start_early(None)
        layouts_cache.ensure(load_election(throughput.ELECTION))
    variants = [tuple(k for k in v.split("+") if k and k != "none") for v in a.knobs.split(",")]
    kinds = [(k[:-1], int(k[-1])) for k in a.kinds.split(",")]
    work = a.work or Path(tempfile.mkdtemp(prefix="tabulate-gap-"))
    work.mkdir(parents=True, exist_ok=True)
    for fmt in a.formats.split(","):
        base = throughput.make_base(fmt, work)
        folder = throughput.make_batch(base, fmt, a.sheets, work)
        warm = throughput.make_batch(base, fmt, throughput.BASE_SHEETS, work)
        runs: dict[tuple, list[dict]] = {(v, f"{k} {n}"): [] for v in variants for k, n in kinds}
        loads = [os.getloadavg()[0]]
        for _ in range(a.rounds):
            for v in variants:
                for k, n in kinds:
                    runs[(v, f"{k} {n}")].append(arrangement(k, n, folder, warm, work, v))
            loads.append(os.getloadavg()[0])
        server = "bare forkserver (as the CLI)" if a.bare else "forkserver offered the election"
        print(f"{fmt}: {a.sheets} sheets, {server}, load {min(loads):.1f}-{max(loads):.1f}", flush=True)
        print(
            f"  {'knobs':12} {'':8} {'workers CPU ms/sheet, each round':>34} {'faults':>7} {'switches':>9} {'parent':>7}"
        )
        for (v, label), rs in runs.items():
            cpu = " ".join(f"{r['workers']:6.2f}" for r in rs)
            print(
                f"  {'+'.join(v) or 'none':12} {label:8} {cpu:>34} {min(r['faults'] for r in rs):7.0f} "
                f"{statistics.median(r['switches'] for r in rs):9.1f} {statistics.median(r['parent'] for r in rs):7.2f}",
                flush=True,
            )
            for pid, names in (rs[-1]["threads"] or {}).items():
                print(f"      worker {pid} threads: {' '.join(names)}")
    if a.work is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
