"""Read time of a template-set page against a native page, after decoding (issue #11); prints a table.

    python benchmarks/templates_speed.py --family boxes --sheets 6 --repeat 3

Both are read from decoded images at the family's resolution (our own
ballots are simulated at the same DPI), every cache warm (each sheet is read
once before timing); the figure is the median per page over ``--repeat``
passes. The ratio is template / native.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

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


def _median_ms(read, pages, repeat: int) -> float:
    for p in pages:
        read(p)  # warm every cache (point sets, prepared templates, numba)
    times = []
    for _ in range(repeat):
        for p in pages:
            t0 = time.perf_counter()
            r = read(p)
            times.append((time.perf_counter() - t0) * 1e3)
            assert r.ok, r.reason
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), required=True)
    ap.add_argument("--sheets", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    d = DESIGNS[args.family]
    election = family_election(args.family)
    native_e = load_election(ROOT / "samples" / "general" / "election.json")
    with tempfile.TemporaryDirectory() as tmp:
        import_templates(election, write_blanks(election, args.family, Path(tmp) / "b"), Path(tmp) / "set")
        reader = TemplateReader(str(Path(tmp) / "set"))
        vendor = [
            im
            for k in range(args.sheets)
            for im in simulate_vendor_sheet(election, args.family, k, args.seed, population="realistic")[0]
        ]
        tpl_ms = _median_ms(lambda im: reader.read_image(election, im), vendor, args.repeat)
    native = [
        im
        for k in range(args.sheets)
        for im in simulate_sheet(native_e, k, args.seed, dpi=d.dpi, bitonal_fraction=float(d.bitonal)).pages
    ]
    nat_ms = _median_ms(lambda im: read_image(native_e, im), native, args.repeat)
    print(
        f"{args.family}: {d.dpi} DPI {'bitonal' if d.bitonal else 'grey'}; median per page after decoding: "
        f"template set {tpl_ms:.1f} ms, native {nat_ms:.1f} ms, ratio {tpl_ms / nat_ms:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
