"""Start-up against the steady state: a cold ``tabulate scan`` of one tub, and tubs through a station already up.

    python benchmarks/station.py                      # 400-sheet tubs, JPEG and G4, every core
    python benchmarks/station.py --sheets 400 --workers 2 --tubs 3

For each format, in one run, on the same simulated sheets (`throughput.py`'s
base sets: 200 DPI duplex, grayscale JPEG or bitonal CCITT G4):

* **steady state**: ``tabulate scan`` of n/4 and of n sheets, each a fresh
  process; (n - n/4) / (the difference of their in-run seconds): start-up
  cancels out;
* **cold, end to end**: the n-sheet ``tabulate scan`` from process start to
  exit (imports, numba's cache, the forkserver's preload, the pool, the store);
* **station already up**: ``tabulate scan --watch ROOT --batch-per-folder
  --settle 0`` started once and warmed by a 16-sheet tub; then ``--tubs``
  tubs of n distinct sheets, each copied into its folder first and timed from
  the moment its done marker is written to the moment the station prints its
  batch's summary (the batch is closed and counted then). That includes the
  station noticing the marker (it looks at the folder every 0.1 s) and listing
  and checking the tub's pages. Three one-sheet tubs first give what a tub
  costs the station besides its sheets (noticing the marker, opening and
  closing the batch, the pool's last sheet): the least on a loaded machine.

Each line gives sheets/s, the percentage of the steady state (the issue's
goal: at least 90 %) and the load average when it was measured (the machine
may be shared).
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from throughput import BASE_SHEETS, ELECTION, FORMATS, REPO, make_base, make_batch, scan

WARM_TUB = 16


def load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def copy_tub(base: Path, fmt: str, n: int, folder: Path, tag: int) -> None:
    """``n`` distinct sheets (a trailer unique to this tub after each image) into ``folder``."""
    ext, _ = FORMATS[fmt]
    folder.mkdir(parents=True)
    for i in range(n):
        k = i % BASE_SHEETS + 1
        for side in ("front", "back"):
            data = (base / f"sheet-{k:05d}-{side}.{ext}").read_bytes()
            (folder / f"sheet-{i + 1:05d}-{side}.{ext}").write_bytes(data + b"tub%d-%d" % (tag, i))


class StationProcess:
    """``tabulate scan --watch ROOT --batch-per-folder`` in a process of its own; each summary line timestamped."""

    def __init__(self, root: Path, db: Path, workers: int):
        # -X faulthandler: a station that does not stop on SIGINT is sent SIGABRT and prints every thread's stack.
        cmd = [sys.executable, "-X", "faulthandler", "-m", "tabulate.cli", "scan", "--watch", str(root)]
        cmd += ["--batch-per-folder"]
        cmd += ["--election", str(ELECTION), "--db", str(db), "--vote-type", "election_day"]
        cmd += ["--workers", str(workers), "--no-progress", "--settle", "0"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO)
        self.lines: queue.Queue = queue.Queue()
        self.errors: list[str] = []  # stderr, drained as it comes: a full pipe would block the station
        threading.Thread(target=self._read, daemon=True).start()
        self._drainer = threading.Thread(target=self._drain, daemon=True)
        self._drainer.start()

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        self.errors.extend(self.proc.stderr)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put((time.monotonic(), line.rstrip("\n")))
        self.lines.put((time.monotonic(), None))

    def summary_of(self, tub: str, timeout: float = 600) -> tuple[float, list[str]]:
        """When the station printed tub's summary, and the summary's lines."""
        stamp, head = None, f"Batch {tub!r}"
        out: list[str] = []
        while True:
            at, line = self.lines.get(timeout=timeout)
            if line is None:
                self.proc.wait()
                self._drainer.join(timeout=10)
                raise SystemExit(f"the station stopped: {''.join(self.errors)[-800:]}")
            if line.startswith(head):
                stamp = at
            if stamp is not None:
                out.append(line)
                if line.startswith("  accounted for"):
                    return stamp, out

    def stop(self) -> None:
        """Ctrl-C, as a clerk stops the station; one that has not stopped 120 s later is made to show its stacks."""
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGABRT)  # faulthandler: every thread's stack on stderr
            self.proc.wait(timeout=60)
            self._drainer.join(timeout=10)  # the last of stderr (its readers hold the pipe until they exit too)
            stacks = "".join(self.errors)[-6000:]
            raise SystemExit(f"the station did not stop on SIGINT; its stacks:\n{stacks}") from None


def station_tubs(base: Path, fmt: str, n: int, tubs: int, workers: int, work: Path) -> list[tuple[float, str]]:
    """Seconds from each tub's done marker to its summary, through one station kept up (with the load then)."""
    root = work / f"station-{fmt}"
    root.mkdir()
    station = StationProcess(root, work / f"station-{fmt}.db", workers)
    try:
        copy_tub(base, fmt, WARM_TUB, root / "tub-00", 0)
        (root / "tub-00" / "batch.done").write_text("")
        station.summary_of("tub-00")  # the readers are up and have read a tub
        fixed = []  # a one-sheet tub: what a tub costs the station besides reading its sheets
        for t in range(1, 4):
            name = f"one-{t}"
            copy_tub(base, fmt, 1, root / name, 100 + t)
            time.sleep(1.0)
            marked = time.monotonic()
            (root / name / "batch.done").write_text("")
            fixed.append(station.summary_of(name)[0] - marked)
        print(
            f"  station up, a one-sheet tub, done marker to summary: {', '.join(f'{x:.2f}' for x in fixed)} s "
            f"(the station looks every 0.1 s)   load {load()}",
            flush=True,
        )
        out = []
        for t in range(1, tubs + 1):
            name = f"tub-{t:02d}"
            copy_tub(base, fmt, n, root / name, t)
            time.sleep(1.0)  # the copy's writes settle; the station only lists the open folder meanwhile
            marked = time.monotonic()
            (root / name / "batch.done").write_text("")
            stamp, lines = station.summary_of(name)
            read = next(x for x in lines if "sheets read" in x)
            if f"{n:6d}" not in read:
                raise SystemExit(f"{name}: expected {n} sheets: {read}")
            out.append((stamp - marked, load()))
        return out
    finally:
        station.stop()


def run(fmt: str, n: int, tubs: int, workers: int, work: Path) -> None:
    base = make_base(fmt, work)
    scan(make_batch(base, fmt, 4, work), work / f"warm-{fmt}.db", workers)  # numba's on-disk cache filled
    small = scan(make_batch(base, fmt, n // 4, work), work / f"small-{fmt}.db", workers)
    small_load = load()
    large = scan(make_batch(base, fmt, n, work), work / f"large-{fmt}.db", workers)
    large_load = load()
    steady = (n - n // 4) / max(large["seconds"] - small["seconds"], 1e-9)
    print(f"{fmt}: {n}-sheet tubs, {workers} workers", flush=True)
    print(
        f"  steady state (tabulate scan, {n // 4} and {n} sheets)     {steady:7.1f} sheets/s   100 %   "
        f"load {small_load} / {large_load}",
        flush=True,
    )
    cold = n / large["wall"]
    print(
        f"  cold tabulate scan, {n} sheets, process start to exit {cold:7.1f} sheets/s   {100 * cold / steady:3.0f} %   "
        f"load {large_load}   ({large['wall']:.2f} s; in-run {large['seconds']:.2f} s)",
        flush=True,
    )
    for k, (seconds, at) in enumerate(station_tubs(base, fmt, n, tubs, workers, work), 1):
        rate = n / seconds
        print(
            f"  station up, tub {k}: done marker to summary            {rate:7.1f} sheets/s   "
            f"{100 * rate / steady:3.0f} %   load {at}   ({seconds:.2f} s)",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=400, help="sheets per tub (default 400)")
    ap.add_argument("--tubs", type=int, default=3, help="tubs through the station per format (default 3)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="reader processes (default: every core)")
    ap.add_argument("--formats", default="jpeg,g4", help="comma-separated: jpeg, g4 (default both)")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tabulate-station-"))
    print(f"{os.cpu_count()} cores, {args.workers} workers, Python {sys.version.split()[0]}", flush=True)
    try:
        for fmt in filter(None, (f.strip() for f in args.formats.split(","))):
            run(fmt, args.sheets, args.tubs, args.workers, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
