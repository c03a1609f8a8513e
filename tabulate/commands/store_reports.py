"""Reports read from the store: ``results``, ``cvr``, ``election-results``, ``unofficial``, ``manifest``.

Each opens an existing store (never creating one), takes the election the
store holds, and hands the store's ballot records to `tabulate.report`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .errors import UsageError


def _store_arguments(p: argparse.ArgumentParser, *, out_required: bool = False) -> None:
    p.add_argument("--db", required=True, metavar="FILE", help="the store written by `tabulate scan`")
    if out_required:
        p.add_argument("--out", required=True, type=Path, metavar="FILE", help="file to write")
    else:
        p.add_argument("-o", "--out", type=Path, metavar="FILE", help="write to this file instead of standard output")


def register(subparsers) -> None:
    r = subparsers.add_parser("results", help="results by contest and vote type, from the store",
                              description="Tally the counted sheets in the store: votes per option, overvotes, "
                                          "undervotes and ballots cast per vote type, and how many sheets still "
                                          "await review.")
    _store_arguments(r)
    r.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output (default table)")
    r.add_argument("--precinct", metavar="ID", help="one precinct (table only; default county-wide)")
    r.set_defaults(func=_results)

    c = subparsers.add_parser("cvr", help="cast vote records from the store (NIST SP 1500-103 JSON, or Dominion CSV)",
                              description="One cast vote record per sheet counted or awaiting review.")
    _store_arguments(c, out_required=True)
    c.add_argument("--format", choices=("nist", "dominion"), default="nist",
                   help="NIST SP 1500-103 JSON (default) or a Dominion-style CSV for risk-limiting audits")
    c.set_defaults(func=_cvr)

    e = subparsers.add_parser("election-results", help="NIST SP 1500-100 election results report from the store")
    _store_arguments(e, out_required=True)
    e.set_defaults(func=_election_results)

    u = subparsers.add_parser("unofficial", help="Kentucky unofficial results precinct by precinct (31 KAR 4:031)")
    _store_arguments(u)
    u.add_argument("--format", choices=("csv", "json"), default="csv", help="output (default csv)")
    u.set_defaults(func=_unofficial)

    m = subparsers.add_parser("manifest", help="ballot manifest for a risk-limiting audit (Arlo CSV)")
    _store_arguments(m, out_required=True)
    m.set_defaults(func=_manifest)


def _records(db: str):
    """The store's election and its ballot records (a list: several reports read them twice)."""
    from ..adjudicate import adjudicated_records
    from ..adjudicate.schema import connect
    from ..store import StoreError, open_store

    try:
        store = open_store(db, create=False)
    except StoreError as e:
        raise UsageError(str(e)) from None
    conn = connect(db)
    try:
        election = store.election()
        if election is None:
            raise UsageError(f"{db} holds no election yet; scan a batch first")
        # Adjudication decisions fold in here: each decided ballot's votes
        # become its `modified` snapshot and it counts; with no decisions this
        # is exactly the store's records.
        return election, list(adjudicated_records(store, conn))
    except StoreError as e:
        raise UsageError(str(e)) from None
    finally:
        conn.close()
        store.close()


def _log_export(db: str, what: str, out: Path | None) -> None:
    """Record an export in the adjudication audit log (31 KAR 4:220 recount trail)."""
    import getpass

    from ..adjudicate import auditlog
    from ..adjudicate.schema import connect, migrate

    conn = connect(db)
    try:
        migrate(conn)
        auditlog.append(conn, f"cli:{getpass.getuser()}", "export",
                        detail={"report": what, "to": str(out) if out else "stdout"})
    finally:
        conn.close()


def _write(text: str, out: Path | None) -> None:
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None
    print(f"wrote {out}", file=sys.stderr)


def _json(doc) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def _report(make):
    """Run a report; a record the reports refuse is a one-line error, not a traceback."""
    from ..report import ReportError

    try:
        return make()
    except ReportError as e:
        raise UsageError(f"cannot report: {e}") from None


def _results(args) -> int:
    from ..report import results_csv, results_json, results_table, tally_records

    election, records = _records(args.db)
    if args.precinct is not None and args.precinct not in {p.id for p in election.precincts}:
        raise UsageError(f"no precinct {args.precinct!r} in the store's election")
    tally = _report(lambda: tally_records(election, records))
    if args.format == "json":
        text = _json(results_json(tally))
    elif args.format == "csv":
        text = results_csv(tally)
    else:
        text = results_table(tally, precinct_id=args.precinct)
    _write(text, args.out)
    if args.out:
        _log_export(args.db, f"results-{args.format}", args.out)
    return 0


def _cvr(args) -> int:
    from ..report import cast_vote_record_report, dominion_cvr_csv

    election, records = _records(args.db)
    if args.format == "dominion":
        text = _report(lambda: dominion_cvr_csv(election, records))
    else:
        text = _json(_report(lambda: cast_vote_record_report(election, records)))
    _write(text, args.out)
    _log_export(args.db, "cvr", args.out)
    return 0


def _election_results(args) -> int:
    from ..report import election_results_report, tally_records

    election, records = _records(args.db)
    _write(_json(_report(lambda: election_results_report(tally_records(election, records)))), args.out)
    _log_export(args.db, "election-results", args.out)
    return 0


def _unofficial(args) -> int:
    from ..report import tally_records, unofficial_results, unofficial_results_csv

    election, records = _records(args.db)
    tally = _report(lambda: tally_records(election, records))
    _write(_json(unofficial_results(tally)) if args.format == "json" else unofficial_results_csv(tally), args.out)
    _log_export(args.db, "unofficial", args.out)
    return 0


def _manifest(args) -> int:
    from ..report import arlo_ballot_manifest_csv

    _election, records = _records(args.db)
    _write(_report(lambda: arlo_ballot_manifest_csv(records)), args.out)
    _log_export(args.db, "manifest", args.out)
    return 0
