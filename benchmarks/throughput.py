"""Central-count throughput: ``tabulate scan`` (store included) beside decoding alone, and memory over a long batch.

    python benchmarks/throughput.py                       # 400 sheets, JPEG and G4, every core
    python benchmarks/throughput.py --sheets 2000 --workers 2
    python benchmarks/throughput.py --memory 5000 50000   # peak RSS at two batch sizes (G4)

For each format it simulates a few sheets (200 DPI duplex: grayscale JPEG,
or bitonal CCITT G4 TIFF), copies them into a batch of ``--sheets`` distinct
sheets (bytes appended after the image data change each file's SHA-256 but
not its pixels, so the store sees new sheets and the reader the same
ballots), then times, on the same files in the same run:

* **decode-only**: the scan's work minus reading -- load, SHA-256 and decode
  every page with the reader's own decoder (`tabulate.detect.decode`) -- in a
  pool started exactly as the scan's, one sheet per task, returning a digest;
* **pipeline + store, decode only**: the scan pipeline and the store with a
  reader that only decodes (and returns one real sheet's reading): our own
  overhead, whatever the reader costs;
* **tabulate scan**: the real command into a new store, from the moment the
  batch starts (as its summary reports) and end to end (process start to exit).

Each runs in a process of its own, on n sheets, ``--rounds`` times in turn
(decode-only, pipeline, scan; decode-only, ...). The steady-state cost per
sheet is taken *inside* each run: every 0.1 s the CPU time of the whole
process tree is sampled beside the sheets done so far (committed to the store,
or results received by decode-only), and the cost is the CPU (and wall time)
spent between the first count past 10 % of the batch and the last before
90 %, divided by the sheets done between them (`steady`), so process start,
imports, the readers' warm-up and the last sheets' tail are not in it.
(Until the seventh session it was the difference between a run of n/4 and a
run of n sheets: two runs' start-ups, which on a shared machine differ by
more than 300 sheets' reading, once giving "pipeline" half of "decode-only".)
The ratio is against the same round's decode-only (goal <= 1.25).
``--memory`` runs batches of the given sizes and samples the resident memory
of the scan process and of its whole process tree (goal: flat as the batch
grows).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ELECTION = REPO / "samples" / "general" / "election.json"
FORMATS = {"jpeg": ("jpg", 0.0), "g4": ("tif", 1.0)}
BASE_SHEETS = 16


def make_base(fmt: str, out: Path) -> Path:
    """Simulate BASE_SHEETS sheets of one format (seeded)."""
    from tabulate.ballots.samples import write_samples
    from tabulate.election import load_election

    folder = out / f"base-{fmt}"
    if folder.is_dir():
        return folder
    _, bitonal = FORMATS[fmt]
    write_samples(
        load_election(ELECTION),
        folder,
        BASE_SHEETS,
        seed=5,
        fmt="jpeg",
        bitonal_fraction=bitonal,
        jobs=os.cpu_count() or 1,
    )
    (folder / "truth.json").unlink()
    return folder


def make_batch(base: Path, fmt: str, n: int, out: Path) -> Path:
    """``n`` distinct sheets copied from the base set (a unique trailer after each image's data)."""
    ext, _ = FORMATS[fmt]
    folder = out / f"batch-{fmt}-{n}"
    if folder.is_dir():
        return folder
    folder.mkdir()
    sources = {
        (k, side): (base / f"sheet-{k:05d}-{side}.{ext}").read_bytes()
        for k in range(1, BASE_SHEETS + 1)
        for side in ("front", "back")
    }
    for i in range(n):
        k = i % BASE_SHEETS + 1
        for side in ("front", "back"):
            (folder / f"sheet-{i + 1:05d}-{side}.{ext}").write_bytes(sources[(k, side)] + b"copy%d" % i)
    return folder


def reader_decoder():
    """The decoder the reader uses: `decode_native` (a bitonal page as its decoder's bytes, not converted to
    grey: docs/perf.md, "This round (branch g4direct)") where the tree has it, else `decode_page`."""
    from tabulate.detect import decode

    return getattr(decode, "decode_native", decode.decode_page)


def decode_task(sheet) -> str:
    """The scan's work on one sheet minus reading: load and fingerprint (SHA-256) every page as the
    worker does, decode each page with the reader's decoder, and return a digest (never the pixels:
    shipping 5 MB of pages back to the parent is work the scan does not do)."""
    from tabulate.central.worker import _state, fingerprint
    from tabulate.detect.decode import headers

    decode_page = reader_decoder()

    data, _images, identity, _error = fingerprint(sheet, _state["election"])
    shapes = []
    for d in data:
        for h in headers(d):
            shapes.append(decode_page(d, h).shape)
    return f"{identity[:16]}:{shapes}"


def decode_tasks(sheets) -> list[str]:
    """`decode_task` for a few sheets in one task, as the scan's workers take them (`read_tasks`)."""
    return [decode_task(s) for s in sheets]


def _init_decoder(election_path: str) -> None:
    from tabulate.central.worker import _state, one_thread_per_worker
    from tabulate.election import load_election

    one_thread_per_worker()  # as the scan's workers (`init_worker`)
    from tabulate.central import worker

    if hasattr(worker, "keep_page_buffers"):  # as the scan's workers since the eighth session
        worker.keep_page_buffers()
    _state["election"] = load_election(election_path)


def _done(path: Path | None, n: int) -> None:
    """Tell `measure` how many sheets are done (a tiny file, rewritten after every task)."""
    if path is not None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(str(n))
        os.replace(tmp, path)


def _read_done(path: Path) -> int:
    try:
        return int(path.read_text() or 0)
    except (OSError, ValueError):
        return 0


def decode_only(folder: Path, workers: int, progress: Path | None = None) -> float:
    """Seconds for the scan's work minus reading, in a pool started exactly as the scan's.

    Same start method and preloaded modules as `tabulate.central.pipeline`,
    as many sheets per task as the scan (`TASK_SHEETS`), the same window of 4
    tasks per worker in flight, and each sheet gives a short digest (see
    `decode_task`).
    """
    from collections import deque

    from tabulate.central import pipeline
    from tabulate.central.readers_start import reader_context
    from tabulate.central.sources import ScanPlan

    per_task = getattr(pipeline, "TASK_SHEETS", 1)  # 1 in a tree older than the seventh session
    start = time.monotonic()
    done = 0
    sheets = list(ScanPlan([folder]))
    with ProcessPoolExecutor(
        workers, mp_context=reader_context(), initializer=_init_decoder, initargs=(str(ELECTION),)
    ) as pool:
        window: deque = deque()
        for i in range(0, len(sheets), per_task):
            window.append(pool.submit(decode_tasks, sheets[i : i + per_task]))
            if len(window) >= 4 * workers:
                done += len(window.popleft().result())
                _done(progress, done)
        for f in window:
            done += len(f.result())
            _done(progress, done)
    return time.monotonic() - start


_TEMPLATE: dict = {}


def decode_then_copy(election, pages):
    """An interpreter that decodes every page and returns the first sheet's real interpretation.

    It isolates the pipeline's own cost (fingerprints, the pool, the store with
    realistic evidence and votes) from the reader's: decode + this = what
    `tabulate scan` would cost with a reader that took no time.
    """
    from tabulate.central import interpret_sheet
    from tabulate.detect.decode import headers

    decode_page = reader_decoder()

    if "result" not in _TEMPLATE:
        _TEMPLATE["result"] = interpret_sheet(election, pages)
    for data in pages:
        for h in headers(data):
            decode_page(data, h)
    return _TEMPLATE["result"]


def pipeline_decode_only(folder: Path, db: Path, workers: int) -> float:
    """Seconds for the scan pipeline and store (in this process) with `decode_then_copy` as the reader."""
    import json

    from tabulate.central import ScanPlan, run_batch
    from tabulate.election import load_election
    from tabulate.store import open_store

    election = load_election(ELECTION)
    store = open_store(db)
    try:
        store.bind_election(election, json.loads(ELECTION.read_text()))
        batch = store.open_batch(folder.name, "election_day")
        return run_batch(
            store, election, batch, ScanPlan([folder]), workers=workers, interpreter=decode_then_copy
        ).seconds
    finally:
        store.close()


_TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used so far, from /proc; 0.0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK


def _session(root: int) -> dict[int, tuple[int, float]]:
    """Every process in the session led by ``root``: pid -> (RSS kB, CPU seconds so far), from /proc."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) != root:  # the session: the command was started as its leader
                continue
            with open(f"/proc/{d}/status") as f:
                rss = int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))
        except (OSError, AttributeError, IndexError, ValueError):
            continue
        out[int(d)] = (rss, (int(fields[11]) + int(fields[12])) / _TICK)  # utime + stime
    return out


def _committed(db: Path | None) -> int:
    if db is None or not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1) as c:
            return c.execute("SELECT COUNT(*) FROM sheets").fetchone()[0]
    except sqlite3.Error:
        return 0


def measure(cmd: list[str], *, db: Path | None = None, sheets: int = 0, done=None) -> dict:
    """Run a command in its own session: wall seconds, CPU seconds and peak memory of its process tree.

    CPU and memory are sampled from /proc every 0.1 s (the pool's workers are
    children of a forkserver, out of reach of ``getrusage``); a process's last
    fraction of a sample interval is missed. With ``done`` (a function giving
    the sheets done so far), each sample's (sheets done, CPU s, wall s) goes
    into ``trace`` for `steady`.
    """
    trace: list[tuple[int, float, float]] = []
    peak = {"own": 0, "total": 0, "own_early": 0}
    cpu: dict[int, float] = {}
    start = time.monotonic()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=REPO
    )

    def sample():
        while proc.poll() is None:
            procs = _session(proc.pid)
            peak["own"] = max(peak["own"], procs.get(proc.pid, (0, 0))[0])
            peak["total"] = max(peak["total"], sum(r for r, _ in procs.values()))
            for pid, (_, seconds) in procs.items():
                cpu[pid] = max(cpu.get(pid, 0.0), seconds)
            if done is not None:
                trace.append((done(), sum(cpu.values()), time.monotonic() - start))
            if sheets and not peak["own_early"] and _committed(db) >= sheets // 10:
                peak["own_early"] = peak["own"]  # the scan's peak when a tenth of the batch was in
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    wall = time.monotonic() - start
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed ({proc.returncode}): {err.strip()[-800:]}")
    return {
        "wall": wall,
        "cpu": sum(cpu.values()),
        "out": out,
        "rss_own_mb": peak["own"] / 1024,
        "rss_total_mb": peak["total"] / 1024,
        "rss_early_mb": peak["own_early"] / 1024,
        "trace": trace,
    }


def steady(trace: list[tuple[int, float, float]], n: int) -> tuple[float, float]:
    """(CPU ms a sheet, sheets/s) in the steady state, from a run's own progress samples.

    Sheets are counted done in steps (the store commits 64 at a time or every
    0.5 s; decode-only tells every 8): the first sample of each step marks the
    moment it was reached. Between the first step past 10 % of the batch and
    the last before 90 %, exactly the difference in sheets was done, with the
    readers' window full at both ends, so start-up and the tail are left out.
    """
    first: dict[int, tuple[float, float]] = {}
    for d, cpu, wall in trace:
        first.setdefault(d, (cpu, wall))
    steps = sorted(d for d in first if 0.1 * n <= d <= 0.9 * n)
    if len(steps) < 2:
        raise SystemExit(f"too few progress steps in the steady state ({steps}): use more --sheets")
    d1, d2 = steps[0], steps[-1]
    (c1, w1), (c2, w2) = first[d1], first[d2]
    return 1000 * (c2 - c1) / (d2 - d1), (d2 - d1) / max(w2 - w1, 1e-9)


def scan(folder: Path, db: Path, workers: int) -> dict:
    """``tabulate scan`` on the folder: its in-run seconds (from the summary), wall, CPU and memory."""
    res = measure(
        [
            sys.executable,
            "-m",
            "tabulate.cli",
            "scan",
            str(folder),
            "--election",
            str(ELECTION),
            "--db",
            str(db),
            "--batch",
            folder.name,
            "--vote-type",
            "election_day",
            "--workers",
            str(workers),
            "--no-progress",
        ],
        db=db,
        sheets=sum(1 for _ in folder.glob("*-front.*")),
        done=lambda: _committed(db),
    )
    m = re.search(r"sheets read\s+(\d+)\s+in ([\d.]+) s", res["out"])
    res["sheets"], res["seconds"] = int(m.group(1)), float(m.group(2))
    return res


def _helper(mode: str, folder: Path, workers: int, db: Path) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--helper", mode, str(folder), "--workers", str(workers)]
    cmd += ["--db", str(db)]
    if mode == "decode":  # progress in a small file
        db.unlink(missing_ok=True)
        res = measure(cmd, done=lambda: _read_done(db))
    else:
        res = measure(cmd, done=lambda: _committed(db))
    res["seconds"] = float(res["out"].split()[-1])
    return res


def _three(fmt: str, folder: Path, workers: int, work: Path, round_: int) -> list[tuple[str, dict]]:
    tag = f"{folder.name}-{round_}"
    return [
        ("decode-only", _helper("decode", folder, workers, work / f"{tag}-decode.done")),
        ("pipeline + store, decode only", _helper("pipeline", folder, workers, work / f"{tag}-pipeline.db")),
        ("tabulate scan", scan(folder, work / f"{tag}.db", workers)),
    ]


def breakdown(fmt: str, base: Path, work: Path) -> dict[str, float]:
    """CPU ms per sheet of each step, in one process (no pool, no other process in the way)."""
    import json
    import pickle
    from dataclasses import replace

    from tabulate.central import ScanPlan, interpret_sheet
    from tabulate.central.worker import fingerprint, read_sheet_source
    from tabulate.detect.decode import headers
    from tabulate.election import load_election
    from tabulate.store import open_store

    decode_page = reader_decoder()

    election = load_election(ELECTION)
    sheets = list(ScanPlan([base]))
    pages = [[Path(p.path).read_bytes() for p in s.pages] for s in sheets]
    for p in pages:  # warm the reader: numba's cache, each style's layout and template
        interpret_sheet(election, p)

    def cpu_ms(fn, rounds=3) -> float:
        start = time.process_time()
        for _ in range(rounds):
            for i in range(len(sheets)):
                fn(i)
        return 1000 * (time.process_time() - start) / (rounds * len(sheets))

    out = {"decode": cpu_ms(lambda i: [decode_page(d, h) for d in pages[i] for h in headers(d)])}
    out["read + rules (incl. decode)"] = cpu_ms(lambda i: interpret_sheet(election, pages[i]))
    out["file + SHA-256"] = cpu_ms(lambda i: fingerprint(sheets[i], election))
    out["decode-only (file, SHA-256, decode)"] = out["file + SHA-256"] + out["decode"]
    outcomes = [read_sheet_source(election, interpret_sheet, s) for s in sheets]
    out["result to the parent (pickle both ways)"] = cpu_ms(lambda i: pickle.loads(pickle.dumps(outcomes[i])))
    store = open_store(work / f"breakdown-{fmt}.db")
    store.bind_election(election, json.loads(ELECTION.read_text()))
    batch = store.open_batch("breakdown", "election_day")
    start, rounds = time.process_time(), 5
    for r in range(rounds):  # distinct identities each round, as new sheets
        store.record_sheets(
            batch.id,
            [  # new identities and page digests: else every round after the first records duplicates
                replace(
                    o,
                    identity=f"{r:02d}" + o.identity[2:],
                    position=r * 1000 + k + 1,
                    pages=tuple(replace(p, sha256=f"{r:02d}" + p.sha256[2:]) for p in o.pages),
                )
                for k, o in enumerate(outcomes)
            ],
        )
    out["store, in the parent"] = 1000 * (time.process_time() - start) / (rounds * len(outcomes))
    store.close()
    return out


def throughput(fmt: str, n: int, workers: int, work: Path, rounds: int = 2) -> None:
    """``rounds`` rounds of decode-only, pipeline and scan on n sheets; each one's steady state inside its run."""
    base = make_base(fmt, work)
    # A first scan fills numba's on-disk cache, so that no measured run pays for compiling.
    scan(make_batch(base, fmt, 4, work), work / f"warm-{fmt}.db", workers)
    folder = make_batch(base, fmt, n, work)
    print(f"{fmt}: {n} sheets, {workers} workers (steady state: 10-90 % of each run)", flush=True)
    for r in range(rounds):
        runs = _three(fmt, folder, workers, work, r)
        print(f"  round {r + 1} (load {os.getloadavg()[0]:.1f})", flush=True)
        base_ms = base_rate = 0.0
        for i, (label, res) in enumerate(runs):
            cpu_ms, wall_rate = steady(res["trace"], n)
            if i == 0:
                base_ms, base_rate = cpu_ms, wall_rate
            ratio = "" if i == 0 else f"   ratio CPU {cpu_ms / base_ms:4.2f}, wall {base_rate / wall_rate:4.2f}"
            print(
                f"    {label:<30} {cpu_ms:6.1f} CPU ms/sheet ({workers * 1000 / cpu_ms:6.1f} sheets/s on {workers} "
                f"busy cores)   measured {wall_rate:6.1f} sheets/s{ratio}",
                flush=True,
            )
    scan_res = runs[2][1]
    steps = breakdown(fmt, base, work)
    print(f"  CPU ms per sheet, step by step in one process ({BASE_SHEETS} sheets):", flush=True)
    for label, ms in steps.items():
        print(f"    {label:<44} {ms:6.1f}", flush=True)
    ours = steps["file + SHA-256"] + steps["result to the parent (pickle both ways)"] + steps["store, in the parent"]
    total = steps["read + rules (incl. decode)"] + ours
    baseline = steps["decode-only (file, SHA-256, decode)"]
    print(
        f"    => whole pipeline {total:.1f} ms/sheet, ratio to decode-only in one process {total / baseline:.2f}; "
        f"our part (file, SHA-256, pickling, store) {ours:.1f} ms = {ours / steps['decode']:.2f} x decode; "
        f"on {workers} cores at most {workers * 1000 / total:.0f} sheets/s",
        flush=True,
    )
    print(
        f"  {n} sheets end to end (process start to exit) {n / scan_res['wall']:.1f} sheets/s; peak RSS: "
        f"scan process {scan_res['rss_own_mb']:.0f} MB, all processes {scan_res['rss_total_mb']:.0f} MB",
        flush=True,
    )


def memory(sizes: list[int], workers: int, work: Path) -> None:
    base = make_base("g4", work)
    for n in sizes:
        folder = make_batch(base, "g4", n, work)
        res = scan(folder, work / f"memory-{n}.db", workers)
        print(
            f"memory: {n:6d} sheets (G4) {n / res['seconds']:7.1f} sheets/s; peak RSS scan process "
            f"{res['rss_own_mb']:.0f} MB ({res['rss_early_mb']:.0f} MB when a tenth of the batch was in), "
            f"all processes {res['rss_total_mb']:.0f} MB",
            flush=True,
        )
        shutil.rmtree(folder)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=400, help="sheets per format (default 400)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="reader processes (default: every core)")
    ap.add_argument("--formats", default="jpeg,g4", help="comma-separated: jpeg, g4 (default both; '' for none)")
    ap.add_argument("--memory", type=int, nargs="*", metavar="N", help="batch sizes for the memory run (G4)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds of decode-only, pipeline, scan (default 2)")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary folder)")
    ap.add_argument("--helper", nargs=2, metavar=("MODE", "FOLDER"), help=argparse.SUPPRESS)
    ap.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.helper:  # one measurement, in a process of its own (see `measure`)
        mode, folder = args.helper[0], Path(args.helper[1])
        seconds = (
            decode_only(folder, args.workers, args.db)
            if mode == "decode"
            else pipeline_decode_only(folder, args.db, args.workers)
        )
        print(f"seconds {seconds:.4f}")
        return
    work = args.keep or Path(tempfile.mkdtemp(prefix="tabulate-throughput-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"{os.cpu_count()} cores, {args.workers} workers, Python {sys.version.split()[0]}, work folder {work}")
    try:
        for fmt in filter(None, (f.strip() for f in args.formats.split(","))):
            throughput(fmt, args.sheets, args.workers, work, args.rounds)
        if args.memory:
            memory(args.memory, args.workers, work)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
