"""Pages of a style the template set does not hold: what the reader does with them (issue #11).

    python benchmarks/foreign_pages.py --family arrows --keep 1 --sheets 40

The family's blanks of style ``--keep`` alone are imported; the simulated sheets (seed 2026, stress and
realistic voters alternating, every fourth a rough scan, as `templates_accuracy.py`) of every *other* style
are read with that set and counted by outcome. Each page read (``ok``) is a page of another style read as
one of the set's: its marks counted for the options the set's page prints there. See "A style the set
does not hold" and "A set missing a style" in docs/templates.md.

The reader is called directly, as `read`/`scan --templates --allow-missing-styles` would: without the flag
those commands refuse such a set before reading a page (``templates_incomplete``, printed first here).

    python benchmarks/foreign_pages.py --family timing --other names --sheets 12

``--other names|count``: every style of the sample election is imported, and the sheets are of *another*
election printed in the same layout: ``names`` gives us-house-6 other candidates' names (same ids, same
count), ``count`` gives us-senate one candidate more (the contests below move down a row). Each sheet is
read twice: with both codes scratched out (matching decides; the names check, `ownprint`, must refuse
it) and as printed (the vendor's code names a style number, the same in both elections: the code decides).
A scratched QR code still reads now and then (its error correction): such a page is decided by its code.
Pages the other election prints alike (a back whose contests did not change) are counted apart: reading
them is right.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

import cv2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from templates_accuracy import SAMPLE, family_election  # noqa: E402

from tabulate.ballots.vendor import PaperEffects, simulate_vendor_sheet  # noqa: E402
from tabulate.ballots.vendor.sheets import ballot  # noqa: E402
from tabulate.ballots.vendor.write import write_blanks  # noqa: E402
from tabulate.election import parse_election  # noqa: E402
from tabulate.templates import TemplateReader, check_complete, import_templates  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--family", choices=("boxes", "timing", "arrows"), required=True)
    ap.add_argument("--keep", default="1", help="the one style whose blanks are imported")
    ap.add_argument("--sheets", type=int, default=40)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--other", choices=("names", "count"), help="sheets of another election (see above)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.other:
        return other_election(args)
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


def edited(family: str, other: str):
    """The family's election with us-house-6's names (``names``) or us-senate's count (``count``) changed."""
    doc = json.loads(SAMPLE.read_text(encoding="utf-8"))
    if family == "arrows":
        doc.update(paper_size="legal", target_shape="arrow")
    contests = {c["id"]: c for c in doc["contests"]}
    if other == "names":
        for cand, name in zip(contests["us-house-6"]["candidates"], ("Victor Lamb", "Susan Pryor")):
            cand["name"] = name
    else:
        senate = contests["us-senate"]["candidates"]
        senate.append(dict(senate[-1], id="sen-quinn", name="Harold Quinn"))
    return parse_election(doc)


def other_election(args) -> int:
    """Sheets of an edited election read with the set of the sample one: outcomes by code and page."""
    election, other = family_election(args.family), edited(args.family, args.other)
    table: Counter = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        import_templates(election, write_blanks(election, args.family, Path(tmp) / "b"), Path(tmp) / "set")
        reader = TemplateReader(str(Path(tmp) / "set"))
        for k in range(args.sheets):
            population, profile = ("stress", "realistic")[k % 2], "rough" if k % 4 == 3 else "default"
            for code, effects in (("scratched", PaperEffects(code_scratched=1.0)), ("as printed", PaperEffects())):
                images, truth = simulate_vendor_sheet(
                    other, args.family, k, args.seed, population=population, scan_profile=profile, effects=effects
                )
                for it, image in zip(truth["images"], images):  # scan order: a sheet may be fed back first
                    alike = _printed_alike(election, other, args.family, truth["style"], it["page"] - 1)
                    r = reader.read_image(election, image)
                    table[
                        (code, "printed alike" if alike else "prints otherwise", "read" if r.ok else r.reason_code)
                    ] += 1
    print(f"{args.family}, sheets of another election ({args.other}) read with the set of the sample election:")
    print("| code | the page | outcome | pages |\n|---|---|---|---|")
    for (code, alike, outcome), n in sorted(table.items()):
        print(f"| {code} | {alike} | {outcome} | {n} |")
    return 0


def _printed_alike(election, other, family: str, style: str, index: int) -> bool:
    """Whether the other election's page prints what the sample election's does (same contests' options,
    names and places: the page's layout and its contests' option names)."""
    a, b = ballot(election, style, family), ballot(other, style, family)
    pa, pb = a.ballot_layout().pages[index], b.ballot_layout().pages[index]
    if pa.to_dict() != pb.to_dict():
        return False
    ids = {t.contest_id for t in pa.targets}
    return all(election.contest(c) == other.contest(c) for c in ids)


if __name__ == "__main__":
    sys.exit(main())
