"""Read time of a template-set page against a native page, after decoding (issue #11); prints a table.

    python benchmarks/templates_speed.py --sheets 4 --repeat 3
    python benchmarks/templates_speed.py --family timing

For each family (all three by default, in one run) the family's blanks are
imported into a template set and its simulated sheets are read with it; our
own ballots are simulated at the same DPI and scan (grey or bitonal) and read
natively. Both are read from decoded images, every cache warm (each page is
read once before timing), template and native pages taking turns so a shared
machine's load falls on both alike. OpenCV runs on one thread, as in a scan
worker beside others, so a page's process CPU time is its cost; wall time is
printed too. The figure is the median per page over ``--repeat`` passes; the
ratio is template / native (the issue's goal: at most 2).
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from templates_accuracy import family_election  # noqa: E402

from tabulate.ballots.simulate import simulate_sheet  # noqa: E402
from tabulate.ballots.vendor import DESIGNS, simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.detect import read_image  # noqa: E402
from tabulate.election import load_election  # noqa: E402
from tabulate.templates import TemplateReader, import_templates  # noqa: E402

FAMILIES = ("boxes", "timing", "arrows")


def _timed(read, image) -> tuple[float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    r = read(image)
    cpu, wall = (time.process_time() - c0) * 1e3, (time.perf_counter() - w0) * 1e3
    assert r.ok, r.reason
    return cpu, wall


def measure(family: str, sheets: int, repeat: int, seed: int) -> dict[str, float]:
    """Median CPU and wall ms per page, template and native, for one family."""
    d = DESIGNS[family]
    election = family_election(family)
    native_e = load_election(ROOT / "samples" / "general" / "election.json")
    native = [
        im
        for k in range(sheets)
        for im in simulate_sheet(native_e, k, seed, dpi=d.dpi, bitonal_fraction=float(d.bitonal)).pages
    ]
    with tempfile.TemporaryDirectory() as tmp:
        import_templates(election, write_blanks(election, family, Path(tmp) / "b"), Path(tmp) / "set")
        reader = TemplateReader(str(Path(tmp) / "set"))
        vendor = [
            im
            for k in range(sheets)
            for im in simulate_vendor_sheet(election, family, k, seed, population="realistic")[0]
        ]
        reads = [
            ("template", lambda im: reader.read_image(election, im), vendor),
            ("native", lambda im: read_image(native_e, im), native),
        ]
        for _name, read, pages in reads:
            for p in pages:
                read(p)  # warm every cache (point sets, prepared templates, numba)
        gc.collect()  # the import's and the simulator's garbage, not either reader's (`profile_templates.py`)
        times: dict[str, list[tuple[float, float]]] = {"template": [], "native": []}
        for _ in range(repeat):
            for i in range(max(len(vendor), len(native))):
                for name, read, pages in reads:  # taking turns: the same load on both
                    if i < len(pages):
                        times[name].append(_timed(read, pages[i]))
    out = {}
    for name, ts in times.items():
        out[f"{name}_cpu"] = statistics.median(t[0] for t in ts)
        out[f"{name}_wall"] = statistics.median(t[1] for t in ts)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=FAMILIES, action="append", help="default: all three")
    ap.add_argument("--sheets", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    print("median per page after decoding, ms (CPU = process time; wall beside it)")
    print(f"{'family':<8} {'page':<18} {'template CPU':>12} {'native CPU':>10} {'ratio':>6}   {'wall t/n':>14}")
    for family in args.family or FAMILIES:
        d = DESIGNS[family]
        m = measure(family, args.sheets, args.repeat, args.seed)
        page = f"{d.dpi} DPI {'bitonal' if d.bitonal else 'grey'}"
        print(
            f"{family:<8} {page:<18} {m['template_cpu']:>12.1f} {m['native_cpu']:>10.1f} "
            f"{m['template_cpu'] / m['native_cpu']:>6.2f}   {m['template_wall']:>6.1f}/{m['native_wall']:<6.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
