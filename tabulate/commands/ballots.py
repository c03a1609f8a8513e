"""``tabulate ballots render``: the blank ballots of an election, as images or a printable PDF, with their layouts."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .errors import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser("ballots", help="render blank ballots", description="Blank ballots of an election.")
    sub = p.add_subparsers(dest="ballots_command", metavar="ACTION")
    r = sub.add_parser(
        "render",
        help="render every style's blank pages for each precinct it serves",
        description="For each ballot style and each precinct it serves, write the blank front and back "
        "(PNG images, or one printable two-page PDF), and the style's layout as JSON "
        "(every target, marking area and write-in area in page inches). "
        "Same inputs, same bytes.",
    )
    r.add_argument("election", help="election definition (election.json)")
    r.add_argument("--out", required=True, type=Path, help="folder to write into (created if missing)")
    r.add_argument("--dpi", type=int, default=200, help="dots per inch (default 200; 300 or 600 to print)")
    r.add_argument("--format", choices=("png", "pdf"), default="png", help="page images or a PDF per precinct")
    r.add_argument("--style", action="append", metavar="ID", help="only this style (repeatable)")
    r.set_defaults(func=run_render)
    p.set_defaults(func=lambda args: _help(p))


def _help(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def file_names(style_id: str, precinct_id: str, fmt: str) -> list[str]:
    """The files written for one style and precinct: two PNG pages or one PDF."""
    if fmt == "pdf":
        return [f"style-{style_id}-{precinct_id}.pdf"]
    return [f"style-{style_id}-{precinct_id}-page-{page}.png" for page in (1, 2)]


def run_render(args: argparse.Namespace) -> int:
    from ..election import load_election
    from ..election.layout import LayoutError, layout_style
    from ..election.render import pdf_bytes, png_bytes, render_sheet

    if not 10 <= args.dpi <= 1200:
        raise UsageError(f"--dpi {args.dpi} is out of range (10 to 1200)")
    election = load_election(args.election)
    known = [s.id for s in election.ballot_styles]
    for sid in args.style or ():
        if sid not in known:
            raise UsageError(f"no ballot style {sid!r} in {args.election} (styles: {', '.join(known)})")
    out: Path = args.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot write to {out}: {e.strerror or e}") from None
    if not out.is_dir():
        raise UsageError(f"cannot write to {out}: not a folder")

    written = 0
    for style in election.ballot_styles:
        if args.style and style.id not in args.style:
            continue
        try:
            layout = layout_style(election, style.id)
        except LayoutError as e:
            raise UsageError(str(e)) from None
        files = {
            f"style-{style.id}-layout.json": (json.dumps(layout.to_dict(), indent=1, ensure_ascii=False) + "\n").encode(
                "utf-8"
            )
        }
        for precinct in style.precincts:
            pages = render_sheet(election, layout, precinct, dpi=args.dpi)
            names = file_names(style.id, precinct, args.format)
            if args.format == "pdf":
                files[names[0]] = pdf_bytes(pages, args.dpi)
            else:
                files.update({n: png_bytes(p, args.dpi) for n, p in zip(names, pages)})
        for name, data in files.items():
            try:
                (out / name).write_bytes(data)
            except OSError as e:
                raise UsageError(f"cannot write {out / name}: {e.strerror or e}") from None
            written += 1
    print(f"wrote {written} files to {out}")
    return 0
