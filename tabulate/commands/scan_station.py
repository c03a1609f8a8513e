"""``tabulate scan --watch DIR --batch-per-folder``: a station that reads tub after tub with its readers kept up."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..election import Election
from .errors import UsageError

_INTERRUPTED = "tabulate: interrupted; the sheets read so far are recorded. Run the same command again to carry on."


def _check(args: argparse.Namespace) -> None:
    if args.watch is None:
        raise UsageError("--batch-per-folder goes with --watch DIR (the folder the tubs' folders are made in)")
    if not args.batch_per_folder:
        raise UsageError("--done-file goes with --watch DIR --batch-per-folder")
    if args.batch is not None:
        raise UsageError("with --batch-per-folder each tub's batch is named after its folder; give no --batch")
    if args.paths:
        raise UsageError("--watch DIR follows one folder; give no other PATH")
    if args.done_file is not None and (not args.done_file.strip() or "/" in args.done_file):
        raise UsageError(f"--done-file {args.done_file!r}: give a file name, such as batch.done")
    if args.cluster is not None and not args.cluster.startswith(("local:", "tcp://", "tls://")):
        raise UsageError(f"--cluster {args.cluster!r}: give local:N or a scheduler address tcp://HOST:PORT")


def _tubs(args: argparse.Namespace):
    from ..central.tubs import DONE_MARKER, TubFolders

    try:
        return TubFolders(args.watch, marker=args.done_file or DONE_MARKER, until_idle=args.until_idle)
    except OSError as e:
        raise UsageError(str(e)) from None


def _hot_folder(args: argparse.Namespace, marker: str):
    from ..central import HotFolder
    from ..central.tubs import SETTINGS_FILE

    settle = {} if args.settle is None else {"settle": args.settle}
    not_pages = frozenset({SETTINGS_FILE})
    return lambda folder: HotFolder(folder, simplex=args.simplex, done_marker=marker, not_pages=not_pages, **settle)


def _print_tub(store):
    from ..central.report import format_summary, format_warnings
    from ..central.vanish import batch_warnings

    def show(summary) -> None:
        print(format_summary(summary), flush=True)
        warnings = format_warnings(batch_warnings(store, [summary.batch]))
        if warnings:
            print(warnings, flush=True)

    return show


def run_station_command(args: argparse.Namespace, election: Election, document: dict) -> int:
    """Run the station until --until-idle or Ctrl-C; every tub's summary as it is recorded, then the station's."""
    from ..central.cluster import ClusterError
    from ..central.pipeline import ReadersUnavailable, start_readers
    from ..central.station import Station, run_station
    from ..central.tubs import DONE_MARKER, TubSettings
    from ..store import StoreError
    from ..store.batch_lock import batch_lock
    from .scan import open_bound_store

    _check(args)
    tubs = _tubs(args)
    interpreter = {}
    if args.templates:
        from ..central.interpret import TemplateInterpreter
        from .templates import reader_for

        # One line now if the folder is not a template set, or lacks a style (templates_incomplete).
        reader_for(Path(args.templates), election, allow_missing=args.allow_missing_styles)
        interpreter = {"interpreter": TemplateInterpreter(str(Path(args.templates).resolve()))}
    elif args.cluster is None:
        from ..central import layouts_cache
        from ..central.readers_start import start_early

        start_early(election)  # the readers' preload runs on the other core while the store opens
        layouts_cache.ensure(election)  # the workers load every page's sample points from it (built once)
    store = open_bound_store(args.db, election, document)
    readers = None
    try:
        readers = start_readers(election, workers=args.workers, cluster=args.cluster, **interpreter)
        station = Station(
            store,
            election,
            readers,
            TubSettings(args.vote_type, args.precinct, args.operator),
            lock_for=lambda name: batch_lock(args.db, store, name),
            hot_folder=_hot_folder(args, args.done_file or DONE_MARKER),
            tabulator=args.tabulator,
            simplex=args.simplex,
            progress=not args.no_progress,
        )
        print(f"tabulate: station up; reading each tub under {tubs.root} once it holds {tubs.marker}", flush=True)
        try:
            summary = run_station(station, tubs, on_tub=_print_tub(store))
        except KeyboardInterrupt:  # before the station was up (run_station returns its summary on Ctrl-C)
            print(_INTERRUPTED, file=sys.stderr)
            return 130
        except ReadersUnavailable as e:
            print(f"tabulate: {e}; the sheets read so far are recorded", file=sys.stderr)
            return 1
    except (ClusterError, StoreError) as e:
        raise UsageError(f"{e}; the sheets recorded before are safe: fix this and run the same command again") from None
    finally:
        if readers is not None:
            readers.close()
        store.close()
    print(format_station(summary), flush=True)
    if summary.interrupted:
        print(_INTERRUPTED, file=sys.stderr)
        return 130
    return 0 if not (summary.refused or summary.loose) else 1


def format_station(summary) -> str:
    """The station's last lines: tubs read, passed over, refused, and still waiting for their marker."""
    read = sum(s.sheets_read for s in summary.batches)
    stop = "; stopped by Ctrl-C" if summary.interrupted else ""
    lines = [f"Station: {len(summary.batches)} tub(s) read ({read} sheets){stop}"]
    if summary.already:
        lines.append(f"  already recorded (closed, every sheet in the store): {', '.join(summary.already)}")
    for name, why in summary.refused:
        lines.append(f"  REFUSED {name}: {why}")
    if summary.stopped_in is not None:
        lines.append(
            f"  STOPPED (Ctrl-C) in the middle of {summary.stopped_in}: the sheets read so far are recorded, "
            "its batch stays open; run the same command again to finish it"
        )
    if summary.open:
        names = ", ".join(Path(p).name for p in summary.open)
        lines.append(f"  waiting for their done marker (nothing of them recorded yet): {names}")
    if summary.loose:
        lines.append(
            f"  NOT READ: {len(summary.loose)} page file(s) directly in the station's folder, in no tub's folder "
            f"(move them into a tub's folder): {', '.join(Path(p).name for p in summary.loose[:5])}"
        )
    return "\n".join(lines)
