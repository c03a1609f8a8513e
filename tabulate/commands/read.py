"""``tabulate read``: read scanned ballot images and print what was read.

Pairing rule: the files' pages are taken in the order given (a multi-page
TIFF contributes its pages in order) and paired consecutively, first with
second, third with fourth, and so on; each pair is one sheet, its pages in
either order (a duplex scanner's front/back output). A last odd page is a
sheet by itself, accepted only when the style's other side has no targets.
Exit status 0 when every sheet was read, 1 when any was rejected.
"""

from __future__ import annotations

import json
from pathlib import Path

from .errors import UsageError
from .templates import add_missing_styles_option


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "read",
        help="read scanned ballot images (PNG, JPEG, TIFF) and print the marks",
        description=__doc__.split("\n\n")[0],
    )
    p.add_argument("images", nargs="+", type=Path, help="page images; consecutive pages pair into sheets")
    p.add_argument("--election", required=True, type=Path, help="election.json")
    p.add_argument(
        "--templates",
        type=Path,
        metavar="DIR",
        help="read with a template set (ballots another vendor printed; `tabulate templates import`)",
    )
    add_missing_styles_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON document with every sheet's reading")
    p.add_argument(
        "--annotate",
        type=Path,
        metavar="DIR",
        help="write each page with its targets outlined (green marked, orange marginal, grey unmarked)",
    )
    p.set_defaults(func=run)


def _sheet_text(n: int, sheet) -> list[str]:
    head = f"sheet {n}: ballot {sheet.ballot_id}"
    if not sheet.ok:
        return [f"{head}: REJECTED ({sheet.reason_code}) {sheet.reason}"]
    lines = [
        f"{head}: style {sheet.style_id}, precinct {sheet.precinct_id}"
        + (f" [{', '.join(sheet.flags)}]" if sheet.flags else "")
    ]
    for p in sheet.pages:
        counts = {c: sum(t.scan == c for t in p.targets) for c in ("marked", "marginal")}
        lines.append(
            f"  page {p.page} ({Path(p.source).name}{f' #{p.index + 1}' if p.index else ''}): "
            f"rotation {p.rotation}, skew {p.skew_deg:+.2f} deg, residual {p.residual_in:.4f} in, "
            f"{p.dpi:.0f} dpi; {counts['marked']} marked, {counts['marginal']} marginal"
            + (f" [{', '.join(p.flags)}]" if p.flags else "")
        )
        for t in p.targets:
            if t.scan != "unmarked" or t.hand != "unmarked":
                hand = "" if t.hand == t.scan else f" (hand count: {t.hand})"
                lines.append(f"    {t.contest_id} / {t.option_id}: {t.scan} {t.score:.2f}{hand}")
    return lines


def run(args) -> int:
    import cv2

    from ..detect.annotate import annotate_page
    from ..detect.read import pair_pages, read_file
    from ..election import load_election
    from .templates import reader_for

    election = load_election(args.election)
    reader = reader_for(args.templates, election, allow_missing=args.allow_missing_styles)
    for path in args.images:
        if not path.exists():
            raise UsageError(f"no such image: {path}")
    if args.annotate:
        args.annotate.mkdir(parents=True, exist_ok=True)
    pages = []
    for path in args.images:
        for reading, image in read_file(election, path, reader=reader):
            pages.append(reading)
            if args.annotate and image is not None:
                name = f"{path.stem}{f'-{reading.index + 1}' if reading.index else ''}.png"
                cv2.imwrite(
                    str(args.annotate / name), annotate_page(election, image, reading, _layout(reader, reading))
                )
    sheets = [pair_pages(election, pages[i : i + 2], reader=reader) for i in range(0, len(pages), 2)]
    if args.json:
        from ..detect.read import sheet_marks
        from ..rules import marks_to_dict

        # "ballots" holds the marks of every sheet read, in the marks format (docs/marks.md), so this
        # document can be given as it is to `tabulate votes --marks`.
        ballots = [marks_to_dict(sheet_marks(s)) for s in sheets if s.ok]
        print(
            json.dumps(
                {"election": election.hash_prefix, "sheets": [s.to_dict() for s in sheets], "ballots": ballots},
                indent=1,
            )
        )
    else:
        for n, sheet in enumerate(sheets, 1):
            print("\n".join(_sheet_text(n, sheet)))
    return 0 if all(s.ok for s in sheets) else 1


def _layout(reader, reading):
    """The template page's layout for an annotation (None: our own layout)."""
    if reader is None or not reading.ok:
        return None
    p = reader.tset.page_for(reading.style_id, reading.page)
    return None if p is None else p.layout
