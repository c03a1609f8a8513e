"""The anchors' fit of a template page, compiled against its numpy twin, on the calls real pages make (issue #11).

    python benchmarks/fit_calls.py --family arrows --sheets 4

The family's blanks are imported and ``--sheets`` simulated sheets (seed
``--seed``, realistic voters) are read once while every call of
`tabulate.templates.align.trimmed_fit` is recorded (the anchors' page and image
points and the floor). The calls are then replayed in one process, the
compiled fit (`tabulate.kernels.affine_fit` and `trim_refit`, the reader's) and
the numpy twins (`tabulate.kernels.reference`, the code it replaced) taking
turns, and the least CPU time of ``--rounds`` rounds is printed per call, with
how far the two fits lie apart.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from templates_accuracy import family_election  # noqa: E402

import tabulate.templates.align as align  # noqa: E402
from tabulate.ballots.vendor import simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.kernels import reference  # noqa: E402
from tabulate.templates import TemplateReader, import_templates  # noqa: E402


def numpy_trimmed_fit(p: np.ndarray, q: np.ndarray, floor_px: float) -> tuple[np.ndarray, np.ndarray]:
    """`align.trimmed_fit` with the numpy twins in place of the compiled fit (the code before)."""
    fit, res = reference.affine_fit(p, q)
    if float(res.max()) <= floor_px:
        return fit, res
    start, _inl = cv2.estimateAffine2D(p.astype(np.float32), q.astype(np.float32), method=cv2.LMEDS)
    return reference.trim_refit(p, q, start if start is not None else fit, floor_px, align.MIN_ANCHORS)


def record(family: str, sheets: int, seed: int) -> list[tuple[np.ndarray, np.ndarray, float]]:
    election = family_election(family)
    calls: list[tuple[np.ndarray, np.ndarray, float]] = []
    fit = align.trimmed_fit

    def spy(p, q, floor_px):
        calls.append((p.copy(), q.copy(), floor_px))
        return fit(p, q, floor_px)

    with tempfile.TemporaryDirectory() as tmp:
        import_templates(election, write_blanks(election, family, Path(tmp) / "b"), Path(tmp) / "set")
        reader = TemplateReader(str(Path(tmp) / "set"))
        align.trimmed_fit = spy
        try:
            for k in range(sheets):
                for image in simulate_vendor_sheet(election, family, k, seed, population="realistic")[0]:
                    reader.read_image(election, image)
        finally:
            align.trimmed_fit = fit
    return calls


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), required=True)
    ap.add_argument("--sheets", type=int, default=4)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    calls = record(args.family, args.sheets, args.seed)
    apart = max(float(np.abs(align.trimmed_fit(*c)[0] - numpy_trimmed_fit(*c)[0]).max()) for c in calls)
    trimmed = sum(1 for p, q, f in calls if float(reference.affine_fit(p, q)[1].max()) > f)
    best = {"compiled": np.inf, "numpy": np.inf}
    for _ in range(args.rounds):
        for name, fn in (("compiled", align.trimmed_fit), ("numpy", numpy_trimmed_fit)):
            t0 = time.process_time()
            for _rep in range(20):
                for c in calls:
                    fn(*c)
            best[name] = min(best[name], (time.process_time() - t0) / (20 * len(calls)) * 1e6)
    pages = 2 * args.sheets
    print(f"{args.family}: {len(calls)} fits on {pages} pages ({trimmed} trimmed by LMEDS), CPU us a fit:")
    print(f"  numpy twins {best['numpy']:.1f}, compiled {best['compiled']:.1f}; the fits agree to {apart:.1e} px")
    saved = (best["numpy"] - best["compiled"]) * len(calls) / pages / 1e3
    print(f"  saved: {saved:.2f} ms a page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
