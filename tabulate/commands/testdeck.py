"""``tabulate test-deck make`` and ``tabulate test-deck check``: the accuracy test of 31 KAR 2:020."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "test-deck",
        help="accuracy-test deck: make it, then check the count (31 KAR 2:020)",
        description="The accuracy test of 31 KAR 2:020: a deck of marked test ballots "
        "for every ballot style with its tally sheet, and the errorless-test "
        "check.",
    )
    sub = p.add_subparsers(dest="deck_command", metavar="ACTION")
    m = sub.add_parser(
        "make",
        help="write the test deck (PDF and scans) and its tally sheet",
        description="For every ballot style, write a deck of marked ballots meeting 31 KAR 2:020 "
        "Section 3(4) (a vote for every option, an overvote in every contest, "
        "undervotes, a straight-party vote for each party, a write-in on every "
        "write-in line; every option of a contest a different total) as a printable "
        "PDF and as scanned images, and the tally sheet with the predetermined results. "
        "Same inputs, same bytes.",
    )
    m.add_argument("election", help="election definition (election.json)")
    m.add_argument("--out", required=True, type=Path, metavar="DIR", help="folder to write into (new or empty)")
    m.add_argument("--style", action="append", metavar="ID", help="only this ballot style (repeatable)")
    m.add_argument(
        "--misprint-swap",
        metavar="CONTEST:A:B",
        help="print the deck with the targets of options A and B swapped, to prove the check fails",
    )
    m.add_argument(
        "--misprint-move",
        metavar="CONTEST:OPTION",
        help="print the deck with one option's target moved 0.3 in right, to prove the check fails",
    )
    m.set_defaults(func=run_make)

    c = sub.add_parser(
        "check",
        help="scan the deck into a test store and compare with the tally sheet",
        description="Scan the deck through the central count into a new test store (never the "
        "election's), compare every option's count with the tally sheet, and write "
        "the printout (text and PDF; PASS only if every number matches), the "
        "accuracy-test checklist and an SBE 16-like certificate. Exit status 1 on FAIL.",
    )
    c.add_argument("--election", required=True, metavar="ELECTION.json", help="the election definition")
    c.add_argument("--deck", required=True, type=Path, metavar="DIR", help="the folder `test-deck make` wrote")
    c.add_argument(
        "--out", type=Path, metavar="DIR", help="where to write the test store and the printouts (default DIR/check)"
    )
    c.add_argument("--workers", type=int, metavar="N", help="reader processes (default: every core)")
    c.add_argument("--no-progress", action="store_true", help="no progress bar")
    c.set_defaults(func=run_check)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _misprint(args):
    from ..audit.testdeck import Misprint

    if args.misprint_swap and args.misprint_move:
        raise UsageError("give --misprint-swap or --misprint-move, not both")
    if args.misprint_swap:
        parts = args.misprint_swap.split(":")
        if len(parts) != 3 or not all(parts):
            raise UsageError(f"--misprint-swap wants CONTEST:A:B, not {args.misprint_swap!r}")
        return Misprint(parts[0], parts[1], parts[2])
    if args.misprint_move:
        parts = args.misprint_move.split(":")
        if len(parts) != 2 or not all(parts):
            raise UsageError(f"--misprint-move wants CONTEST:OPTION, not {args.misprint_move!r}")
        return Misprint(parts[0], parts[1], move_in=(0.3, 0.0))
    return None


def run_make(args: argparse.Namespace) -> int:
    from ..audit.testdeck import DeckError, make_deck
    from ..audit.testdeck.design import TallySheet
    from ..audit.testdeck.forms import tally_sheet_form, tally_sheet_text
    from ..report.pdf import write_form
    from .scan import load_election_one_line

    election, _doc = load_election_one_line(args.election)
    misprint = _misprint(args)
    if args.out.exists() and any(args.out.iterdir()):
        raise UsageError(f"{args.out} is not empty; give a new or empty folder to --out")
    try:
        manifest = make_deck(election, args.out, styles=args.style, misprint=misprint)
    except DeckError as e:
        raise UsageError(str(e)) from None
    tallies = {s: TallySheet.from_dict(e["tally_sheet"]) for s, e in manifest["styles"].items()}
    text = tally_sheet_text(election, tallies)
    (args.out / "tally-sheet.txt").write_text(text, encoding="utf-8")
    write_form(tally_sheet_form(election, tallies), args.out / "tally-sheet.pdf")
    for s, e in manifest["styles"].items():
        print(
            f"style {s}: {len(e['ballots'])} ballots -> {args.out / e['folder'] / 'deck.pdf'} and "
            f"{args.out / e['folder'] / 'scans'}"
        )
    if misprint is not None:
        print(f"MISPRINTED on purpose: {misprint.describe()}; `test-deck check` must FAIL", file=sys.stderr)
    print(f"tally sheet: {args.out / 'tally-sheet.txt'} and {args.out / 'tally-sheet.pdf'}")
    print(f"next: tabulate test-deck check --election {args.election} --deck {args.out}")
    return 0


def run_check(args: argparse.Namespace) -> int:
    from ..audit.testdeck import TEST_STORE, DeckError, findings, load_manifest, scan_deck
    from ..audit.testdeck.forms import certificate_form, checklist_form, printout_form, printout_text
    from ..report.pdf import write_form
    from .scan import load_election_one_line

    election, document = load_election_one_line(args.election)
    out = args.out or args.deck / "check"
    try:
        manifest = load_manifest(args.deck, election)
        result = scan_deck(
            election, document, args.deck, manifest, out, workers=args.workers, progress=not args.no_progress
        )
    except DeckError as e:
        raise UsageError(str(e)) from None
    text = printout_text(election, result, store_path=str(out / TEST_STORE))
    (out / "printout.txt").write_text(text, encoding="utf-8")
    write_form(printout_form(election, result), out / "printout.pdf")
    write_form(checklist_form(election, result), out / "checklist.pdf")
    write_form(certificate_form(election, result), out / "certificate-sbe16.pdf")
    print(f"accuracy test: {result.verdict}")
    for line in findings(result, election):
        print(f"  {line}")
    print(
        f"printout: {out / 'printout.txt'}, {out / 'printout.pdf'}; checklist: {out / 'checklist.pdf'}; "
        f"certificate: {out / 'certificate-sbe16.pdf'}"
    )
    return 0 if result.passed else 1
