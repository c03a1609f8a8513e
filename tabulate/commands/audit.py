"""``tabulate audit``: the hand-to-eye audit (KRS 117.383(8), 31 KAR 4:230) on the command line.

select -> sheets -> enter (twice, again until the tallies match) -> tape (optional) -> compare
-> determine / sign -> report; ``annotate`` after signing. Every step is in the audit log.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import contextmanager
from pathlib import Path

from .errors import UsageError


def _common(p: argparse.ArgumentParser, *, audit: bool = True) -> None:
    p.add_argument("--db", required=True, metavar="FILE", help="the store written by `tabulate scan`")
    if audit:
        p.add_argument("--audit", required=True, type=int, metavar="ID", help="the audit's number (from `select`)")


def register(subparsers) -> None:
    top = subparsers.add_parser(
        "audit",
        help="hand-to-eye audit: select, tally sheets, two tallies, compare, findings",
        description="The post-election hand-to-eye audit of KRS 117.383(8) and 31 KAR 4:230.",
    )
    sub = top.add_subparsers(dest="audit_command", metavar="STEP")
    top.set_defaults(func=lambda a: (top.print_help(), 2)[1])

    s = sub.add_parser("select", help="choose the scanner and race from a public seed, or record the announced ones")
    _common(s, audit=False)
    s.add_argument("--seed", help="the public random seed (for example 20 dice digits rolled in public)")
    s.add_argument("--tabulator", help="the scanner the Secretary of State announced")
    s.add_argument("--contest", help="the race (contest id) the Secretary of State announced")
    s.add_argument("--by", default="cli", metavar="NAME", help="who records the selection (for the log)")
    s.set_defaults(func=_select)

    p = sub.add_parser("sheets", help="print the tally sheets (like SBE 90), retrieval list and board's prediction")
    _common(p)
    p.add_argument("--out", required=True, type=Path, metavar="DIR", help="folder for the PDF")
    p.set_defaults(func=_sheets)

    e = sub.add_parser("enter", help="enter one counter's tally (a CSV of option,votes, or asked option by option)")
    _common(e)
    e.add_argument("--counter", required=True, metavar="NAME", help="the poll worker who counted")
    e.add_argument("--party", required=True, metavar="PARTY", help="their party (one of the election's)")
    e.add_argument("--file", type=Path, metavar="CSV", help="option,votes lines (option id or name); omit to type them")
    e.set_defaults(func=_enter)

    t = sub.add_parser("tape", help="enter the scanner's tally tape: typed CSV, or another vendor's CVR")
    _common(t)
    t.add_argument("--file", required=True, type=Path, metavar="FILE")
    t.add_argument(
        "--format",
        choices=("csv", "dominion", "nist"),
        default="csv",
        help="csv: option,votes (default); dominion: a Dominion CVR export; nist: NIST SP 1500-103 JSON",
    )
    t.add_argument("--by", default="cli", metavar="NAME")
    t.set_defaults(func=_tape)

    for name, what in (
        ("predict", "the ballots a hand count should read differently, before the count"),
        ("compare", "hand against machine and tape, and the differences explained"),
    ):
        c = sub.add_parser(name, help=what)
        _common(c)
        c.add_argument("--json", action="store_true", help="print the audit as JSON")
        c.set_defaults(func=_show, what=name)

    for name, what in (
        ("determine", "record a determination of the county board"),
        ("annotate", "add a note (allowed after signing)"),
        ("sign", "a board member signs: from then on the audit can only be annotated"),
    ):
        d = sub.add_parser(name, help=what)
        _common(d)
        d.add_argument("--member", required=True, metavar="NAME")
        d.add_argument("--party", default="", metavar="PARTY")
        if name != "sign":
            d.add_argument("--text", required=True)
        d.set_defaults(func=_finding, kind=name)

    r = sub.add_parser("report", help="the determinations and findings (like SBE 91) as PDF, and the same as JSON")
    _common(r)
    r.add_argument("--out", required=True, type=Path, metavar="FILE", help="the PDF (the JSON is written beside it)")
    r.add_argument("--crops", action="store_true", help="also write an image of the race on each listed ballot")
    r.set_defaults(func=_report)

    ls = sub.add_parser("list", help="the audits in the store")
    _common(ls, audit=False)
    ls.set_defaults(func=_list)


@contextmanager
def _opened(db: str):
    from ..adjudicate.schema import connect
    from ..audit.handeye import migrate
    from ..store import StoreError, open_store

    try:
        store = open_store(db, create=False)
    except StoreError as e:
        raise UsageError(str(e)) from None
    conn = connect(db)
    try:
        if store.election() is None:
            raise UsageError(f"{db} holds no election yet; scan a batch first")
        migrate(conn)
        yield store, conn
    finally:
        conn.close()
        store.close()


@contextmanager
def _user_errors():
    from ..audit.handeye import AuditError, SelectionError, TallyError

    try:
        yield
    except (AuditError, SelectionError, TallyError) as e:
        raise UsageError(str(e)) from None
    except KeyError as e:
        raise UsageError(f"not in this election: {e}") from None


def _select(args) -> int:
    from ..audit.handeye import start_audit

    if args.seed is None and (args.tabulator is None or args.contest is None):
        raise UsageError("give --seed SEED, or --tabulator T and --contest C as the Secretary of State announced")
    with _opened(args.db) as (store, conn), _user_errors():
        audit, sel = start_audit(
            store,
            conn,
            actor=args.by,
            seed=args.seed,
            tabulator=None if args.seed else args.tabulator,
            contest_id=None if args.seed else args.contest,
        )
        title = store.election().contest(sel.contest_id).title
    print(f"hand-to-eye audit {audit.id}: scanner {sel.tabulator}, race {sel.contest_id} ({title})")
    if sel.method == "seed":
        print(
            f"  drawn from seed {sel.seed!r}: index = int(sha256(f'{{seed}},{{counter}}'), 16) % n, "
            "counter 1 for the scanner, 2 for the race"
        )
    else:
        print("  as announced by the Secretary of State")
    print(f"  scanners chosen from ({len(sel.tabulators)}): {', '.join(sel.tabulators)}")
    print(f"  races on scanner {sel.tabulator} ({len(sel.races)}): {', '.join(sel.races)}")
    print(f"next: tabulate audit sheets --db {args.db} --audit {audit.id} --out DIR")
    return 0


def _sheets(args) -> int:
    from ..adjudicate import auditlog
    from ..audit.handeye import audit_state
    from ..audit.handeye.forms import write_audit_sheets
    from ..audit.handeye.workbench import retrieval_list

    with _opened(args.db) as (store, conn), _user_errors():
        state = audit_state(store, conn, args.audit)
        path = write_audit_sheets(state, retrieval_list(store, state.sheets), args.out)
        auditlog.append(conn, "cli", "handeye_sheets", detail={"audit": args.audit, "file": path.name})
    print(f"wrote {path}: two tally sheets, the retrieval list and the board's prediction ({state.pile} ballots)")
    return 0


def _ask_counts(contest) -> list[tuple[str, str]]:
    print(f"{contest.title}: type each option's total", file=sys.stderr)
    out = []
    for o in contest.options:
        try:
            out.append((o.id, input(f"  {o.label}: ").strip()))
        except EOFError:
            raise UsageError("input ended before every option had a count") from None
    return out


def _enter(args) -> int:
    from ..audit.handeye import enter_tally
    from ..audit.handeye.book import get_audit
    from ..audit.handeye.tallies import read_counts_csv

    with _opened(args.db) as (store, conn), _user_errors():
        contest = store.election().contest(get_audit(conn, args.audit).contest_id)
        if args.file is not None:
            counts = read_counts_csv(contest, args.file.read_text(encoding="utf-8"), what=str(args.file))
        else:
            counts = _ask_counts(contest)
        attempt = enter_tally(
            store, conn, args.audit, counter=args.counter, party=args.party, counts=counts, actor=args.counter
        )
        labels = {o.id: o.label for o in contest.options}
    print(f"attempt {attempt.number}: tally of {args.counter} recorded")
    if not attempt.complete:
        print("  waiting for the second counter (of another party)")
    elif attempt.matched:
        print("  the two tallies match")
    else:
        print("  the two tallies DIFFER on: " + ", ".join(labels[o] for o in attempt.differences))
        print(f"  recount the pile; both counters enter again (attempt {attempt.number + 1})")
        return 1
    return 0


def _tape(args) -> int:
    from ..audit.handeye import read_tape
    from ..audit.handeye.book import add_tape, get_audit

    with _opened(args.db) as (store, conn), _user_errors():
        audit = get_audit(conn, args.audit)
        contest = store.election().contest(audit.contest_id)
        text = args.file.read_text(encoding="utf-8-sig")
        counts = read_tape(contest, text, args.format, tabulator=None if args.format == "csv" else audit.tabulator)
        add_tape(conn, args.audit, f"{args.format}: {args.file.name}", counts, actor=args.by)
    print("tally tape recorded: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def _show(args) -> int:
    from ..audit.handeye import audit_state
    from ..audit.handeye.text import describe_comparison, describe_prediction

    with _opened(args.db) as (store, conn), _user_errors():
        state = audit_state(store, conn, args.audit)
    if args.json:
        print(json.dumps(state.to_dict(), indent=2, sort_keys=True, ensure_ascii=False))
    else:
        print(describe_prediction(state) if args.what == "predict" else describe_comparison(state))
    return 0


def _finding(args) -> int:
    from ..audit.handeye import sign
    from ..audit.handeye.book import add_finding

    with _opened(args.db) as (store, conn), _user_errors():
        if args.kind == "sign":
            sign(store, conn, args.audit, member=args.member, party=args.party, actor=args.member)
        else:
            kind = "determination" if args.kind == "determine" else "annotation"
            add_finding(conn, args.audit, kind, args.member, args.text, party=args.party, actor=args.member)
    print(f"audit {args.audit}: {args.kind} by {args.member} recorded")
    return 0


def _report(args) -> int:
    from ..adjudicate import auditlog
    from ..audit.handeye import audit_state
    from ..audit.handeye.findings import write_findings

    with _opened(args.db) as (store, conn), _user_errors():
        state = audit_state(store, conn, args.audit)
        pdf, doc = write_findings(state, args.out)
        crops = []
        if args.crops:
            from ..audit.handeye.crops import write_crops

            crops = write_crops(store, state, pdf.parent / f"{pdf.stem}-crops")
        auditlog.append(
            conn, "cli", "handeye_report", detail={"audit": args.audit, "file": pdf.name, "crops": len(crops)}
        )
    print(f"wrote {pdf} and {doc}" + (f" and {len(crops)} ballot images" if crops else ""))
    return 0


def _list(args) -> int:
    from ..audit.handeye.book import audits, signed

    with _opened(args.db) as (store, conn):
        for a in audits(conn):
            print(
                f"{a.id}\tscanner {a.tabulator}\t{a.contest_id}\t{a.created_at}\t"
                + ("signed" if signed(conn, a.id) else "open")
            )
    return 0
