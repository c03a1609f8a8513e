"""``tabulate recanvass``: re-derive the totals from the stored sheets and compare with the last unofficial report."""

from __future__ import annotations

import argparse
from pathlib import Path

from .errors import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "recanvass",
        help="recanvass: retabulate the stored sheets and compare with the unofficial results (4:071)",
        description="Re-derive each precinct's totals from the stored sheet records (31 KAR 4:071 Section "
        "4(1)(a): retabulating from zero, not from saved tallies), compare them with the last "
        "snapshot `tabulate unofficial` kept, list every difference, say for each race whether a "
        "recanvass request would be sufficient (margin under 1 %, KRS 117.305(1)), and write the "
        "report (text and an SBE 49A-like PDF). Exit status 1 if any number differs.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the store written by `tabulate scan`")
    p.add_argument("--contest", action="append", metavar="ID", help="only this office (repeatable; 4:071 §3)")
    p.add_argument("--precinct", action="append", metavar="ID", help="only this precinct (repeatable)")
    p.add_argument("--out", type=Path, metavar="DIR", help="write recanvass.txt and recanvass-sbe49a.pdf here")
    p.add_argument(
        "--unverified",
        action="store_true",
        help="recanvass even if the store does not verify (the report then says so)",
    )
    p.set_defaults(func=run_recanvass)


def run_recanvass(args: argparse.Namespace) -> int:
    from ..audit.recanvass import last_snapshot, recanvass
    from ..audit.recanvass_report import recanvass_text, sbe49a_form
    from ..report import tally_records
    from ..report.pdf import write_form
    from ..store import StoreError, open_store
    from .store_reports import _log_export, _records, _report

    election, records = _records(args)
    known_c = {c.id for c in election.contests}
    known_p = {p.id for p in election.precincts}
    for c in args.contest or ():
        if c not in known_c:
            raise UsageError(f"no contest {c!r} in the store's election")
    for p in args.precinct or ():
        if p not in known_p:
            raise UsageError(f"no precinct {p!r} in the store's election")
    try:
        store = open_store(args.db, create=False)
        try:
            snapshot = last_snapshot(store)
        finally:
            store.close()
    except StoreError as e:
        raise UsageError(str(e)) from None
    if snapshot is None:
        raise UsageError(
            f"{args.db} has no unofficial results to recanvass: run `tabulate unofficial --db "
            f"{args.db}` first (each run keeps a dated snapshot)"
        )
    tally = _report(lambda: tally_records(election, records))
    result = recanvass(tally, snapshot, contests=args.contest, precincts=args.precinct)
    text = recanvass_text(result)
    print(text)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "recanvass.txt").write_text(text, encoding="utf-8")
        write_form(sbe49a_form(result), args.out / "recanvass-sbe49a.pdf")
        print(f"wrote {args.out / 'recanvass.txt'} and {args.out / 'recanvass-sbe49a.pdf'}")
        _log_export(args.db, "recanvass", args.out, getattr(args, "gate", None))
    return 1 if result.differences else 0
