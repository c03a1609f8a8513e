"""Every template-set page reading of a fixed batch, written out so two versions of the reader can be compared.

    python benchmarks/template_readings.py --sheets 40 --out after.jsonl
    python benchmarks/template_readings.py --sheets 40 --out after.jsonl --compare before.jsonl

For each family (boxes, timing, arrows) the blanks are imported into a set and
``--sheets`` sheets are simulated as `benchmarks/templates_accuracy.py`
simulates them (seed ``--seed``, "stress" and "realistic" voters taking turns,
one sheet in four with the "rough" scanner), and every page is read with
`tabulate.templates.TemplateReader`. One JSON line per page: its reading
(`PageReading.to_dict`) without the timings, and a sha256 of every field at
full precision (the transform, residual, levels, each target's score and
features to the last bit). A speed-up meant to change nothing must leave the
file byte-identical; ``--compare`` prints each page that differs and exits 1.
The last lines give one digest per family.

Run a copy of the old tree with this script copied into its ``benchmarks/`` to
get the "before" file.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
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
from tabulate.templates import TemplateReader, import_templates  # noqa: E402

FAMILIES = ("boxes", "timing", "arrows")


def _full(reading) -> str:
    """sha256 of every field of a reading but its timings, floats to the last bit (``repr``)."""
    fields = dataclasses.asdict(reading)
    fields.pop("timings_ms", None)
    return hashlib.sha256(repr(fields).encode()).hexdigest()


def family_lines(family: str, sheets: int, seed: int) -> list[str]:
    """One JSON line per page of ``sheets`` simulated sheets of ``family``, read with its imported set."""
    election = family_election(family)
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        import_templates(election, write_blanks(election, family, Path(tmp) / "b"), Path(tmp) / "set")
        reader = TemplateReader(str(Path(tmp) / "set"))
        for k in range(sheets):
            population = ("stress", "realistic")[k % 2]
            profile = "rough" if k % 4 == 3 else "default"
            images, _truth = simulate_vendor_sheet(
                election, family, k, seed, population=population, scan_profile=profile
            )
            for i, image in enumerate(images):
                reading = reader.read_image(election, image, source=f"{family}-{k}-{i}")
                doc = reading.to_dict()
                doc.pop("timings_ms", None)
                doc.pop("template_set", None)  # the set's digest names its folder's files, not the reading
                record = {"family": family, "sheet": k, "page": i, "full_sha256": _full(reading), "reading": doc}
                lines.append(json.dumps(record, sort_keys=True, separators=(",", ":")))
    return lines


#: Pages shown in full by `compare` whose outcome (reason, flags, every target's class) did not move.
SHOW = 5


def _classes_moved(da: dict, db: dict) -> list[str]:
    """Each target whose scanner or hand class moved, as one line (score before -> after)."""
    before = {(t["contest_id"], t["option_id"]): t for t in db.get("targets", [])}
    out = []
    for t in da.get("targets", []):
        o = before.get((t["contest_id"], t["option_id"]))
        if o is None or (o["scan"], o["hand"]) != (t["scan"], t["hand"]):
            was = "none" if o is None else f"{o['scan']}/{o['hand']} {o['score']}"
            out.append(f"{t['contest_id']} {t['option_id']}: {was} -> {t['scan']}/{t['hand']} {t['score']}")
    return out


def compare(new: list[str], old: list[str]) -> int:
    """Print each page whose line differs; 1 if any does (or the counts differ), else 0."""
    if len(new) != len(old):
        print(f"{len(new)} pages now, {len(old)} before")
        return 1
    moved, fields, shown = 0, Counter(), 0
    for a, b in zip(new, old):
        if a == b:
            continue
        moved += 1
        ra, rb = json.loads(a), json.loads(b)
        da, db = ra["reading"], rb["reading"]
        keys = sorted(k for k in set(da) | set(db) if da.get(k) != db.get(k))
        fields.update(keys or ["full precision only"])
        # Every page whose outcome moved (reason, flags, a target's class); the first few of the rest.
        outcome = [k for k in keys if k in ("reason_code", "flags", "style_id", "page")] or _classes_moved(da, db)
        if outcome or shown < SHOW:
            shown += 0 if outcome else 1
            print(f"{ra['family']} sheet {ra['sheet']} page {ra['page']}: {', '.join(keys) or 'full precision only'}")
            for k in [k for k in keys if k != "targets"][:4]:
                print(f"    {k}: {db.get(k)} -> {da.get(k)}")
            for line in _classes_moved(da, db):
                print(f"    {line}")
    print(f"{moved} of {len(new)} pages differ; fields moved: {dict(fields)}")
    return 1 if moved else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sheets", type=int, default=40)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--family", choices=FAMILIES, action="append", help="only these families (default: all)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--compare", type=Path, help="a file written by an earlier run: print what differs")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    lines = []
    for family in args.family or FAMILIES:
        got = family_lines(family, args.sheets, args.seed)
        digest = hashlib.sha256("\n".join(got).encode()).hexdigest()
        print(f"{family}: {len(got)} pages, digest {digest[:16]}", flush=True)
        lines.extend(got)
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    if args.compare:
        return compare(lines, args.compare.read_text(encoding="utf-8").splitlines())
    return 0


if __name__ == "__main__":
    sys.exit(main())
