"""Accuracy of reading ballots we did not print, through template sets (issue #11); prints a table.

    python benchmarks/templates_accuracy.py --family boxes --sheets 2000 --workers 2

The family's blank pages are drawn (`tabulate.ballots.vendor`), imported into
a template set exactly as ``tabulate templates import`` does, and then
simulated voted sheets of that family are read with the set and compared
with the simulator's truth, with the same measures as ``benchmarks/accuracy.py``
(sheets alternate between the "stress" and "realistic" voters, one in four
with the "rough" scanner). On top of those: every page identified (and the
right style), counting separately the pages whose code was scratched out
and that had to be identified by matching.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from accuracy import Accuracy  # noqa: E402

from tabulate.ballots.vendor import simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.sheets import ballot  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.detect import pair_pages  # noqa: E402
from tabulate.election import load_election, parse_election  # noqa: E402
from tabulate.templates import TemplateReader, import_templates  # noqa: E402

SAMPLE = ROOT / "samples" / "general" / "election.json"
_STATE: dict = {}


def family_election(family: str):
    """The sample general election; on legal paper with arrows for the ``arrows`` family."""
    doc = json.loads(SAMPLE.read_text(encoding="utf-8"))
    if family == "arrows":
        doc.update(paper_size="legal", target_shape="arrow")
    return parse_election(doc) if family == "arrows" else load_election(SAMPLE)


def _init(family: str, folder: str) -> None:
    _STATE.update(family=family, election=family_election(family), reader=TemplateReader(folder))


def page_to_image(image_truth: dict, turns: int, shape: tuple[int, int]) -> np.ndarray:
    """The simulator's page-inches-to-image-pixels transform (2x3), after the feed's quarter turns
    (``np.rot90(image, turns)``; ``shape`` is the turned image's)."""
    m = np.array(image_truth["transform"]["page_to_image"], dtype=float)
    rows, cols = shape
    if turns % 4 == 1:  # rot90 once: (col, row) -> (row, cols_before - col); cols_before = rows now
        m = np.array([m[1], -m[0]]) + np.array([[0, 0, 0], [0, 0, rows]])
    elif turns % 4 == 3:  # (col, row) -> (rows_before - row, col); rows_before = cols now
        m = np.array([-m[1], m[0]]) + np.array([[0, 0, cols], [0, 0, 0]])
    elif turns % 4 == 2:
        m = -m + np.array([[0, 0, cols], [0, 0, rows]])
    return m


def ink_inside(img: np.ndarray, m: np.ndarray, target, skip_columns: np.ndarray | None = None) -> bool:
    """Whether a bitonal image keeps ink inside a target, sampled through the page-to-image map ``m``
    (columns marked in ``skip_columns`` left out)."""
    (cx, cy), a, b = target.bounds.center, target.bounds.w / 2 - 0.03, target.bounds.h / 2 - 0.03
    u, v = np.meshgrid(np.linspace(-1, 1, 25), np.linspace(-1, 1, 13))
    inside = u**2 + v**2 <= 1.0
    pts = np.column_stack([cx + a * u[inside], cy + b * v[inside], np.ones(inside.sum())]) @ m.T
    c = np.clip(pts[:, 0].astype(int), 0, img.shape[1] - 1)
    r = np.clip(pts[:, 1].astype(int), 0, img.shape[0] - 1)
    dark = img[r, c] < 128
    if skip_columns is not None:
        dark &= ~skip_columns[c]
    return bool(dark.sum() >= 2)


def _seen(img, image_truth, target, bitonal: bool, turns: int) -> bool:
    """Whether ink is left inside a target of a bitonal page (by the simulator's own transform), not
    counting a scanner streak's columns (the reader skips those: they are dust, not the voter's ink)."""
    if not bitonal:
        return True
    img = np.rot90(img, -turns)  # the image as scanned, before the feed's quarter turns
    m = np.array(image_truth["transform"]["page_to_image"], dtype=float)
    streak = np.zeros(img.shape[1] + 2, bool)
    for col, width, _delta in image_truth["transform"].get("streaks", ()):
        streak[max(0, col - 1) : col + width + 1] = True
    return ink_inside(img, m, target, streak)


def read_one(args: tuple) -> dict:
    k, seed = args
    e, family, reader = _STATE["election"], _STATE["family"], _STATE["reader"]
    population = ("stress", "realistic")[k % 2]
    profile = "rough" if k % 4 == 3 else "default"
    images, truth = simulate_vendor_sheet(e, family, k, seed, population=population, scan_profile=profile)
    t0 = time.perf_counter()
    pages = [reader.read_image(e, img, source=f"sheet{k}-{i}") for i, img in enumerate(images)]
    seconds = time.perf_counter() - t0
    sheet = pair_pages(e, pages, reader=reader)
    tt = {(t["contest"], t["option"]): t for t in truth["targets"]}
    layout = ballot(e, truth["style"], family)
    where = {(t.contest_id, t.option_id): t for p in layout.pages for t in p.targets}
    targets, ids = [], []
    for i, p in enumerate(pages):
        it = truth["images"][i]
        for t in p.targets:
            x = tt.get((t.contest_id, t.option_id))
            kind = x["kind"] if x else "none"
            seen = _seen(
                images[i], it, where[(t.contest_id, t.option_id)], it["bitonal"], truth["vendor"]["quarter_turns"]
            )
            shape = where[(t.contest_id, t.option_id)].shape
            targets.append((kind, it["bitonal"], truth["pen"]["kind"], t.scan, t.hand, round(t.score, 4), seen, shape))
            ids.append((t.contest_id, t.option_id, tuple(round(v, 3) for v in t.features), t.hand_clauses))
    flagged = (not sheet.ok) or any(t.scan == "marginal" or t.scan != t.hand for t in sheet.targets)
    scratched = truth["vendor"]["code_scratched"]
    ident = [
        (it["page"] in scratched, p.ok and p.style_id == truth["style"] and p.page == it["page"], p.reason_code)
        for it, p in zip(truth["images"], pages)
    ]
    return {
        "k": k,
        "ok": sheet.ok,
        "reason": sheet.reason_code,
        "detail": sheet.reason,
        "targets": targets,
        "ids": ids,  # per target: contest, option, features, hand clauses (for benchmarks/templates_triage.py)
        "needs_review": truth["needs_review"],
        "flagged": flagged,
        "profile": profile,
        "rejected_kinds": [(t["kind"], t.get("shape", "oval")) for t in truth["targets"]] if not sheet.ok else [],
        "ident": ident,
        "seconds": seconds,
        # Each side's pixels per inch along the page's x and y (scale x resolution): a sheet's two sides
        # pass the scanner together, so a fit far from the other side's is a wrong fit (`sides_scale`).
        "ppi": [None if p.scale is None or p.dpi is None else (p.scale[0] * p.dpi, p.scale[1] * p.dpi) for p in pages],
    }


def report(results: list[dict], sheets: int, workers: int, wall: float) -> None:
    """Print the accuracy table, the identification line and the read time of ``results``."""
    acc, ids, secs = Accuracy(), [], []
    for r in sorted(results, key=lambda r: r["k"]):
        acc.add(r)
        ids.extend(r["ident"])
        secs.append(r["seconds"])
    print(acc.table())
    scratched = [i for i in ids if i[0]]
    print(
        f"pages identified (right style and page) {sum(i[1] for i in ids)}/{len(ids)}; "
        f"code scratched out: {sum(i[1] for i in scratched)}/{len(scratched)} identified by matching"
    )
    for s, ok, reason in ids:
        if not ok:
            print(f"  not identified: scratched={s} {reason}")
    print(side_scales(results))
    print(
        f"read time per sheet (after decoding, both pages): median {1e3 * float(np.median(secs)):.0f} ms; "
        f"wall {wall:.0f} s for {sheets} sheets with {workers} workers"
    )


def side_scales(results: list[dict]) -> str:
    """One line: how far a sheet's two sides' fitted scales differ (x and y, in per cent), over the sheets
    whose two sides both registered: the median, 99th percentile and largest, and the sheet of the largest."""
    diffs = []
    for r in results:
        a, b = (r.get("ppi") or [None, None])[:2] if len(r.get("ppi") or []) == 2 else (None, None)
        if a is None or b is None:
            continue
        diffs.append((max(abs(a[0] / b[0] - 1), abs(a[1] / b[1] - 1)) * 100, r["k"]))
    if not diffs:
        return "sides' scales: no sheet with both sides registered"
    d = np.array([v for v, _ in diffs])
    worst = max(diffs)
    return (
        f"sides' scales differ (largest of x, y; %): median {np.median(d):.3f}, p99 {np.percentile(d, 99):.3f}, "
        f"max {worst[0]:.3f} (sheet {worst[1]}) over {len(d)} sheets"
    )


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), required=True)
    ap.add_argument("--sheets", type=int, default=200)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    election = family_election(args.family)
    with tempfile.TemporaryDirectory() as tmp:
        blanks = write_blanks(election, args.family, Path(tmp) / "blanks")
        t0 = time.perf_counter()
        tset = import_templates(election, blanks, Path(tmp) / "set")
        print(
            f"imported {len(tset.pages)} pages in {time.perf_counter() - t0:.1f} s; blank level "
            f"{tset.blank_level:.3f}; thresholds {tset.marginal:.3f} / {tset.definite:.3f}"
        )
        jobs = [(k, args.seed) for k in range(args.sheets)]
        t0 = time.perf_counter()
        if args.workers > 1:
            with Pool(args.workers, initializer=_init, initargs=(args.family, str(Path(tmp) / "set"))) as pool:
                results = list(pool.imap_unordered(read_one, jobs, chunksize=4))
        else:
            _init(args.family, str(Path(tmp) / "set"))
            results = [read_one(j) for j in jobs]
        wall = time.perf_counter() - t0
    report(results, args.sheets, args.workers, wall)
    return 0


if __name__ == "__main__":
    sys.exit(main())
