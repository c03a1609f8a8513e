"""Our own ballots scanned in a scanner's error-diffusion ("halftone") bitonal mode; prints two tables.

    nice -n 10 python benchmarks/variant_native.py --sheets 200 --workers 2

Each sheet of the accuracy benchmark's mix (`benchmarks/accuracy.py`, seed
``--seed``, every page grey at 200 DPI) is read twice: as scanned (grey), and
after Floyd-Steinberg error diffusion (Pillow's ``convert("1")``, deterministic:
the same sheet gives the same dots), which is what a document scanner's
"halftone" / error-diffusion bitonal mode sends. Both tables use the accuracy
benchmark's measures; the diffused page is counted as grey (every mark's ink is
still there, as dots), so a lost mark is an error, never "no ink left".
"""

from __future__ import annotations

import argparse
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from accuracy import Accuracy, _election, sheet_options  # noqa: E402

from tabulate.ballots.simulate import simulate_sheet  # noqa: E402
from tabulate.detect import identify_from_other_side, pair_pages, read_image  # noqa: E402


def error_diffused(img: np.ndarray) -> np.ndarray:
    """A grey page as an error-diffusion bitonal scanner sends it: Floyd-Steinberg dots, 0 or 255."""
    return np.asarray(Image.fromarray(img).convert("1"), dtype=np.uint8) * 255


def _record(k: int, election, images, truth) -> dict:
    tt = {(t["contest"], t["option"]): t for t in truth["targets"]}
    pages = [read_image(election, img, source=f"sheet{k}-{i}") for i, img in enumerate(images)]
    pages = identify_from_other_side(election, pages, list(images))
    sheet = pair_pages(election, pages)
    targets = []
    for p in pages:
        for t in p.targets:
            x = tt.get((t.contest_id, t.option_id))
            kind = x["kind"] if x else "none"
            ink = x["ink"] if x else 0.0
            rule = (x["scan"], x["hand"], tuple(x["scan_accepts"])) if x and "rule" in x else None
            targets.append(
                (kind, False, truth["pen"]["kind"], t.scan, t.hand, round(t.score, 4), True, "oval", ink, rule)
            )
    return {
        "k": k,
        "ok": sheet.ok,
        "reason": sheet.reason_code,
        "detail": sheet.reason,
        "targets": targets,
        "needs_review": truth["needs_review"],
        "flagged": (not sheet.ok) or any(t.scan == "marginal" or t.scan != t.hand for t in sheet.targets),
        "rejected_kinds": [t["kind"] for t in truth["targets"]] if not sheet.ok else [],
    }


def read_both(args: tuple) -> tuple[dict, dict]:
    """Sheet ``k`` read as scanned (grey) and error-diffused."""
    k, seed = args
    election = _election()
    options = dict(sheet_options(k), bitonal_fraction=0.0)
    sim = simulate_sheet(election, k, seed, **options)
    grey = _record(k, election, sim.pages, sim.truth)
    dots = _record(k, election, [error_diffused(img) for img in sim.pages], sim.truth)
    return grey, dots


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    jobs = [(k, args.seed) for k in range(args.sheets)]
    t0 = time.perf_counter()
    if args.workers > 1:
        with Pool(args.workers) as pool:
            results = list(pool.imap(read_both, jobs, chunksize=4))
    else:
        results = [read_both(j) for j in jobs]
    for name, i in (("grey, as scanned", 0), ("error diffusion (Floyd-Steinberg), 200 DPI", 1)):
        acc = Accuracy(detail=10)
        for r in results:
            acc.add(r[i])
        print(f"== {name}\n{acc.table()}\n")
    print(f"wall {time.perf_counter() - t0:.0f} s for {args.sheets} sheets, seed {args.seed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
