"""Triage of a template-set family's misses: one line per target read wrongly or sent for nothing, and its crop.

    python benchmarks/arrows_triage.py --family arrows --sheets 40 --out /tmp/triage [--set DIR]

Reads simulated sheets as ``benchmarks/templates_accuracy.py`` does and lists
every target that is a miss: a definite mark read unmarked, a clear non-mark
read marked, an ambiguous mark not sent to a person, or a target that sent a
clean ballot to a person. Each line has the target's features; each miss has
a crop (4x) of the scanned image around it in OUT, named after the line.
``--set`` keeps the imported template set in DIR and reuses it next time.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from templates_accuracy import family_election  # noqa: E402

from tabulate.ballots.arrows import mark_kind  # noqa: E402
from tabulate.ballots.vendor import simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.sheets import ballot  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.kernels import FEATURES  # noqa: E402
from tabulate.templates import TemplateReader, import_templates  # noqa: E402


def _crop(img: np.ndarray, m: np.ndarray, bounds, pad=(0.3, 0.14)) -> np.ndarray:
    (cx, cy) = bounds.center
    x, y = (m @ np.array([cx, cy, 1.0]))[:2]
    dpi = float(np.hypot(m[0, 0], m[1, 0]))
    hw, hh = int((bounds.w / 2 + pad[0]) * dpi), int((bounds.h / 2 + pad[1]) * dpi)
    r0, c0 = max(0, int(y) - hh), max(0, int(x) - hw)
    crop = img[r0 : int(y) + hh, c0 : int(x) + hw]
    return cv2.resize(crop, None, fx=4, fy=4, interpolation=cv2.INTER_NEAREST)


def _why(mk, scan: str, hand: str, clean: bool) -> str | None:
    sent = scan == "marginal" or scan != hand
    if mk.scan == "marked" and scan == "unmarked":
        return "definite_unmarked"
    if mk.scan == "unmarked" and scan == "marked":
        return "nonmark_marked"
    if (mk.scan == "ambiguous" or mk.hand == "ambiguous") and not sent:
        return "ambiguous_kept"
    if clean and sent:
        return "clean_sent"
    return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), required=True)
    ap.add_argument("--sheets", type=int, default=40)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--set", type=Path, default=None)
    ap.add_argument("--dump", type=Path, default=None, help="also write every target's features here (TSV)")
    args = ap.parse_args(argv)
    e = family_election(args.family)
    folder = args.set or args.out / "set"
    if not (folder / "templates.json").exists():
        import_templates(e, write_blanks(e, args.family, args.out / "blanks"), folder)
    reader = TemplateReader(str(folder))
    args.out.mkdir(parents=True, exist_ok=True)
    names = [f for f in FEATURES if f != "score"]
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    if dump:
        print("sheet\tpage\tkind\tshape\tscan\thand\t" + "\t".join(FEATURES), file=dump)
    for k in range(args.first, args.first + args.sheets):
        population = ("stress", "realistic")[k % 2]
        profile = "rough" if k % 4 == 3 else "default"
        images, truth = simulate_vendor_sheet(e, args.family, k, args.seed, population=population, scan_profile=profile)
        tt = {(t["contest"], t["option"]): t for t in truth["targets"]}
        where = {
            (t.contest_id, t.option_id): t for p in ballot(e, truth["style"], args.family).pages for t in p.targets
        }
        for i, img in enumerate(images):
            page = reader.read_image(e, img, source=f"sheet{k}-{i}")
            if not page.ok:
                print(f"{k:5d} p{i} rejected: {page.reason_code} {page.reason}")
                continue
            m = np.array(truth["images"][i]["transform"]["page_to_image"])
            for t in page.targets:
                key = (t.contest_id, t.option_id)
                kind = tt[key]["kind"] if key in tt else "none"
                lay = where[key]
                if dump:
                    vals = "\t".join(f"{v:.4f}" for v in t.features)
                    print(f"{k}\t{i}\t{kind}\t{lay.shape}\t{t.scan}\t{t.hand}\t{vals}", file=dump)
                why = _why(mark_kind(kind, lay.shape), t.scan, t.hand, not truth["needs_review"])
                if why is None:
                    continue
                feats = " ".join(f"{n}={v:.3f}" for n, v in zip(names, t.features[1:]))
                tag = f"{why}-{k}-{i}-{t.contest_id}-{t.option_id}-{kind}"
                print(f"{k:5d} p{i} {why:17s} {kind:12s} {lay.shape:5s} {t.scan}/{t.hand} score={t.score:.3f} {feats}")
                if truth["vendor"]["quarter_turns"] == 0:
                    cv2.imwrite(str(args.out / f"{tag}.png"), _crop(img, m, lay.bounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
