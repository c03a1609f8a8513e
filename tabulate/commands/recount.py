"""``tabulate recount``: recount one race from the stored images (31 KAR 4:220 Sections 9-10, KRS 120.157)."""

from __future__ import annotations

import argparse
import getpass
import json
import os
from pathlib import Path

from .errors import UsageError
from .templates import add_moved_set_option


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "recount",
        help="recount one race: re-read the stored images, SBE 82 per tabulator, SBE 49 (4:220)",
        description="Re-read every stored sheet of the race with today's reader (31 KAR 6:030 Section 2(1)), "
        "set aside what does not read after three attempts (damaged) or overvotes the race "
        "(31 KAR 4:220 Section 9(3)-(4)), apply the Section 9(11) test, fold in the county board's "
        "majority decisions (made in `tabulate review serve`, board mode) when the set-aside "
        "ballots could overcome the margin, and write the SBE 82-like form per tabulator, the "
        "SBE 49-like totals, and the recount beside the original count. Exit status 3 while "
        "ballots await the board.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the election's store")
    p.add_argument("--contest", required=True, metavar="ID", help="the race to recount")
    p.add_argument("--tabulator", metavar="ID", help="only the sheets this tabulator scanned")
    p.add_argument("--out", type=Path, metavar="DIR", help="write recount.txt, recount-sbe82.pdf, recount-sbe49.pdf")
    p.add_argument("--workers", type=int, metavar="N", help="reader processes (default: every core)")
    add_moved_set_option(p)
    p.add_argument(
        "--send-to-board",
        action="store_true",
        help="put the set-aside ballots awaiting the board in the review queue for the board",
    )
    p.set_defaults(func=run_recount)


#: The store event that marks a set-aside ballot sent to the board by a recount, with its original result.
SENT_EVENT = "recount_sent_to_board"


def original_selections(store, conn, contest_id: str) -> dict[int, tuple[str, ...] | None]:
    """Each sheet's selections in the race in the count before the recount (None where it was not counted).

    The count is the store's records with the adjudication decisions folded in,
    except for a ballot the recount sent to the board: its original is what
    was recorded when it was sent, so the board's recount decision is not
    mistaken for the original count.
    """
    from ..adjudicate import adjudicated_records

    by_identity = {}
    for r in adjudicated_records(store, conn):
        if r.status == "counted":
            try:
                by_identity[r.ballot_id] = r.votes.contest(contest_id).selections
            except KeyError:
                continue
    out = {s.id: by_identity.get(s.identity) for s in store.sheets()}
    for e in store.events():
        sheet_id = e.data.get("sheet_id") if e.kind == SENT_EVENT else None
        if sheet_id in out and e.data.get("contest") == contest_id:
            first = e.data.get("original")
            out[sheet_id] = tuple(first) if first is not None else None
    return out


def board_decisions(conn, contest_id: str) -> dict:
    """The county board's current majority decisions (31 KAR 4:220 Section 9(12)(a)), by sheet id."""
    from ..adjudicate.panels import BOARD
    from ..adjudicate.records import current_decisions, votes_from_dict
    from ..audit.recount import BoardDecision

    out = {}
    for sheet_id, row in current_decisions(conn).items():
        if row["panel"] != BOARD:
            continue
        votes = votes_from_dict(json.loads(row["after_votes"]))
        try:
            selections = votes.contest(contest_id).selections
        except KeyError:
            selections = ()
        out[int(sheet_id)] = BoardDecision(
            int(sheet_id), tuple(selections), tuple(json.loads(row["members"])), row["created_at"], row["id"]
        )
    return out


def send_set_aside_to_board(store, conn, result, actor: str) -> list[str]:
    """Queue the ballots awaiting the board (31 KAR 4:220 Section 9(12)) in the review app's board mode.

    Each is noted once in the store's event log with its original result.
    """
    from ..adjudicate import StoreSource, migrate
    from ..adjudicate.hand_entry import send_to_board

    migrate(conn)
    source = StoreSource(store)
    sent = {
        e.data.get("sheet_id")
        for e in store.events()
        if e.kind == SENT_EVENT and e.data.get("contest") == result.contest.id
    }
    done = []
    for b in result.awaiting_board:
        what = send_to_board(
            conn,
            source,
            str(b.sheet_id),
            actor=actor,
            code=f"recount_{b.set_aside}",
            detail=f"recount of {result.contest.title}: {b.why}",
            contest_id=result.contest.id,
        )
        if b.sheet_id not in sent:
            store.log(
                SENT_EVENT,
                actor=actor,
                sheet_id=b.sheet_id,
                data={
                    "sheet_id": b.sheet_id,
                    "contest": result.contest.id,
                    "set_aside": b.set_aside,
                    "original": list(b.original) if b.original is not None else None,
                },
            )
        done.append(f"{b.label}: {what}")
    return done


def run_recount(args: argparse.Namespace) -> int:
    from ..adjudicate.schema import connect
    from ..audit.recount import recount_result, recount_sheets
    from ..audit.recount_report import recount_text, sbe49_form, sbe82_form
    from ..central.interpret import interpret_sheet
    from ..central.recorded import TemplateSetMissing, template_interpreters
    from ..report.pdf import write_form
    from ..store import StoreError, open_store
    from .store_reports import _log_export

    try:
        store = open_store(args.db, create=False)
    except StoreError as e:
        raise UsageError(str(e)) from None
    conn = connect(args.db)
    try:
        election = store.election()
        if election is None:
            raise UsageError(f"{args.db} holds no election yet")
        try:
            contest = election.contest(args.contest)
        except KeyError:
            raise UsageError(f"no contest {args.contest!r} in the store's election") from None
        if contest.type != "candidate":
            raise UsageError(f"{args.contest} is a question; a recount (31 KAR 4:220) is of a race")
        original = original_selections(store, conn, contest.id)
        sheets = list(store.sheets())
        try:  # a county's ballots are read again with the template set they were scanned with (issue #11)
            readers = template_interpreters(store, [s.id for s in sheets], args.templates)
        except TemplateSetMissing as e:
            raise UsageError(str(e)) from None
        ballots = recount_sheets(
            election,
            contest.id,
            sheets,
            interpret_sheet,
            readers=readers,
            tabulator=args.tabulator,
            original=original,
            workers=max(1, args.workers or os.cpu_count() or 1),
        )
        if not ballots:
            where = f" on tabulator {args.tabulator}" if args.tabulator else ""
            raise UsageError(f"no sheet of {args.contest}{where} in the store")
        result = recount_result(election, contest.id, ballots, decisions=board_decisions(conn, contest.id))
        text = recount_text(result)
        print(text)
        if args.send_to_board and result.awaiting_board:
            for line in send_set_aside_to_board(store, conn, result, f"cli:{getpass.getuser()}"):
                print(f"  sent to the board: {line}")
            print("  the board decides them in `tabulate review serve` (board mode); then run this again")
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            (args.out / "recount.txt").write_text(text, encoding="utf-8")
            write_form(sbe82_form(result), args.out / "recount-sbe82.pdf")
            write_form(sbe49_form(result), args.out / "recount-sbe49.pdf")
            print(
                f"wrote {args.out / 'recount.txt'}, {args.out / 'recount-sbe82.pdf'}, {args.out / 'recount-sbe49.pdf'}"
            )
    except StoreError as e:
        raise UsageError(str(e)) from None
    finally:
        conn.close()
        store.close()
    if args.out:
        _log_export(args.db, "recount", args.out)
    return 0 if result.complete else 3
