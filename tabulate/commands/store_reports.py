"""Reports read from the store: ``results``, ``cvr``, ``election-results``, ``unofficial``, ``manifest``.

Each opens an existing store (never creating one), verifies it first (the
fast check of `tabulate verify`: the journal and every sealed row) and
refuses a store that does not verify in one line, unless ``--unverified``,
which the report then says on itself. It takes the election the store holds
and hands the store's ballot records to `tabulate.report`. A report written
to a file gets a manifest beside it (``<file>.manifest.json``: its SHA-256,
the store's head, the software version), signed with ``--key``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .errors import UsageError


def _store_arguments(p: argparse.ArgumentParser, *, out_required: bool = False, final: bool = False) -> None:
    p.add_argument("--db", required=True, metavar="FILE", help="the store written by `tabulate scan`")
    p.add_argument(
        "--unverified", action="store_true", help="report even if the store does not verify (the report then says so)"
    )
    p.add_argument(
        "--key",
        type=Path,
        metavar="FILE",
        default=os.environ.get("TABULATE_SIGNING_KEY") or None,
        help="the county's Ed25519 private key (`tabulate keys make`) to sign the export's manifest "
        "(default $TABULATE_SIGNING_KEY)",
    )
    if out_required:
        p.add_argument("--out", required=True, type=Path, metavar="FILE", help="file to write")
    else:
        p.add_argument("-o", "--out", type=Path, metavar="FILE", help="write to this file instead of standard output")
    if final:
        p.add_argument(
            "--final",
            action="store_true",
            help="refuse while any sheet awaits review (without it the export is provisional, and says so)",
        )


def register(subparsers) -> None:
    r = subparsers.add_parser(
        "results",
        help="results by contest and vote type, from the store",
        description="Tally the counted sheets in the store: votes per option, overvotes, "
        "undervotes and ballots cast per vote type, and how many sheets still "
        "await review.",
    )
    _store_arguments(r, final=True)
    r.add_argument("--format", choices=("table", "csv", "json"), default="table", help="output (default table)")
    r.add_argument("--precinct", metavar="ID", help="one precinct (table only; default county-wide)")
    r.set_defaults(func=_results)

    c = subparsers.add_parser(
        "cvr",
        help="cast vote records from the store (NIST SP 1500-103 JSON, or Dominion CSV)",
        description="One cast vote record per sheet counted or awaiting review.",
    )
    _store_arguments(c, out_required=True, final=True)
    c.add_argument(
        "--format",
        choices=("nist", "dominion"),
        default="nist",
        help="NIST SP 1500-103 JSON (default) or a Dominion-style CSV for risk-limiting audits",
    )
    c.set_defaults(func=_cvr)

    e = subparsers.add_parser("election-results", help="NIST SP 1500-100 election results report from the store")
    _store_arguments(e, out_required=True, final=True)
    e.set_defaults(func=_election_results)

    u = subparsers.add_parser("unofficial", help="Kentucky unofficial results precinct by precinct (31 KAR 4:031)")
    _store_arguments(u)
    u.add_argument("--format", choices=("csv", "json"), default="csv", help="output (default csv)")
    u.set_defaults(func=_unofficial)

    m = subparsers.add_parser(
        "manifest",
        help="ballot manifest for a risk-limiting audit (Arlo CSV)",
        description="One row per batch, counting every sheet of paper in it (set-aside "
        "sheets included), with Arlo's counting-group labels.",
    )
    _store_arguments(m, out_required=True, final=True)
    m.add_argument("--hybrid", action="store_true", help="add the CVR (Y/N) column Arlo's hybrid audits need")
    m.set_defaults(func=_manifest)


def _records(args, *, set_aside: bool = False):
    """Verify the store, then its election and its ballot records (a list: several reports read them twice).

    With ``set_aside``, also the sheets of paper that carry no votes (`SetAsideSheet`, for the audit exports).
    """
    from ..adjudicate import adjudicated_records
    from ..adjudicate.records import DecisionRowError
    from ..adjudicate.schema import connect
    from ..store import StoreError, open_store
    from .verify import gate

    db = args.db
    args.gate = gate(db, unverified=args.unverified)
    try:
        store = open_store(db, create=False)
    except StoreError as e:
        raise UsageError(str(e)) from None
    _can_log_export(args, store)
    conn = connect(db)
    try:
        election = store.election()
        if election is None:
            raise UsageError(f"{db} holds no election yet; scan a batch first")
        # Adjudication decisions fold in here: each decided ballot's votes
        # become its `modified` snapshot and it counts; with no decisions this
        # is exactly the store's records.
        records = list(adjudicated_records(store, conn))
        if not set_aside:
            return election, records
        return election, records, _set_aside(store, {(r.tabulator, r.batch, r.position) for r in records})
    except (StoreError, DecisionRowError) as e:
        raise UsageError(str(e)) from None
    finally:
        conn.close()
        store.close()


def _can_log_export(args, store) -> None:
    """Refuse before writing anything when the export's journal entry could not be signed (a signed store
    and no station key): not after the file is written."""
    from ..store.journal_signing import current_signer

    if getattr(args, "out", None) is None and getattr(args, "command", "") == "results":
        return  # results on the screen are not logged
    problem = store.signing_problem(current_signer())
    if problem is not None:
        store.close()
        raise UsageError(f"{args.db}: {problem} (an export may sign its entry with --key county.key)")


def _set_aside(store, record_places) -> list:
    """The rejected sheets still set aside: paper in their batch with no votes (a duplicate is no paper)."""
    from ..report import SetAsideSheet

    out = []
    for sheet in store.sheets(status="rejected"):
        place = (sheet.batch.tabulator, sheet.batch.name, sheet.position)
        if place in record_places:  # entered by hand in review: a record now
            continue
        out.append(
            SetAsideSheet(
                sheet.batch.name,
                sheet.position,
                sheet.batch.vote_type,
                sheet.reasons[0].code if sheet.reasons else "set_aside",
                sheet.precinct_id or "",
                sheet.batch.tabulator,
            )
        )
    return out


def _provisional(args, records) -> int:
    """How many sheets await review, said on stderr; with ``--final`` any at all is a one-line refusal."""
    from ..report import awaiting_review

    pending = awaiting_review(records)
    if pending and getattr(args, "final", False):
        raise UsageError(
            f"{pending} sheet(s) still await review; --final exports only when every sheet is "
            f"decided (tabulate review serve --db {args.db})"
        )
    if pending:
        print(
            f"tabulate: provisional: {pending} sheet(s) await review; this export holds the machine's reading "
            f"of them (--final refuses instead)",
            file=sys.stderr,
        )
    return pending


def _log_export(db: str, what: str, out: Path | None, gate=None) -> None:
    """Record an export in the journal (31 KAR 4:220 recount trail), with the head it was made from."""
    import getpass

    from ..adjudicate import auditlog
    from ..adjudicate.schema import connect, migrate

    detail = {"report": what, "to": str(out) if out else "stdout"}
    if gate is not None:
        detail.update(verified=gate.verified, head=gate.head_hash)
    conn = connect(db)
    try:
        migrate(conn)
        auditlog.append(conn, f"cli:{getpass.getuser()}", "export", detail=detail)
    finally:
        conn.close()


def _marked(text: str, args, fmt: str) -> str:
    """The report text, saying on itself that it was made from a store that does not verify."""
    gate = getattr(args, "gate", None)
    if gate is None or gate.verified:
        return text
    if fmt == "json":
        doc = json.loads(text)
        doc = {"UNVERIFIED": gate.banner, **doc} if isinstance(doc, dict) else doc
        return _json(doc)
    return f"# {gate.banner}\n{text}"


def _write(text: str, out: Path | None, args=None, report: str = "") -> None:
    if out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {out}: {e.strerror or e}") from None
    print(f"wrote {out}", file=sys.stderr)
    if args is not None and getattr(args, "gate", None) is not None:
        _sign(out, args, report)


def _sign(out: Path, args, report: str) -> None:
    """Write the export's manifest beside it, signed when a key is given."""
    from .. import __version__
    from ..report.manifest import ManifestError, write_manifest

    try:
        path = write_manifest(
            [out],
            report=report,
            head=(args.gate.head_seq, args.gate.head_hash),
            verified=args.gate.verified,
            software=f"tabulate {__version__}",
            key_path=args.key,
        )
    except ManifestError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {path}" + ("" if args.key else " (unsigned: no --key)"), file=sys.stderr)


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

    election, records = _records(args)
    if args.precinct is not None and args.precinct not in {p.id for p in election.precincts}:
        raise UsageError(f"no precinct {args.precinct!r} in the store's election")
    _provisional(args, records)
    tally = _report(lambda: tally_records(election, records))
    if args.format == "json":
        text = _json(results_json(tally))
    elif args.format == "csv":
        text = results_csv(tally)
    else:
        text = results_table(tally, precinct_id=args.precinct) + _recount_flags(tally)
    _write(_marked(text, args, args.format), args.out, args, f"results-{args.format}")
    if args.out:
        _log_export(args.db, f"results-{args.format}", args.out, args.gate)
    return 0


def _recount_list(tally) -> list[dict]:
    """KRS 120.157(1): the races whose margin calls for an automatic recount."""
    from ..audit.margins import race_margin

    out = []
    for ct in tally.contests:
        m = race_margin(ct.contest, ct.counts())
        if m is not None and m.automatic_recount:
            out.append(
                {
                    "contest": ct.contest.id,
                    "title": ct.contest.title,
                    "office": ct.contest.office,
                    "defeated": m.first_defeated,
                    "margin": m.margin,
                    "votes_cast": m.votes_cast,
                }
            )
    return out


def _recount_flags(tally) -> str:
    """The automatic recounts as lines under the results table."""
    lines = [
        f"AUTOMATIC RECOUNT (KRS 120.157(1)): {r['title']} [{r['contest']}]: {r['defeated']} defeated by "
        f"{r['margin']} of {r['votes_cast']} votes cast ({100 * r['margin'] / r['votes_cast']:.3f} % <= 0.5 %)"
        for r in _recount_list(tally)
    ]
    return ("\n" + "\n".join(lines) + "\n") if lines else ""


def _cvr(args) -> int:
    from ..report import cast_vote_record_report, dominion_cvr_csv

    election, records, set_aside = _records(args, set_aside=True)
    _provisional(args, records)
    if args.format == "dominion":
        text = _report(lambda: dominion_cvr_csv(election, records, set_aside))
    else:
        text = _json(_report(lambda: cast_vote_record_report(election, records)))
    _write(_marked(text, args, "csv" if args.format == "dominion" else "json"), args.out, args, f"cvr-{args.format}")
    _log_export(args.db, "cvr", args.out, args.gate)
    return 0


def _election_results(args) -> int:
    from ..report import election_results_report, tally_records

    election, records = _records(args)
    _provisional(args, records)
    text = _json(_report(lambda: election_results_report(tally_records(election, records))))
    _write(_marked(text, args, "json"), args.out, args, "election-results")
    _log_export(args.db, "election-results", args.out, args.gate)
    return 0


def _unofficial(args) -> int:
    from ..report import tally_records, unofficial_results, unofficial_results_csv

    election, records = _records(args)
    tally = _report(lambda: tally_records(election, records))
    text = _json(unofficial_results(tally)) if args.format == "json" else unofficial_results_csv(tally)
    _write(_marked(text, args, args.format), args.out, args, f"unofficial-{args.format}")
    _log_export(args.db, "unofficial", args.out, args.gate)
    _snapshot(args.db, tally)
    return 0


def _snapshot(db: str, tally) -> None:
    """Keep a dated snapshot of what was reported, for the recanvass (31 KAR 4:071, KRS 117.305)."""
    import getpass

    from ..audit.recanvass import record_snapshot
    from ..store import StoreError, open_store

    try:
        store = open_store(db, create=False)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        record_snapshot(store, tally, actor=f"cli:{getpass.getuser()}")
    finally:
        store.close()


def _manifest(args) -> int:
    from ..report import arlo_ballot_manifest_csv

    _election, records, set_aside = _records(args, set_aside=True)
    _provisional(args, records)
    text = _report(lambda: arlo_ballot_manifest_csv(records, set_aside, hybrid=args.hybrid))
    _write(_marked(text, args, "csv"), args.out, args, "manifest")
    _log_export(args.db, "manifest", args.out, args.gate)
    return 0
