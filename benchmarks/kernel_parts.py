"""What each point set costs the target kernel (docs/perf.md, "Round 5"), in one process.

    python benchmarks/kernel_parts.py --sheets 6 --rounds 20 [--format g4|jpeg]

Simulates ``--sheets`` sheets (seeded, default scanner profile, 200 DPI),
reads them once to capture every page's `tabulate.kernels.score_targets`
call, then times that call with the page's points as built and with one
point set (or all but the outline) emptied, the variants interleaved round
by round. Process CPU ms per page, the least of ``--rounds`` rounds (the
round least disturbed by other work on a shared machine); a set's cost is the
"as built" figure minus the figure without it.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import profile_stages  # noqa: E402

import tabulate.detect.score as score_module  # noqa: E402
from tabulate.central.pages import load_page  # noqa: E402
from tabulate.detect import read_sheet  # noqa: E402
from tabulate.election import load_election  # noqa: E402
from tabulate.kernels import AREA_NOT_READ, F, TargetPoints, score_targets  # noqa: E402

#: Each set's extra per-point arrays, emptied with it.
SETS = {
    "interior": ("interior_col",),
    "outer": ("outer_sector",),
    "near": ("near_sector",),
    "mark": ("mark_cell", "mark_dist"),
    "write_in": ("write_in_dist",),
}


def without(p: TargetPoints, *names: str) -> TargetPoints:
    """``p`` with the named point sets emptied (every target keeps its place, with no points)."""
    kw: dict = {}
    for name in names:
        kw[f"{name}_xy"] = p.__dict__[f"{name}_xy"][:0]
        kw[f"{name}_ptr"] = np.zeros_like(p.__dict__[f"{name}_ptr"])
        for extra in SETS[name]:
            kw[extra] = p.__dict__[extra][:0]
        if name == "interior":
            kw["interior_ncols"] = np.zeros_like(p.interior_ncols)
    return dataclasses.replace(p, **kw)


def captured_calls(election, sheets: int, fmt: str) -> list:
    """Every page's (args, kwargs) of `score_targets`, as the reader made them."""
    calls = []
    real = score_module.score_targets

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    score_module.score_targets = spy
    try:
        with tempfile.TemporaryDirectory() as d:
            for pages in profile_stages.write_sheets(election, sheets, fmt, Path(d)):
                read_sheet(election, [load_page(p, (8.5, 11.0))[0] for p in pages])
    finally:
        score_module.score_targets = real
    return calls


@njit(nogil=True)
def _floor(image, a, xy, offsets, mode):
    """Every point mapped to its pixel (mode 0), and its pixel tested for ink (1: a byte a pixel, 2: packed bits)."""
    a00, a01, a02, a10, a11, a12 = a[0, 0], a[0, 1], a[0, 2], a[1, 0], a[1, 1], a[1, 2]
    rows, cols = image.shape
    total = 0
    for i in range(xy.shape[0]):
        r = int(a10 * xy[i, 0] + a11 * xy[i, 1] + a12 + 0.5)
        c = int(a00 * xy[i, 0] + a01 * xy[i, 1] + a02 + 0.5)
        for k in range(offsets.shape[0]):
            rr = min(max(r + offsets[k, 1], 0), rows - 1)
            cc = min(max(c + offsets[k, 0], 0), (cols * 8 if mode == 2 else cols) - 1)
            if mode == 0:
                total += rr + cc
            elif mode == 1:
                total += image[rr, cc] == 0
            else:
                total += (image[rr, cc >> 3] >> (7 - (cc & 7))) & 1
    return total


def floors(calls, rounds: int) -> dict[str, float]:
    """Least CPU ms a page of `_floor` over every point set of the captured pages, per mode."""
    pages = []
    for a, k in calls:
        p, aff = a[2], np.ascontiguousarray(a[1])
        sets = [(p.outline_xy, np.ascontiguousarray(k["offsets"], dtype=np.int64))]
        one = np.zeros((1, 2), np.int64)
        sets += [(p.__dict__[f"{name}_xy"], one) for name in SETS]
        pages.append((a[0], np.packbits(a[0] == 0, axis=1), aff, sets))
    best = {}
    for _ in range(rounds):
        for mode, name in enumerate(("positions only", "position + byte test", "position + bit test")):
            start = time.process_time()
            for image, bits, aff, sets in pages:
                for xy, offsets in sets:
                    _floor(bits if mode == 2 else image, aff, xy, offsets, mode)
            best[name] = min(best.get(name, float("inf")), time.process_time() - start)
    return {name: 1e3 * v / len(pages) for name, v in best.items()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--format", choices=("g4", "jpeg"), default="g4")
    ap.add_argument("--floors", action="store_true", help="also time the points mapped alone (see above)")
    args = ap.parse_args(argv)
    election = load_election(profile_stages.SAMPLE)
    calls = captured_calls(election, args.sheets, args.format)
    variants = {"as built": ()} | {f"without {s}": (s,) for s in SETS} | {"outline only": tuple(SETS)}
    variants["every marking area"] = ()  # as the reader was before round 6: no area skipped
    points = {name: [without(a[2], *drop) for a, _ in calls] for name, drop in variants.items()}
    every = {"area_wanted", "area_decided"}
    kwargs = {
        name: [{n: v for n, v in k.items() if name != "every marking area" or n not in every} for _, k in calls]
        for name in variants
    }
    best = dict.fromkeys(variants, float("inf"))
    for _ in range(args.rounds):
        for name in variants:
            start = time.process_time()
            for (a, _k), p, k in zip(calls, points[name], kwargs[name]):
                score_targets(a[0], a[1], p, **k)
            best[name] = min(best[name], time.process_time() - start)
    skipped = sum(int((score_targets(a[0], a[1], a[2], **k)[:, F["marking"]] == AREA_NOT_READ).sum()) for a, k in calls)
    print(f"marking areas not read (decided by the target, or a write-in line): {skipped}")
    first = calls[0][0][2]
    counts = {s: len(first.__dict__[f"{s}_xy"]) for s in ("outline", *SETS)}
    print(f"{args.format}: {len(calls)} pages; points on the first page: {counts}")
    whole = best["as built"] * 1e3 / len(calls)
    for name in variants:
        ms = best[name] * 1e3 / len(calls)
        extra = "" if name == "as built" else f"   (difference {whole - ms:+.3f})"
        print(f"  {name:<18} {ms:6.3f} CPU ms/page{extra}")
    if args.floors:
        print("every point of every set, the outline at each offset, and nothing else:")
        for name, ms in floors(calls, args.rounds).items():
            print(f"  {name:<22} {ms:6.3f} CPU ms/page")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
