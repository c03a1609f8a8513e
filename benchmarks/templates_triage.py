"""Why template-set readings miss: the misses of `templates_accuracy.py`, one line each, and their crops.

    python benchmarks/templates_triage.py --family timing --sheets 200 --workers 2 [--crops DIR]

Reads the same sheets as ``benchmarks/templates_accuracy.py`` (same seed, same
mix) and prints, instead of the table, every miss against the issue's goals:

* ``ambiguous kept``   an ambiguous mark the reader neither sent to a person nor
  read differently by scan and hand: kind, scan reading, score;
* ``clean sent``       a ballot the truth needs no review for that the reader
  flagged: the rejection, or each target that flagged it (kind, scan, hand, score);
* ``not identified``   a page not read as its right style and page, with the reason.

Then the scores of blank targets (kind ``none``) per page at a few quantiles,
the gap a threshold has to sit in. With ``--crops`` a PNG of each missed
target (located with the simulator's own transform) is written for a person
to look at.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import templates_accuracy as ta  # noqa: E402

from tabulate.ballots.arrows import mark_kind  # noqa: E402
from tabulate.ballots.vendor import simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.sheets import ballot  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.kernels.points import FEATURES  # noqa: E402
from tabulate.templates import import_templates  # noqa: E402


def _ambiguous(kind: str, shape: str = "oval") -> bool:
    mk = mark_kind(kind, shape)  # an arrow's gap has its own table (X, check, line across it connect it)
    return mk.scan == "ambiguous" or mk.hand == "ambiguous"


def _features(f: tuple) -> str:
    return " ".join(f"{n}={v:g}" for n, v in zip(FEATURES, f) if n not in ("dx_px", "dy_px"))


def misses(r: dict) -> list[tuple]:
    """(what, page index or None, detail tuple) for every miss of one sheet's result."""
    out = []
    for (kind, bitonal, pen, scan, hand, _score, seen, *rest), (c, o, f, why) in zip(r["targets"], r["ids"]):
        sent = scan == "marginal" or scan != hand
        if _ambiguous(kind, rest[0] if rest else "oval") and seen and not sent and r["ok"]:
            out.append(("ambiguous kept", kind, c, o, scan, hand, bitonal, pen, _features(f), why))
    if not r["needs_review"] and r["flagged"]:
        if not r["ok"]:
            out.append(("clean sent", "rejected", r["reason"], r["detail"]))
        for (kind, bitonal, pen, scan, hand, _score, _seen, *_s), (c, o, f, why) in zip(r["targets"], r["ids"]):
            if scan == "marginal" or scan != hand:
                out.append(("clean sent", kind, c, o, scan, hand, bitonal, pen, _features(f), why))
    for scratched, ok, reason in r["ident"]:
        if not ok:
            out.append(("not identified", f"scratched={scratched}", reason))
    return out


def crop(family: str, k: int, seed: int, which: tuple[str, str, str], folder: Path) -> None:
    """A PNG of sheet k's target (kind, contest, option), cut around the simulator's own target place."""
    import cv2

    e = ta.family_election(family)
    population = ("stress", "realistic")[k % 2]
    profile = "rough" if k % 4 == 3 else "default"
    images, truth = simulate_vendor_sheet(e, family, k, seed, population=population, scan_profile=profile)
    where = {
        (t.contest_id, t.option_id): (p.page, t) for p in ballot(e, truth["style"], family).pages for t in p.targets
    }
    folder.mkdir(parents=True, exist_ok=True)
    kind, contest, option = which
    page, tl = where[(contest, option)]
    i = next(i for i, it in enumerate(truth["images"]) if it["page"] == page)
    m = ta.page_to_image(truth["images"][i], truth["vendor"]["quarter_turns"], images[i].shape)
    b = tl.bounds
    corners = np.array([[b.x - 0.1, b.y - 0.1, 1], [b.x + b.w + 0.6, b.y + b.h + 0.1, 1]]) @ m.T
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    img = images[i]
    y0, y1 = max(0, int(y0)), min(img.shape[0], int(y1) + 1)
    x0, x1 = max(0, int(x0)), min(img.shape[1], int(x1) + 1)
    if y1 > y0 and x1 > x0:
        cut = cv2.resize(img[y0:y1, x0:x1], None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST)
        cv2.imwrite(str(folder / f"s{k}-{contest}-{option}-{kind}.png"), cut)


def run(args) -> list[dict]:
    """Import the family's blanks and read sheets start..start+sheets; prints the accuracy table."""
    election = ta.family_election(args.family)
    with tempfile.TemporaryDirectory() as tmp:
        blanks = write_blanks(election, args.family, Path(tmp) / "blanks")
        tset = import_templates(election, blanks, Path(tmp) / "set")
        print(f"blank level {tset.blank_level:.3f}; thresholds {tset.marginal:.3f} / {tset.definite:.3f}")
        jobs = [(k, args.seed) for k in range(args.start, args.start + args.sheets)]
        t0 = time.perf_counter()
        with Pool(args.workers, initializer=ta._init, initargs=(args.family, str(Path(tmp) / "set"))) as pool:
            results = sorted(pool.imap_unordered(ta.read_one, jobs, chunksize=4), key=lambda r: r["k"])
        wall = time.perf_counter() - t0
    ta.report(results, args.sheets, args.workers, wall)
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), required=True)
    ap.add_argument("--sheets", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--crops", type=Path, default=None)
    ap.add_argument("--save", type=Path, default=None, help="write the per-sheet results (JSON) here")
    ap.add_argument("--load", type=Path, nargs="*", default=(), help="report saved results instead of reading")
    args = ap.parse_args(argv)
    if args.load:
        results = sorted((r for f in args.load for r in json.loads(f.read_text())), key=lambda r: r["k"])
        ta.report(results, len(results), args.workers, float("nan"))
    else:
        results = run(args)
    if args.save is not None:
        args.save.write_text(json.dumps(results))
    print()
    count: Counter = Counter()
    blank = []
    for r in results:
        blank.extend(t[5] for t in r["targets"] if t[0] == "none")
        for m in misses(r):
            count[m[:2]] += 1
            print(f"sheet {r['k']:5d} {r['profile']:7s} " + " ".join(str(x) for x in m))
            if args.crops is not None and m[0] != "not identified" and m[1] != "rejected":
                crop(args.family, r["k"], args.seed, m[1:4], args.crops)
    print("\nmisses by kind:", dict(count))
    if blank:
        q = np.quantile(blank, [0.5, 0.99, 0.999, 1.0])
        print(f"blank targets {len(blank)}: median {q[0]:.3f}, 99 % {q[1]:.3f}, 99.9 % {q[2]:.3f}, max {q[3]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
