"""Report commands that need no store: ``tabulate zero-file``.

The result, CVR and audit exports read ballot records from the store; they are
wired here once the store exists (see `tabulate.report`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..election import load_election
from ..report import zero_file, zero_file_csv


def _write(text: str, output: Path | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


def _zero_file(args) -> int:
    election = load_election(args.election)
    if args.format == "json":
        text = json.dumps(zero_file(election), indent=1, ensure_ascii=False) + "\n"
    else:
        text = zero_file_csv(election)
    _write(text, args.output)
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "zero-file",
        help="write the zero-file for the State Board (31 KAR 2:010)",
        description="Every contest and question in certified order, precinct by precinct, with zero votes for "
        "mail-in absentee, excused in-person absentee, no-excuse in-person absentee and election day "
        "ballots (31 KAR 2:010 Section 1(11)).",
    )
    p.add_argument("--election", required=True, type=Path, metavar="E", help="election.json")
    p.add_argument("--format", choices=("csv", "json"), default="csv", help="output format (default csv)")
    p.add_argument("-o", "--output", type=Path, help="write to this file instead of standard output")
    p.set_defaults(func=_zero_file)
