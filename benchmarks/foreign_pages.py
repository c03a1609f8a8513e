"""Pages of a style the template set does not hold: what the reader does with them (issue #11).

    python benchmarks/foreign_pages.py --family arrows --keep 1 --sheets 40

The family's blanks of style ``--keep`` alone are imported; the simulated sheets (seed 2026, stress and
realistic voters alternating, every fourth a rough scan, as `templates_accuracy.py`) of every *other* style
are read with that set and counted by outcome. Each page read (``ok``) is a page of another style read as
one of the set's: its marks counted for the options the set's page prints there. See "A style the set
does not hold" and "A set missing a style" in docs/templates.md.

The reader is called directly, as `read`/`scan --templates --allow-missing-styles` would: without the flag
those commands refuse such a set before reading a page (``templates_incomplete``, printed first here).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import Counter
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from templates_accuracy import family_election  # noqa: E402

from tabulate.ballots.vendor import simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.templates import TemplateReader, check_complete, import_templates  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), required=True)
    ap.add_argument("--keep", default="1", help="the one style whose blanks are imported")
    ap.add_argument("--sheets", type=int, default=40)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    election = family_election(args.family)
    outcomes: Counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        blanks = write_blanks(election, args.family, Path(tmp) / "b", styles=(args.keep,))
        import_templates(election, blanks, Path(tmp) / "set")
        reader = TemplateReader(str(Path(tmp) / "set"))
        missing = check_complete(election, reader.tset, allow_missing=True)
        print(f"read/scan --templates refuse this set (templates_incomplete): it lacks {len(missing)} styles or pages")
        for m in missing:
            print(f"  {m.where}")
        for k in range(args.sheets):
            population, profile = ("stress", "realistic")[k % 2], "rough" if k % 4 == 3 else "default"
            images, truth = simulate_vendor_sheet(
                election, args.family, k, args.seed, population=population, scan_profile=profile
            )
            if truth["style"] == args.keep:
                continue
            for i, image in enumerate(images):
                r = reader.read_image(election, image)
                outcomes["read as the set's page" if r.ok else r.reason_code or "?"] += 1
                if r.ok:
                    print(f"sheet {k}: style {truth['style']} page {i + 1} read as {r.style_id}-p{r.page}")
    print(f"{args.family}, a set of style {args.keep} only, pages of other styles: {dict(outcomes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
