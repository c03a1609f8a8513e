"""``tabulate scan`` (central count of a batch into the store) and ``tabulate status``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..election import VOTE_TYPES, Election, ElectionError, load_election
from ..store import Store, StoreError, open_store
from ..store.batch_lock import batch_lock
from .errors import UsageError
from .station_keys import add_station_key_option
from .templates import add_missing_styles_option


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "scan",
        help="read a batch of scanned ballots into the store, each sheet exactly once",
        description="Read scanned sheets (files, folders, multi-page TIFFs; pairing rules in docs/scanning.md) "
        "on every core and record each one in the store: counted, needing review, or set aside "
        "with a reason. Re-running a batch, or resuming one that was interrupted, adds only the "
        "sheets not yet recorded.",
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="image files or folders of them, in feed order (or image URLs read through fsspec: s3://..., gs://...)",
    )
    p.add_argument(
        "--watch",
        metavar="DIR",
        help="follow a scanner's hot folder: record each sheet once its pages "
        "are complete, until Ctrl-C or --until-idle",
    )
    p.add_argument(
        "--batch-per-folder",
        action="store_true",
        help="with --watch: a station that stays up all evening; each sub-folder of DIR is a tub, "
        "read as a batch named after it once the scanner writes its done marker (docs/scale.md)",
    )
    p.add_argument(
        "--done-file",
        metavar="NAME",
        help="with --batch-per-folder: the file that says a tub is finished (default: batch.done)",
    )
    p.add_argument(
        "--until-idle",
        type=_seconds,
        metavar="SECONDS",
        help="with --watch: stop once nothing in the folder has changed for this long",
    )
    p.add_argument(
        "--settle",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="with --watch: how long a page file must stay unchanged to be taken (default: 2)",
    )
    p.add_argument(
        "--cluster",
        metavar="local:N|tcp://HOST:PORT",
        help="read on a Dask cluster: local:N starts N local workers; tcp://... joins a running "
        "scheduler (docs/scale.md)",
    )
    p.add_argument("--election", required=True, metavar="ELECTION.json", help="the election definition")
    p.add_argument(
        "--db",
        required=True,
        metavar="FILE|URL",
        help="the store: a SQLite file (created if missing) or postgresql://user@host/dbname",
    )
    p.add_argument(
        "--batch",
        metavar="NAME",
        help="the batch's name (a tub, a box, a day); required unless --batch-per-folder",
    )
    p.add_argument(
        "--vote-type",
        required=True,
        choices=VOTE_TYPES,
        metavar="TYPE",
        help=f"the batch's vote type: {', '.join(VOTE_TYPES)}",
    )
    p.add_argument("--precinct", metavar="ID", help="the precinct, when the batch holds one precinct's ballots")
    p.add_argument("--workers", type=_positive, metavar="N", help="reader processes (default: every core)")
    p.add_argument("--operator", metavar="NAME", help="who is scanning (kept in the event log)")
    p.add_argument("--tabulator", default="1", metavar="ID", help="the scanner or station (default: 1)")
    p.add_argument(
        "--templates",
        metavar="DIR",
        help="read with a template set (ballots another vendor printed; `tabulate templates import`)",
    )
    add_missing_styles_option(p)
    p.add_argument("--simplex", action="store_true", help="each page is a sheet of its own (no back pages)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_station_key_option(p)
    p.set_defaults(func=run_scan)

    s = subparsers.add_parser(
        "status",
        help="list the store's batches and how every sheet was accounted for",
        description="List the batches in a store with their sheets counted, needing "
        "review, set aside and duplicated, and check the event log.",
    )
    s.add_argument("--db", required=True, metavar="FILE", help="the store")
    s.add_argument("--json", action="store_true", help="print JSON instead of a table")
    s.set_defaults(func=run_status)


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def _seconds(text: str) -> float:
    try:
        n = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not n >= 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return n


def _plan(args: argparse.Namespace):
    """The sheets to read: a `ScanPlan` of PATHS, or a `HotFolder` with --watch."""
    from ..central import HotFolder, ScanPlan, SourceError

    if args.watch is None:
        if args.until_idle is not None or args.settle is not None:
            raise UsageError("--until-idle and --settle go with --watch DIR")
        if not args.paths:
            raise UsageError("name the scanned images (PATH...) or a hot folder to follow (--watch DIR)")
        try:
            plan = ScanPlan(args.paths, simplex=args.simplex)
        except (SourceError, OSError) as e:
            raise UsageError(str(e)) from None
        if len(plan) == 0:
            raise UsageError(
                "no scanned pages in "
                + ", ".join(args.paths)
                + (f" ({len(plan.ignored)} file(s) without an image suffix ignored)" if plan.ignored else "")
            )
        return plan
    if args.paths:
        raise UsageError("--watch DIR follows one folder; give no other PATH")
    settle = {} if args.settle is None else {"settle": args.settle}
    try:
        return HotFolder(args.watch, simplex=args.simplex, until_idle=args.until_idle, **settle)
    except OSError as e:
        raise UsageError(str(e)) from None


def load_election_one_line(path: str) -> tuple[Election, dict]:
    """The election and its document; every problem as one `UsageError` line."""
    try:
        election = load_election(path)
    except ElectionError as e:
        first = str(e.problems[0]) if e.problems else str(e)
        more = f" (and {len(e.problems) - 1} more problem(s))" if len(e.problems) > 1 else ""
        raise UsageError(f"{path}: cannot use the election definition: {first}{more}") from None
    return election, json.loads(Path(path).read_text(encoding="utf-8"))


def open_bound_store(db: str, election: Election, document: dict) -> Store:
    """Open (or create) the store for ``election``; one `UsageError` line if it cannot be used."""
    from .station_keys import station_problem

    try:
        store = open_store(db)
    except StoreError as e:
        raise UsageError(str(e)) from None
    problem = station_problem(store)  # before anything is written: refuse now, not at the first sheet
    if problem is not None:
        store.close()
        raise UsageError(f"{db}: {problem}")
    try:
        store.bind_election(election, document)
    except StoreError as e:
        store.close()
        raise UsageError(str(e)) from None
    return store


def run_scan(args: argparse.Namespace) -> int:
    from ..central import run_batch
    from ..central.cluster import ClusterError
    from ..central.pipeline import ReadersUnavailable
    from ..central.report import format_summary, format_warnings
    from ..central.vanish import batch_warnings

    election, document = load_election_one_line(args.election)
    if args.precinct is not None and args.precinct not in {p.id for p in election.precincts}:
        raise UsageError(f"no precinct {args.precinct!r} in {args.election}")
    if args.batch_per_folder or args.done_file is not None:
        from .scan_station import run_station_command

        return run_station_command(args, election, document)
    if args.batch is None or not args.batch.strip():
        raise UsageError("the batch needs a name (--batch NAME), or give --watch DIR --batch-per-folder")
    if args.cluster is not None and not args.cluster.startswith(("local:", "tcp://", "tls://")):
        raise UsageError(f"--cluster {args.cluster!r}: give local:N or a scheduler address tcp://HOST:PORT")
    if args.cluster is None and not args.templates:
        from ..central.readers_start import start_early

        # Once the election is loaded, before the batch is listed: the readers' forkserver imports the reader
        # and warms this election's layouts on the other core while this process lists the batch (reading
        # every TIFF's page directory: 0.06-0.1 s for 400 G4 sheets) and opens the store (docs/perf.md).
        start_early(election)  # a no-op when `tabulate.cli` started it before parsing
        from ..central import layouts_cache

        # The first scan of this election here builds every page's sample points and keeps them, signed;
        # later ones check the signature (a few ms) and their workers load them (docs/perf.md, branch cold).
        layouts_cache.ensure(election)
    plan = _plan(args)
    interpreter = {}
    template_reader = None
    if args.templates:
        from ..central.interpret import TemplateInterpreter
        from .templates import reader_for

        # One line now if the folder is not a template set, or lacks a style (templates_incomplete).
        template_reader = reader_for(Path(args.templates), election, allow_missing=args.allow_missing_styles)
        interpreter = {"interpreter": TemplateInterpreter(str(Path(args.templates).resolve()))}
    store = open_bound_store(args.db, election, document)
    lock = batch_lock(args.db, store, args.batch)
    try:
        try:
            lock.acquire()  # before the batch is opened: a refused scan changes nothing
            batch = store.open_batch(
                args.batch, args.vote_type, precinct_id=args.precinct, operator=args.operator, tabulator=args.tabulator
            )
        except StoreError as e:
            raise UsageError(str(e)) from None
        if template_reader is not None:
            from .templates import record_set

            record_set(store, template_reader, batch_id=batch.id)
        try:
            summary = run_batch(
                store,
                election,
                batch,
                plan,
                workers=args.workers,
                cluster=args.cluster,
                progress=not args.no_progress,
                **interpreter,
            )
        except KeyboardInterrupt:
            print(
                f"tabulate: interrupted; the sheets read so far are recorded. Run the same command again "
                f"to finish batch {args.batch!r}.",
                file=sys.stderr,
            )
            return 130
        except ClusterError as e:
            raise UsageError(str(e)) from None
        except ReadersUnavailable as e:
            print(f"tabulate: {e}; the sheets read so far are recorded", file=sys.stderr)
            return 1
        except StoreError as e:
            raise UsageError(
                f"{e}; the sheets recorded before are safe: fix this and run the same command again"
            ) from None
        print(format_summary(summary))
        warnings = format_warnings(batch_warnings(store, [batch]))
        if warnings:
            print(warnings)
    finally:
        lock.release()
        store.close()
    return 0


def run_status(args: argparse.Namespace) -> int:
    from ..central.report import format_status, status_dict
    from ..central.vanish import batch_warnings

    try:
        store = open_store(args.db, create=False)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        try:
            election = store.election()
        except StoreError as e:
            raise UsageError(str(e)) from None
        counts = _with_decisions(store, store.batch_counts())
        try:
            events, chain = store.verify_events(), None
        except StoreError as e:
            events, chain = None, str(e)
        head = store.journal_head()
        warnings = batch_warnings(store, [c.batch for c in counts])
        if args.json:
            print(json.dumps(status_dict(store.path, election, counts, events, chain, head, warnings), indent=1))
        else:
            print(format_status(store.path, election, counts, events, chain, head, warnings))
    finally:
        store.close()
    return 0 if chain is None else 1


def _with_decisions(store, counts):
    """Fold adjudication's decisions into the counts, as `tabulate results` does (no tables: unchanged)."""
    from ..adjudicate.records import adjudicated_counts
    from ..store.sqldb import connect_readonly

    conn = connect_readonly(store.location)
    try:
        return adjudicated_counts(store, conn, counts)
    finally:
        conn.close()
