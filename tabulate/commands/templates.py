"""``tabulate templates import``: template sets from blank ballots we did not print (issue #11)."""

from __future__ import annotations

import sys
from pathlib import Path

from .errors import UsageError

#: ``--allow-missing-styles``'s help: what a person takes on by passing it.
ALLOW_MISSING_HELP = (
    "read with a template set that lacks pages of some of the election's ballot styles (refused without it: "
    "templates_incomplete). RISK: a page of a missing style is read as the nearest imported style and its "
    "marks are counted for that style's contests, a wrong vote; pass it only when no ballot of those styles "
    "is in the pile"
)


def add_missing_styles_option(p) -> None:
    """``--allow-missing-styles`` for the commands that read with ``--templates DIR`` (`read`, `scan`)."""
    p.add_argument("--allow-missing-styles", action="store_true", help=ALLOW_MISSING_HELP)


def add_moved_set_option(p, *, when: str = "") -> None:
    """``--templates DIR`` (repeatable) for commands that re-read stored sheets (`recount`, `verify --images`).

    Each sheet read with a template set names it in its evidence and the journal records its folder;
    the option is only for a set that has moved since (`tabulate.central.recorded`).
    """
    p.add_argument(
        "--templates",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help=f"a template set some sheets were scanned with{when}, if it moved since (default: where the store "
        "recorded it); repeatable",
    )


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "templates",
        help="make template sets from blank ballots another vendor printed",
        description="Read ballots we did not print: import their blank pages into a "
        "template set that `read --templates` and `scan --templates` use.",
    )
    sub = p.add_subparsers(dest="templates_command", metavar="ACTION")
    m = sub.add_parser(
        "import",
        help="blank pages (images or PDF) -> a template set with proof pictures",
        description="Find every target on each blank page, group them into contests, give "
        "them the election's options in reading order, and write the layout JSON "
        "and a proof PNG per page. Stops, naming the page and contest, when a "
        "contest's target count differs from the election.",
    )
    m.add_argument("blanks", nargs="+", type=Path, metavar="BLANK", help="blank pages: PNG, JPEG, TIFF or PDF")
    m.add_argument("--election", required=True, type=Path, help="election.json")
    m.add_argument("--out", required=True, type=Path, metavar="DIR", help="the template set's folder")
    m.add_argument(
        "--map",
        type=Path,
        metavar="MAP.json",
        help="a person's overrides: page style/number, ignored drawings, targets assigned by hand",
    )
    m.set_defaults(func=run_import)
    s = sub.add_parser(
        "split-sides",
        help="images holding a sheet's front and back side by side -> one image a side",
        description="Write each half of every image that holds two pages side by side (as some scanners "
        "export a sheet) as an image of its own, NAME-front.png (left) and NAME-back.png (right), with "
        "split-sides.csv naming each half's original and its SHA-256. Then scan or read the folder.",
    )
    s.add_argument("images", nargs="+", type=Path, metavar="IMAGE", help="scanned images (PNG, JPEG, TIFF)")
    s.add_argument("--templates", required=True, type=Path, metavar="DIR", help="the set the sheets are read with")
    s.add_argument("--out", required=True, type=Path, metavar="DIR", help="the folder the halves go to")
    s.set_defaults(func=run_split_sides)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_import(args) -> int:
    from ..election import load_election
    from ..templates import TemplateError, import_templates

    election = load_election(args.election)
    try:
        tset = import_templates(election, list(args.blanks), args.out, args.map)
    except TemplateError as e:
        raise UsageError(str(e)) from None
    for p in tset.pages:
        code = f", code {p.code.kind} {p.code.text!r}" if p.code else ", no code (identified by matching)"
        if p.watermark_in2:  # a sample ballot's: the proof shows what is left
            code += f"; a grey watermark left out ({p.watermark_in2:.1f} sq in: the voted scans must not show it)"
        print(
            f"{p.source}: style {p.style_id} page {p.page}, {len(p.layout.targets)} targets, "
            f"{len(p.layout.contest_boxes)} contests{code}; proof {args.out / (p.key + '-proof.png')}"
        )
    print(f"blank level {tset.blank_level:.3f}; thresholds marginal {tset.marginal:.3f}, definite {tset.definite:.3f}")
    _say_missing(election, tset)
    return 0


def _say_missing(election, tset) -> None:
    """One stderr line per style page the set lacks: `read`/`scan --templates` will refuse the set until then."""
    from ..templates import missing_pages

    missing = missing_pages(election, tset)
    for m in missing:
        print(f"tabulate: the set lacks {m}: import its blank", file=sys.stderr)
    if missing:
        print(
            f"tabulate: the set is incomplete ({len(missing)} missing): read and scan refuse it "
            "(templates_incomplete) unless given --allow-missing-styles",
            file=sys.stderr,
        )


def run_split_sides(args) -> int:
    from ..templates.sides import MANIFEST, split_files

    reader = reader_for(args.templates)
    papers = sorted({(p.layout.width_in, p.layout.height_in) for p in reader.tset.pages})
    result = split_files(list(args.images), args.out, papers)
    print(f"{len(result.written)} images written to {args.out} ({args.out / MANIFEST} names each one's original)")
    if result.refused:
        first, why = result.refused[0]
        raise UsageError(
            f"{len(result.refused)} images were not split and not written (first: {first}: {why}); "
            "read them as they are"
        )
    return 0


def reader_for(folder: Path | None, election=None, *, allow_missing: bool = False):
    """The `TemplateReader` for ``--templates DIR`` (None without it); one line if the folder is not a set.

    Given the ``election`` it will read for, the set must have been imported for it (its hash,
    `tabulate.templates.bound`: else ``templates_wrong_election``) and hold every page of every ballot style
    (`tabulate.templates.coverage`, 31 KAR 6:030 Section 2(1)(a): a mark counts for the name next to it, on
    the voter's own ballot): else ``templates_incomplete``, or with ``allow_missing`` a warning on stderr.
    """
    if folder is None:
        return None
    from ..templates import (
        TemplateError,
        TemplateReader,
        TemplatesIncomplete,
        TemplatesWrongElection,
        check_complete,
        check_election,
    )

    try:
        reader = TemplateReader(str(folder))
        if election is not None:
            check_election(election, reader.tset)  # 31 KAR 2:010 Section 2(4): this election's set, no other
        missing = () if election is None else check_complete(election, reader.tset, allow_missing=allow_missing)
    except (TemplatesIncomplete, TemplatesWrongElection) as e:
        raise UsageError(f"{folder}: {e}", code=e.code) from None
    except TemplateError as e:
        raise UsageError(str(e)) from None
    if missing:
        print(
            f"tabulate: warning: {folder} lacks {'; '.join(m.where for m in missing)}: a page of those styles "
            "would be read as the nearest imported style (--allow-missing-styles)",
            file=sys.stderr,
        )
    return reader


def record_set(store, reader, *, batch_id: int | None = None) -> None:
    """Write the set ``reader`` reads with into the store's journal, once: review, explain and
    ``scores`` then find each page's template in the store (`tabulate.templates.recorded`)."""
    from ..templates import JOURNAL_KIND, recorded_sets

    tset = reader.tset
    if tset.digest in recorded_sets(e for e in store.journal() if e.kind == JOURNAL_KIND):
        return
    store.log(JOURNAL_KIND, batch_id=batch_id, data=tset.journal_data())
