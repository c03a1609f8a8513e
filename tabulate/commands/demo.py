"""``tabulate demo``: the whole central count on the shipped samples, in one command.

Renders the sample elections' blank ballots, scans the sample ballots
(``samples/general/scans/``) end to end into a new store, and prints the
results, the review queue by reason, and where everything was written.

An installed package cannot see the repository, so the samples are looked
for in the current folder and its parents, then beside the package (a source
checkout or an editable install). When the election is found but its scans
are not, they are simulated into the output folder first.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from .errors import UsageError

#: Sheets simulated when the shipped scans are not there, and their seed.
DEMO_SHEETS = 24
DEMO_SEED = 2028
DEMO_BATCH = "demo-election-day"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "demo",
        help="render, scan and count the sample ballots end to end",
        description="Render the sample elections' blank ballots, scan the sample ballots into a new store, and "
        "print the results, the review queue and where the files are.",
    )
    p.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="write everything into DIR (default: a new folder in the system's temporary folder)",
    )
    p.add_argument("--workers", type=int, metavar="N", help="reader processes (default: every core)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run_demo)


def find_samples(start: Path | None = None) -> Path | None:
    """The ``samples`` folder holding ``general/election.json``: in ``start`` or a parent, else beside the package."""
    start = (start or Path.cwd()).resolve()
    candidates = [d / "samples" for d in (start, *start.parents)]
    candidates.append(Path(__file__).resolve().parents[2] / "samples")
    for c in candidates:
        if (c / "general" / "election.json").is_file():
            return c
    return None


def _out_dir(keep: Path | None) -> Path:
    if keep is None:
        return Path(tempfile.mkdtemp(prefix="tabulate-demo-"))
    try:
        keep.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot write to {keep}: {e.strerror or e}") from None
    if any(keep.iterdir()):
        raise UsageError(f"{keep} is not empty; give a new or empty folder to --keep")
    return keep


def render_blank_ballots(election_path: Path, out: Path) -> int:
    """Write every style's blank ballot (one precinct each) as PNG pages; return the number of files."""
    from ..election import load_election
    from ..election.layout import layout_style
    from ..election.render import png_bytes, render_sheet

    election = load_election(election_path)
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    for style in election.ballot_styles:
        precinct = style.precincts[0]
        for page, image in enumerate(render_sheet(election, layout_style(election, style.id), precinct), 1):
            (out / f"style-{style.id}-{precinct}-page-{page}.png").write_bytes(png_bytes(image, 200))
            written += 1
    return written


def _scans(samples: Path, out: Path) -> tuple[Path, bool]:
    """The general election's scans, simulating them into ``out`` if none were shipped."""
    shipped = samples / "general" / "scans"
    if shipped.is_dir() and any(
        p.suffix.lower() in (".jpg", ".jpeg", ".png", ".tif", ".tiff") for p in shipped.iterdir()
    ):
        return shipped, False
    from ..ballots.samples import write_samples
    from ..election import load_election

    target = out / "scans"
    print(f"no scans in {shipped}; simulating {DEMO_SHEETS} sheets into {target}", file=sys.stderr)
    write_samples(
        load_election(samples / "general" / "election.json"),
        target,
        DEMO_SHEETS,
        DEMO_SEED,
        jobs=min(4, os.cpu_count() or 1),
    )
    return target, True


def run_demo(args: argparse.Namespace) -> int:
    from ..central import ScanPlan, run_batch
    from ..central.report import format_summary
    from ..report import results_table, tally_records
    from ..store.journal_signing import signing_as
    from ..store.records import ballot_records
    from .scan import load_election_one_line, open_bound_store

    samples = find_samples()
    if samples is None:
        raise UsageError(
            "cannot find the samples (samples/general/election.json); run the demo from the ballot-tabulate folder"
        )
    out = _out_dir(args.keep)
    elections = sorted(samples.glob("*/election.json"))
    ballots = sum(render_blank_ballots(e, out / "ballots" / e.parent.name) for e in elections)
    scans, simulated = _scans(samples, out)

    election_path = samples / "general" / "election.json"
    election, document = load_election_one_line(str(election_path))
    db = out / "demo.db"
    with signing_as(demo_keys(out / "keys", db)):
        store = open_bound_store(str(db), election, document)
        try:
            batch = store.open_batch(DEMO_BATCH, "election_day", operator="demo")
            summary = run_batch(
                store, election, batch, ScanPlan([scans]), workers=args.workers, progress=not args.no_progress
            )
            tally = tally_records(election, ballot_records(store))
            flagged = list(store.sheets(status="needs_review"))
        finally:
            store.close()

    print(results_table(tally))
    print(format_summary(summary))
    print()
    print(format_queue_head(election, flagged))
    print()
    print("Where the files are")
    print(f"  blank ballots   {out / 'ballots'}  ({ballots} PNG pages, one precinct per style)")
    print(f"  scans read      {scans}" + ("  (simulated for this demo)" if simulated else ""))
    print(f"  the store       {db}")
    print(f"  keys            {out / 'keys'}  (this demo's county and station keys: never commit them)")
    print()
    print("Next")
    print(f"  tabulate status --db {db}")
    print(f"  tabulate verify --db {db} --images")
    print(f"  tabulate results --db {db} --format csv")
    print(f"  tabulate cvr --db {db} --out cvr.json --key {out / 'keys' / 'county.key'}")
    print(f"  tabulate verify --db {db} --against cvr.json.manifest.json")
    if flagged:
        print(f'  tabulate explain --db {db} "{flagged[0].label}"')
    return 0


def demo_keys(folder: Path, db: Path):
    """Make the demo's county and station keys in ``folder`` and register the station in a new store at ``db``.

    A real county makes its key once (``tabulate keys make``) and keeps it off
    the counting machine; the demo makes both beside its store, where every
    command run on that store finds the station key (``keys/station.key``),
    so the README's commands work on it unchanged. They are made on each run,
    never shipped: a key in a repository signs for anyone.
    """
    from ..core.keys import KeyFileError, make_key_pair
    from ..store import StoreError, open_store
    from ..store.journal_signing import Signer

    try:
        folder.mkdir(parents=True, exist_ok=True)
        county_key, _ = make_key_pair(folder, "county")
        station_key, _ = make_key_pair(folder, "station")
        county, station = Signer.from_file(county_key), Signer.from_file(station_key)
        store = open_store(db)
    except (KeyFileError, StoreError, OSError) as e:
        raise UsageError(f"cannot make the demo's keys in {folder}: {e}") from None
    try:
        store.register_station("demo-station", station.public_key, county=county, actor="demo")
    finally:
        store.close()
    return station


def format_queue_head(election, flagged, limit: int = 5) -> str:
    """The first lines of the review queue: where each ballot is, and why, in the review app's words."""
    from ..core.vocabulary import reason_words

    queued = set(election.adjudication.reasons)
    lines = [f"The review queue: {len(flagged)} sheet(s)" + (f", the first {limit}" if len(flagged) > limit else "")]
    for sheet in flagged[:limit]:
        where: dict[str, list[str]] = {}
        for r in sheet.reasons:
            if r.code in queued:
                titles = where.setdefault(reason_words(r.code), [])
                title = election.contest(r.contest_id).title if r.contest_id else ""
                if title and title not in titles:
                    titles.append(title)
        why = [
            words + (f" ({titles[0]})" if len(titles) == 1 else f" in {len(titles)} contests" if titles else "")
            for words, titles in where.items()
        ]
        lines.append(f"  {sheet.label:<24} " + "; ".join(why))
    return "\n".join(lines)
