"""Where a sheet's CPU time goes, stage by stage, in one process (the table in docs/perf.md).

    python benchmarks/profile_stages.py --sheets 16 --rounds 3
    python benchmarks/profile_stages.py --sheets 16 --pyinstrument profile.html   # call tree too
    python benchmarks/profile_stages.py --sheets 8 --flame docs/img/perf-flame.png  # flame graph (G4, JPEG)

Simulates ``--sheets`` sheets (seeded, default scanner profile, 200 DPI),
encodes each as grayscale JPEG (quality 85) and as CCITT G4 TIFF, warms the
reader (numba cache, templates), then times each stage of `tabulate scan`'s
worker per sheet: load and SHA-256, decode, register, identify (QR), score,
the rules, and the evidence and marks JSON. Process CPU time, so a shared machine slows it
less than wall time; the reader's CPU time is shared out among its stages in
proportion to the wall-clock timings it records in its evidence.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
import zlib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import simplejpeg  # noqa: E402
from PIL import Image  # noqa: E402

from tabulate.ballots.simulate import simulate_sheet  # noqa: E402
from tabulate.central.pages import load_page  # noqa: E402
from tabulate.central.sources import PageSource  # noqa: E402
from tabulate.detect import read_sheet, sheet_marks  # noqa: E402
from tabulate.election import load_election  # noqa: E402
from tabulate.rules import apply_rules, marks_to_dict  # noqa: E402
from tabulate.store.evidence_reading import encode_reading  # noqa: E402

SAMPLE = ROOT / "samples" / "general" / "election.json"
STAGES = ("load + SHA-256", "decode", "register", "identify", "score", "rules", "evidence + marks")


def encode(img, fmt: str) -> bytes:
    if fmt == "jpeg":
        return simplejpeg.encode_jpeg(img[:, :, None], quality=85, colorspace="GRAY")
    buf = io.BytesIO()
    Image.fromarray(img).point(lambda v: 255 if v >= 128 else 0).convert("1").save(
        buf, format="TIFF", compression="group4", dpi=(200, 200)
    )
    return buf.getvalue()


def write_sheets(election, n: int, fmt: str, folder: Path) -> list[list[PageSource]]:
    sheets = []
    for k in range(n):
        sim = simulate_sheet(election, k, 17, scan_profile="default")
        pages = []
        for side, img in zip(("front", "back"), sim.pages):
            p = folder / f"{fmt}-{k:03d}-{side}.{'jpg' if fmt == 'jpeg' else 'tif'}"
            p.write_bytes(encode(img, fmt))
            pages.append(PageSource(str(p)))
        sheets.append(pages)
    return sheets


def one_sheet(election, pages: list[PageSource], ms: dict[str, float]) -> None:
    """Run one sheet through the worker's stages, adding CPU ms per stage to ``ms``."""
    t0 = time.process_time()
    data = [load_page(p, (8.5, 11.0))[0] for p in pages]
    t1 = time.process_time()
    reading = read_sheet(election, data)
    t2 = time.process_time()
    marks = sheet_marks(reading)
    votes = apply_rules(election, marks)
    t3 = time.process_time()
    encode_reading(reading, election)  # what the worker does (tabulate.central.interpret_sheet)
    json.dumps(marks_to_dict(marks), separators=(",", ":"))
    t4 = time.process_time()
    assert votes.contests
    ms["load + SHA-256"] += 1e3 * (t1 - t0)
    # The reader records wall-clock ms per stage; on a shared machine wall time is several times the
    # CPU time, so the read's CPU time is shared out in proportion to its stages' wall times.
    wall = defaultdict(float)
    for page in reading.pages:
        for stage, v in page.timings_ms:
            wall[stage] += v
    total = sum(wall.values()) or 1.0
    for stage, v in wall.items():
        ms[stage] += 1e3 * (t2 - t1) * v / total
    ms["rules"] += 1e3 * (t3 - t2)
    ms["evidence + marks"] += 1e3 * (t4 - t3)


def profile(election, sheets, rounds: int) -> dict[str, float]:
    for pages in sheets:  # warm: numba cache, each style's template
        one_sheet(election, pages, defaultdict(float))
    ms: dict[str, float] = defaultdict(float)
    for _ in range(rounds):
        for pages in sheets:
            one_sheet(election, pages, ms)
    return {k: v / (rounds * len(sheets)) for k, v in ms.items()}


class _CpuSampler:
    """Samples the Python stack every ``interval`` s of this process's CPU time (``SIGPROF``).

    pyinstrument samples wall-clock time: on a machine shared by other
    work, the time this process waits for a core lands on whatever frame it
    was in, and the picture shows the machine's load, not the reader. A CPU
    timer does not count the waits. A signal is handled only between Python
    bytecodes, so a long native call (a decode, a kernel) is one late sample:
    each sample is weighted by the CPU time since the previous one, which
    charges the native call to the Python frame that made it.
    """

    def __init__(self, interval: float = 0.001):
        self.interval = interval
        self.tree: dict = {}
        self._last = time.process_time()

    def _sample(self, _signum, frame) -> None:
        now = time.process_time()
        weight, self._last = now - self._last, now
        names = []
        while frame is not None and frame.f_code.co_name != "profile":
            names.append(frame.f_code.co_name)
            frame = frame.f_back
        node = self.tree
        for name in reversed(names):
            spent, kids = node.get(name, (0.0, {}))
            node[name] = (spent + weight, kids)
            node = kids

    def __enter__(self):
        import signal

        signal.signal(signal.SIGPROF, self._sample)
        self._last = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, self.interval, self.interval)
        return self

    def __exit__(self, *exc) -> None:
        import signal

        signal.setitimer(signal.ITIMER_PROF, 0, 0)
        signal.signal(signal.SIGPROF, signal.SIG_DFL)


def _flame_rows(tree: dict, x0: float, depth: int, out: list, min_n: float) -> None:
    """(x, width, depth, label) in CPU seconds of each frame worth drawing, callers above their callees."""
    x = x0
    for name, (n, kids) in sorted(tree.items(), key=lambda kv: -kv[1][0]):
        if n >= min_n:
            out.append((x, n, depth, name))
            _flame_rows(kids, x, depth + 1, out, min_n)
        x += n


def write_flame(election, sheets_by_fmt: dict, path: Path) -> None:
    """One flame graph (callers on top) per format from CPU-time samples (`_CpuSampler`), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(sheets_by_fmt), 1, figsize=(16, 5.5 * len(sheets_by_fmt)))
    for ax, (fmt, sheets) in zip(axes, sheets_by_fmt.items()):
        profile(election, sheets, 1)  # warm, unsampled
        with _CpuSampler() as sampler:
            profile(election, sheets, 3)
        rows: list = []
        total = sum(n for n, _ in sampler.tree.values()) or 1.0
        _flame_rows(sampler.tree, 0.0, 0, rows, total / 300)
        for x, w, d, label in rows:
            shade = 0.25 + 0.6 * (zlib.crc32(label.encode()) % 97) / 97
            ax.barh(-d, w / total, left=x / total, height=0.95, color=plt.cm.YlOrRd(shade))
            if w / total > 0.03:
                ax.text(x / total + 0.002, -d, label[: int(w / total * 190)], va="center", fontsize=7)
        ax.set_title(f"{fmt}: CPU samples of one process reading {len(sheets)} sheets x 3 ({total:.2f} CPU s)")
        ax.set_xlim(0, 1)
        ax.set_yticks([])
        ax.set_xlabel("share of the process's CPU time")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pyinstrument", type=Path, help="also write pyinstrument's HTML call tree (JPEG) here")
    ap.add_argument("--flame", type=Path, help="also draw a flame graph of each format (PNG) here")
    a = ap.parse_args(argv)
    election = load_election(SAMPLE)
    with tempfile.TemporaryDirectory(prefix="tabulate-profile-") as tmp:
        results, written = {}, {}
        for fmt in ("jpeg", "g4"):
            sheets = written[fmt] = write_sheets(election, a.sheets, fmt, Path(tmp))
            results[fmt] = profile(election, sheets, a.rounds)
            if a.pyinstrument and fmt == "jpeg":
                from pyinstrument import Profiler

                with Profiler(interval=0.0005) as prof:
                    profile(election, sheets, 1)
                a.pyinstrument.write_text(prof.output_html())
        if a.flame:
            write_flame(election, written, a.flame)
    names = [s for s in STAGES if any(s in r for r in results.values())]
    print(f"CPU ms per sheet (2 pages, 200 DPI), {a.sheets} sheets x {a.rounds} rounds, one process")
    print(f"| {'stage':<26} | {'JPEG grey':>9} | {'G4 bitonal':>10} |")
    print(f"|{'-' * 28}|{'-' * 11}:|{'-' * 12}:|")
    for s in names:
        print(f"| {s:<26} | {results['jpeg'].get(s, 0):9.2f} | {results['g4'].get(s, 0):10.2f} |")
    total = {f: sum(r.values()) for f, r in results.items()}
    print(f"| {'total':<26} | {total['jpeg']:9.2f} | {total['g4']:10.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
