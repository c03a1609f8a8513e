"""What scoring a template-set page costs against a native page, per target, and the print spread's two loops.

    python benchmarks/template_scoring.py --family boxes --sheets 3 --rounds 7

Issue #11 asks a template page to cost at most 2x a native page. The target kernel
(`tabulate.kernels.score_targets`) is the same for both; this script captures its calls while a
family's sheets are read with their imported set and while our own ballots are read at the same DPI
and scan, then times each call again alone, the cache emptied before each (a page just read by
another stage is not in the processor's cache either), least of ``--rounds``: CPU ms per page and per
target. It also times the print spread's kernel (`tabulate.kernels.spread_runs`, branch-free since the
ninth session) against the former loop (a branch on each pixel read), copied here, on the same calls.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from templates_accuracy import family_election  # noqa: E402

import tabulate.detect.score as score_mod  # noqa: E402
import tabulate.templates.spread as spread_mod  # noqa: E402
from tabulate.ballots.simulate import simulate_sheet  # noqa: E402
from tabulate.ballots.vendor import DESIGNS, simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.detect import read_image  # noqa: E402
from tabulate.election import load_election  # noqa: E402
from tabulate.kernels._spread import spread_runs_kernel  # noqa: E402
from tabulate.templates import TemplateReader, import_templates  # noqa: E402

#: Touched before each timed call: larger than the processor's last cache, so the page is cold.
_EVICT = np.ones(64 << 20, np.uint8)


@njit(cache=False, nogil=True)
def _spread_branchy(image, affine, xy, band, runs, threshold, n_runs, n_bands, grown, filled):
    """The spread kernel as it was before the ninth session: one loop, a branch on each pixel read."""
    h, w = image.shape
    counts = np.zeros((n_runs, n_bands + 1), np.int64)
    darks = np.zeros((n_runs, n_bands + 1), np.int64)
    for i in range(xy.shape[0]):
        x = xy[i, 0] * affine[0, 0] + xy[i, 1] * affine[0, 1] + affine[0, 2]
        y = xy[i, 0] * affine[1, 0] + xy[i, 1] * affine[1, 1] + affine[1, 2]
        c = min(max(int(x), 0), w - 1)
        r = min(max(int(y), 0), h - 1)
        k, b = runs[i], band[i]
        counts[k, b] += 1
        if image[r, c] < threshold:
            darks[k, b] += 1
    for k in range(n_runs):
        total = 0
        g = 0.0
        for b in range(n_bands + 1):
            total += counts[k, b]
            if b >= 1 and counts[k, b] > 0:
                g += darks[k, b] / counts[k, b]
        grown[k] = g
        filled[k] = total > 0


def _cold(fn, rounds: int) -> float:
    """Least CPU ms of ``fn()`` over ``rounds``, the cache emptied before each."""
    best = float("inf")
    for _ in range(rounds):
        _EVICT.sum()
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return 1e3 * best


def _capture(module, name: str, read) -> list[tuple]:
    """Every call ``read()`` makes to ``module.name``: (args, kwargs)."""
    calls: list[tuple] = []
    orig = getattr(module, name)

    def spy(*a, **k):
        calls.append((a, k))
        return orig(*a, **k)

    setattr(module, name, spy)
    try:
        read()
    finally:
        setattr(module, name, orig)
    return calls


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=tuple(DESIGNS), required=True)
    ap.add_argument("--sheets", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    d, election = DESIGNS[args.family], family_election(args.family)
    native_e = load_election(ROOT / "samples" / "general" / "election.json")
    with tempfile.TemporaryDirectory() as tmp:
        import_templates(election, write_blanks(election, args.family, Path(tmp) / "b"), Path(tmp) / "set")
        reader = TemplateReader(str(Path(tmp) / "set"))
        vendor = [
            im
            for k in range(args.sheets)
            for im in simulate_vendor_sheet(election, args.family, k, args.seed, population="realistic")[0]
        ]
        for im in vendor:
            reader.read_image(election, im)  # warm: point sets, prepared templates, numba

        def read_vendor():
            for im in vendor:
                reader.read_image(election, im)

        tpl = _capture(score_mod, "score_targets", read_vendor)
        spreads = _capture(spread_mod, "spread_runs", read_vendor)
    native = [
        im
        for k in range(args.sheets)
        for im in simulate_sheet(native_e, k, args.seed, dpi=d.dpi, bitonal_fraction=float(d.bitonal)).pages
    ]
    nat = _capture(score_mod, "score_targets", lambda: [read_image(native_e, im) for im in native])
    kernel = score_mod.score_targets
    print(f"{args.family}: {d.dpi} DPI {'bitonal' if d.bitonal else 'grey'}, least of {args.rounds}, cache emptied")
    print(f"| {'pages':<10} | {'pages':>5} | {'targets':>7} | {'kernel ms/page':>14} | {'ms/target':>9} |")
    print(f"|{'-' * 12}|{'-' * 7}|{'-' * 9}|{'-' * 16}|{'-' * 11}|")
    for name, calls in (("template", tpl), ("native", nat)):
        ms = sum(_cold(lambda a=a, k=k: kernel(*a, **k), args.rounds) for a, k in calls)
        n = sum(a[2].n_targets for a, _k in calls)
        print(f"| {name:<10} | {len(calls):>5} | {n:>7} | {ms / len(calls):>14.3f} | {ms / max(n, 1):>9.4f} |")
    prepared = []
    for (image, affine, xy, band, runs, threshold, n_runs, n_bands), _k in spreads:
        a = (np.ascontiguousarray(image), np.ascontiguousarray(affine, dtype=np.float64))
        b = (np.ascontiguousarray(xy, dtype=np.float64), band.astype(np.int64), runs.astype(np.int64))
        prepared.append((*a, *b, float(threshold), n_runs, n_bands))
    for name, fn in (("branch-free (kernel)", spread_runs_kernel), ("one loop, branchy", _spread_branchy)):

        def run(p, fn=fn):
            fn(*p, np.zeros(p[6]), np.zeros(p[6], np.bool_))

        ms = sum(_cold(lambda p=p: run(p), args.rounds) for p in prepared) / max(len(prepared), 1)
        print(f"print spread, {name}: {ms:.3f} ms a page ({len(prepared[0][2]) if prepared else 0} points)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
