"""Where a template-set page's read time goes, stage by stage (issue #11; the table in docs/templates.md).

    python benchmarks/profile_templates.py --family timing --sheets 4 --rounds 3
    python benchmarks/profile_templates.py --family arrows --pyinstrument profile.html   # call tree too

The family's blanks are imported, ``--sheets`` simulated sheets are read once
to warm every cache, then read ``--rounds`` times more while the reader's
stage functions are timed (process CPU time, OpenCV on one thread, so a
shared machine slows it less than wall time). Stages are the leaf steps of
`tabulate.templates.read`: each is timed alone, nothing is counted twice;
"other" is the rest of the read (Python between the steps).
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from templates_accuracy import family_election  # noqa: E402

import tabulate.templates.read as R  # noqa: E402
from tabulate.ballots.vendor import simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.templates import TemplateReader, import_templates  # noqa: E402

#: (stage, functions of `tabulate.templates.read`'s namespace it is made of), in reading order.
STAGES = (
    ("undither, background", ("undither", "paint_background")),
    ("resample (100, 50, 25, 10 DPI)", ("shrink", "prepare", "half_image", "screen_image", "level")),
    ("skew from the print", ("print_angle",)),
    ("QR code before the fit", ("read_qr_near",)),
    ("coarse fit (phase corr.)", ("coarse",)),  # ranking the blanks is in "other"
    ("anchors (kernel) + fit", ("fit_anchors", "refine")),
    ("levels, scale, skew check", ("enough_anchors", "place_page")),
    ("code after the fit", ("read_code",)),
    ("code confirmed by the print", ("confirm_code",)),
    ("match blanks (25 + 50 DPI)", ("levels_table", "frame_as_blank", "match_page")),
    ("upright, paper rows", ("columns_upright", "paper_rows")),
    ("streaks", ("streak_columns",)),
    ("creases (side margins)", ("crease_rows",)),
    ("features, erasure bar", ("page_features", "page_settings")),
    ("score (kernel + classify)", ("scoring_template", "score_page")),
)


def _timed(name: str, fn, ms: dict):
    def wrapper(*a, **k):
        t0 = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            ms[name] += 1e3 * (time.process_time() - t0)

    return wrapper


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), required=True)
    ap.add_argument("--sheets", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--pyinstrument", metavar="HTML", help="also write pyinstrument's call tree of the timed reads")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    election = family_election(args.family)
    ms: dict[str, float] = defaultdict(float)
    with tempfile.TemporaryDirectory() as tmp:
        import_templates(election, write_blanks(election, args.family, Path(tmp) / "b"), Path(tmp) / "set")
        reader = TemplateReader(str(Path(tmp) / "set"))
        pages = [
            im
            for k in range(args.sheets)
            for im in simulate_vendor_sheet(election, args.family, k, args.seed, population="realistic")[0]
        ]
        for p in pages:
            assert reader.read_image(election, p).ok  # warm: prepared templates, point sets, numba
        # The import and the simulator above leave a heap of long-lived objects and garbage; without this the
        # first full collections (tens of ms each) land in timed reads, by chance in "score", whose
        # readings allocate most (a scan worker only loads the set: its pages do not pay for an import).
        gc.collect()
        for _stage, names in STAGES:
            for name in names:
                setattr(R, name, _timed(name, getattr(R, name), ms))
        profiler = None
        if args.pyinstrument:
            from pyinstrument import Profiler

            profiler = Profiler()
            profiler.start()
        t0 = time.process_time()
        for _ in range(args.rounds):
            for p in pages:
                reader.read_image(election, p)
        total = 1e3 * (time.process_time() - t0)
        if profiler is not None:
            profiler.stop()
            Path(args.pyinstrument).write_text(profiler.output_html(), encoding="utf-8")
    n = args.rounds * len(pages)
    print(f"{args.family}: {n} page reads, CPU ms per page (OpenCV on one thread)")
    print(f"| {'stage':<28} | {'ms':>6} | {'share':>6} |")
    print(f"|{'-' * 30}|{'-' * 8}|{'-' * 8}|")
    rows = [(stage, sum(ms[f] for f in names) / n) for stage, names in STAGES]
    rows.append(("other (Python between steps)", total / n - sum(v for _s, v in rows)))
    for stage, v in rows:
        print(f"| {stage:<28} | {v:>6.2f} | {v / (total / n):>6.0%} |")
    print(f"| {'total':<28} | {total / n:>6.2f} | {'100%':>6} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
