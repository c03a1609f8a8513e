"""``tabulate samples make``: simulated voted, scanned ballots with a truth file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .errors import UsageError

#: The simulator's voter mixes and scanner profiles (`tabulate.ballots.voters.POPULATIONS`,
#: `tabulate.ballots.scanner.SCAN_PROFILES`; tests/test_cli_samples_names.py holds them equal). Named
#: here so that building the CLI's parser, which every command does, does not import the simulator
#: (numpy, OpenCV, Pillow: ~0.35 CPU s before any command ran; docs/perf.md, start-up).
POPULATION_NAMES = ("realistic", "varied", "clean", "stress")
SCAN_PROFILE_NAMES = ("default", "clean", "rough")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "samples",
        help="simulate voted, scanned ballots",
        description="Simulated voters and scanners, for tests, demos and benchmarks.",
    )
    sub = p.add_subparsers(dest="samples_command", metavar="ACTION")
    m = sub.add_parser(
        "make",
        help="write simulated scans and truth.json",
        description="Simulate voters marking ballots and a duplex scanner scanning them. Writes "
        "sheet-00001-front.<ext>, sheet-00001-back.<ext>, ... and truth.json (what each voter "
        "meant, every mark drawn, and the readings 31 KAR 6:030 expects; see docs/simulator.md). "
        "The same arguments give the same bytes.",
    )
    m.add_argument("election", help="election definition (election.json)")
    m.add_argument("--out", required=True, type=Path, help="folder to write into (created if missing)")
    m.add_argument("--ballots", type=int, required=True, metavar="N", help="number of sheets")
    m.add_argument("--seed", type=int, required=True, metavar="S", help="random seed (sheet k is the same for any N)")
    m.add_argument("--dpi", type=int, default=200, help="scan resolution (default 200)")
    m.add_argument(
        "--format",
        choices=("png", "jpeg", "tiff"),
        default="jpeg",
        help="image format of grayscale sheets (default jpeg); bitonal sheets are always G4 TIFF",
    )
    m.add_argument(
        "--bitonal-fraction", type=float, default=0.1, metavar="F", help="share of sheets scanned bitonal (default 0.1)"
    )
    m.add_argument(
        "--population",
        choices=POPULATION_NAMES,
        default="realistic",
        help="voter mix: realistic (default), clean (well-filled ovals only) or stress (every mark kind)",
    )
    m.add_argument(
        "--scan-profile",
        choices=SCAN_PROFILE_NAMES,
        default="default",
        help="scanner: default, clean (square, noiseless) or rough",
    )
    m.add_argument(
        "--family",
        choices=("boxes", "timing", "arrows"),
        help="ballots another vendor printed (issue #11): also writes their blank pages to "
        "OUT/blanks for `tabulate templates import`; --dpi and --bitonal-fraction are the design's",
    )
    m.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; output is the same)")
    m.add_argument("--force", action="store_true", help="replace scans already in --out")
    m.add_argument("--quiet", action="store_true", help="no progress bar")
    m.set_defaults(func=run_make)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def run_make(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from ..ballots.samples import SamplesError, write_samples
    from ..election import load_election

    if args.ballots < 1:
        raise UsageError(f"--ballots {args.ballots}: need at least one sheet")
    if not 50 <= args.dpi <= 600:
        raise UsageError(f"--dpi {args.dpi} is out of range (50 to 600)")
    if not 0.0 <= args.bitonal_fraction <= 1.0:
        raise UsageError(f"--bitonal-fraction {args.bitonal_fraction} is not between 0 and 1")
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: need at least one")
    election = load_election(args.election)
    if args.family:
        return _make_vendor(args, election)
    bar = tqdm(
        total=args.ballots, unit="sheet", file=sys.stderr, disable=True if args.quiet else None, desc="simulating"
    )
    try:
        doc = write_samples(
            election,
            args.out,
            args.ballots,
            args.seed,
            dpi=args.dpi,
            fmt=args.format,
            bitonal_fraction=args.bitonal_fraction,
            population=args.population,
            scan_profile=args.scan_profile,
            jobs=args.jobs,
            force=args.force,
            progress=bar.update,
        )
    except SamplesError as e:
        raise UsageError(str(e)) from None
    finally:
        bar.close()
    review = sum(s["needs_review"] for s in doc["sheets"])
    print(
        f"wrote {args.ballots} sheets ({2 * args.ballots} images) and truth.json to {args.out}; "
        f"{review} should go to a person"
    )
    return 0


def _make_vendor(args: argparse.Namespace, election) -> int:
    from ..ballots.vendor import DESIGNS, VendorLayoutError
    from ..ballots.vendor.write import write_vendor_samples
    from ..election import PAPER_SIZES_IN

    if PAPER_SIZES_IN[election.paper_size] != DESIGNS[args.family].paper_in:
        raise UsageError(
            f"the {args.family} family is printed on {DESIGNS[args.family].paper_in[0]} x "
            f"{DESIGNS[args.family].paper_in[1]} in paper; {args.election} says {election.paper_size}"
        )
    if args.out.exists() and any(args.out.glob("sheet-*")) and not args.force:
        raise UsageError(f"{args.out} already holds simulated scans; choose another folder or pass --force")
    try:
        doc = write_vendor_samples(
            election,
            args.family,
            args.out,
            args.ballots,
            args.seed,
            population=args.population,
            scan_profile=args.scan_profile,
            fmt=args.format,
        )
    except VendorLayoutError as e:
        raise UsageError(str(e)) from None
    review = sum(s["needs_review"] for s in doc["sheets"])
    print(
        f"wrote {args.family} blanks to {args.out / 'blanks'}, {args.ballots} sheets and truth.json to "
        f"{args.out}; {review} should go to a person"
    )
    return 0
