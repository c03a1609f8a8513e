"""Start-up costs of `tabulate scan`: the CLI's imports, the workers' preload, the first sheet.

    python benchmarks/startup.py
    python benchmarks/startup.py --timeline 400 --workers 2   # what a cold scan's first sheet waits for

Each figure comes from a fresh Python process (CPU seconds, so a shared
machine slows it less than wall time):

* ``import tabulate.cli`` (what every command pays before it parses its arguments), and
  that import with ``build_parser()`` (every command builds the whole parser);
* the forkserver's preload, ``import tabulate.central.preload`` (the reader's
  modules and `tabulate.kernels.warm`), paid once per scan;
* the signed on-disk cache of every page's sample points: built once, then
  checked by the scan's parent and seeded in each worker;
* a worker forked from the preloaded server: its CPU once it has been handed
  the election and the layouts (a full garbage collection over the server's
  objects ran here before the server froze them: docs/perf.md, branch cold6);
* the first and second sheet read by `interpret_sheet` (a G4 sheet simulated
  here), with and without the warm-up: without it each worker loaded the
  kernels' compiled code on its first sheet; with the election offered
  (`tabulate.central.layouts_warm`) the preload also builds every page's
  sample points, which each worker built on its first sheet of each style.
  Whether SciPy's linear algebra was loaded is printed too: numba loads it
  for nothing the reader uses, and the preload refuses it (0.2 CPU s).
"""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """
import sys, time
sys.path.insert(0, {root!r})
if {warm} == 2:  # the scan offers its election before the forkserver starts (tabulate.central.layouts_warm)
    import os
    os.environ["TABULATE_PRELOAD_ELECTION"] = {offered!r}
c0 = time.process_time()
if {warm}:
    import tabulate.central.preload
else:
    import tabulate.central.worker, tabulate.detect.read, tabulate.rules
c1 = time.process_time()
from pathlib import Path
from tabulate.central import interpret_sheet
from tabulate.election import load_election
election = load_election({election!r})
pages = [Path(p).read_bytes() for p in {pages!r}]
c2 = time.process_time()
interpret_sheet(election, pages[:2])
c3 = time.process_time()
interpret_sheet(election, pages[2:])
c4 = time.process_time()
print(c1 - c0, c3 - c2, c4 - c3, "scipy.linalg" in sys.modules)
"""


def _g4_pages(folder: Path) -> list[str]:
    """Two sheets (four pages) as CCITT G4 TIFF, simulated with a fixed seed."""
    from PIL import Image

    sys.path.insert(0, str(ROOT))
    from tabulate.ballots.simulate import simulate_sheet
    from tabulate.election import load_election

    election = load_election(ROOT / "samples" / "general" / "election.json")
    out = []
    for k in range(2):
        for side, img in zip(("front", "back"), simulate_sheet(election, k, 17).pages):
            buf = io.BytesIO()
            Image.fromarray(img).point(lambda v: 255 if v >= 128 else 0).convert("1").save(
                buf, format="TIFF", compression="group4", dpi=(200, 200)
            )
            path = folder / f"sheet-{k}-{side}.tif"
            path.write_bytes(buf.getvalue())
            out.append(str(path))
    return out


_WORKER_START = """
import gc, sys, time
sys.path.insert(0, {root!r})
from concurrent.futures import ProcessPoolExecutor
from tabulate.central import layouts_cache
from tabulate.central.readers_start import reader_context
from tabulate.election import load_election
if __name__ == "__main__":
    election = load_election({election!r})
    layouts_cache.ensure(election)
    made = layouts_cache.prepared(election)
    with ProcessPoolExecutor(1, mp_context=reader_context()) as pool:
        pool.submit(id, (election, made)).result()  # what `init_reader` is handed: the election, the layouts
        cpu = pool.submit(time.process_time).result()
        frozen = pool.submit(gc.get_freeze_count).result()
    print(cpu, frozen)
"""


def _worker_start(election: str, rounds: int = 3) -> str:
    """CPU a worker forked from the preloaded server spends before it can read: least of ``rounds`` fresh pools."""
    runs = []
    for _ in range(rounds):
        code = _WORKER_START.format(root=str(ROOT), election=election)
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
        runs.append((float(out[0]), int(out[1])))
    cpu, frozen = min(runs)
    return f"{cpu:.3f} CPU s (objects the server froze: {frozen})"


def _cli_import_ms() -> float:
    """Cumulative microseconds of ``import tabulate.cli`` from ``-X importtime``, in ms."""
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import tabulate.cli"], capture_output=True, text=True, cwd=ROOT
    ).stderr
    line = next(x for x in err.splitlines() if x.rstrip().endswith("| tabulate.cli"))
    return int(line.split("|")[1]) / 1000


_PARSER = """
import sys, time
sys.path.insert(0, {root!r})
c0 = time.process_time()
import tabulate.cli
tabulate.cli.build_parser()
c1 = time.process_time()
heavy = sorted(m for m in ("numpy", "cv2", "PIL", "numba", "tabulate.ballots") if m in sys.modules)
print(c1 - c0, ",".join(heavy) or "none")
"""


def _parser_cpu(rounds: int = 3) -> tuple[float, str]:
    """Least CPU seconds of importing the CLI and building its parser (every command does both), and what it loaded."""
    runs = []
    for _ in range(rounds):
        out = subprocess.run(
            [sys.executable, "-c", _PARSER.format(root=str(ROOT))], capture_output=True, text=True, check=True
        ).stdout.split()
        runs.append((float(out[0]), out[1]))
    return min(runs)


_TIMELINE = """
import sys, time
T0, C0 = time.monotonic(), time.process_time()
sys.path.insert(0, {root!r})
marks = {{}}
def mark(k):
    marks.setdefault(k, (time.monotonic() - T0, time.process_time() - C0))
import tabulate.cli
import tabulate.central
import tabulate.central.readers_start as rs
from concurrent.futures import ProcessPoolExecutor
mark("CLI imported (not the pipeline: it loads when the scan runs)")
start_early = rs.start_early
def early(election=None):
    mark("election loaded, arguments checked" if election else "readers' forkserver started (before parsing)")
    return start_early(election)
rs.start_early = early
def batch(*a, **k):
    from tabulate.central.pipeline import run_batch
    mark("batch listed, store opened and bound, batch opened: run_batch")
    return run_batch(*a, **k)
tabulate.central.run_batch = batch
submit = ProcessPoolExecutor.submit
def first_submit(self, fn, *a, **k):
    f = submit(self, fn, *a, **k)
    if fn.__name__ in ("read_task", "read_tasks"):
        mark("first sheets handed to the pool")
        f.add_done_callback(lambda _f: mark("first task read (the preload done, a worker forked and started)"))
    return f
ProcessPoolExecutor.submit = first_submit
args = ["scan", {folder!r}, "--election", {election!r}, "--db", {db!r}, "--batch", "b",
        "--vote-type", "election_day", "--workers", {workers!r}, "--no-progress"]
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    tabulate.cli.main(args)
mark("last sheet recorded, summary printed")
for k, (w, c) in sorted(marks.items(), key=lambda x: x[1][0]):
    print(f"  {{w:6.2f}} s wall {{c:5.2f}} s parent CPU   {{k}}")
"""


_CACHE_COST = """
import os, sys, time
sys.path.insert(0, {root!r})
import tabulate.central.preload
from tabulate.central import layouts_cache
from tabulate.detect import template
from tabulate.election import load_election
election = load_election({election!r})
c0 = time.process_time()
made = layouts_cache.prepared(election)  # the parent: a verified cache and the pages laid out, or None
c1 = time.process_time()
state = "cached" if made else layouts_cache.ensure(election)
c2 = time.process_time()
made = layouts_cache.prepared(election)
template._CACHE.clear()
pages = layouts_cache.seed(election, made)
c3 = time.process_time()
print(state, pages, os.path.getsize(made.path), c2 - c1, c1 - c0, c3 - c2)
"""


def _cache_cost(election: str) -> str:
    """The on-disk layouts cache: building it (a fresh folder), the parent's check, a worker's seeding."""
    with tempfile.TemporaryDirectory(prefix="tabulate-startup-cache-") as tmp:
        env = {**os.environ, "TABULATE_CACHE_DIR": tmp}
        runs = []
        for _ in range(3):
            code = _CACHE_COST.format(root=str(ROOT), election=election)
            runs.append(
                subprocess.run(
                    [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
                ).stdout.split()
            )
    built = next(r for r in runs if r[0] == "built")
    cached = [r for r in runs if r[0] == "cached"]
    check = min(float(r[4]) for r in cached)
    seed = min(float(r[5]) for r in cached)
    return (
        f"{built[1]} pages, {int(built[2]) / 1e6:.1f} MB signed: built once {float(built[3]):.2f} CPU s; then the "
        f"parent's check and layouts {check:.3f} CPU s, a worker's seeding {seed:.3f} CPU s"
    )


def timeline(n: int, workers: int) -> None:
    """What a cold ``tabulate scan`` of n G4 sheets waits for: wall time at each step from process start."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from throughput import make_base, make_batch

    with tempfile.TemporaryDirectory(prefix="tabulate-timeline-") as tmp:
        folder = make_batch(make_base("g4", Path(tmp)), "g4", n, Path(tmp))
        election = str(ROOT / "samples" / "general" / "election.json")
        for db in ("warm.db", "cold.db"):  # the first fills numba's on-disk cache if it is empty
            code = _TIMELINE.format(
                root=str(ROOT), folder=str(folder), election=election, db=str(Path(tmp) / db), workers=str(workers)
            )
            began = time.monotonic()
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            ended = time.monotonic() - began
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        print(f"a cold tabulate scan of {n} G4 sheets, {workers} workers (load {load}):")
        print(out.rstrip())
        print(
            f"  {ended:6.2f} s wall                    the process exited (seen from outside: Python's start and exit too)"
        )


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeline", type=int, metavar="N", help="only the timeline of a cold scan of N G4 sheets")
    ap.add_argument("--workers", type=int, default=2, help="reader processes for --timeline (default 2)")
    args = ap.parse_args()
    if args.timeline:
        timeline(args.timeline, args.workers)
        return 0
    sys.path.insert(0, str(ROOT))
    from tabulate.election import load_election

    print(f"import tabulate.cli: {_cli_import_ms():.0f} ms (wall, -X importtime)")
    cpu, heavy = _parser_cpu()
    print(f"import tabulate.cli + build_parser() (every command): {cpu:.2f} CPU s; heavy modules loaded: {heavy}")
    with tempfile.TemporaryDirectory(prefix="tabulate-startup-") as tmp:
        pages = _g4_pages(Path(tmp))
        election = str(ROOT / "samples" / "general" / "election.json")
        offered = Path(tmp) / "election.pickle"
        offered.write_bytes(pickle.dumps(load_election(election)))
        print(f"the signed on-disk layouts cache (tabulate.central.layouts_cache): {_cache_cost(election)}")
        print(f"a worker forked from the preloaded server, handed the election and layouts: {_worker_start(election)}")
        labels = ("imports only               ", "preload, kernels.warm()    ", "preload, kernels + layouts ")
        for warm, label in enumerate(labels):
            code = _CHILD.format(root=str(ROOT), warm=warm, election=election, pages=pages, offered=str(offered))
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            *times, scipy = out.split()
            imports, first, second = (float(v) for v in times)
            print(
                f"{label}: imports {imports:.2f} CPU s, first sheet {first:.2f} CPU s, second sheet {second:.2f} CPU s"
                f"; scipy.linalg loaded: {scipy}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
