"""``tabulate explain``: why one ballot counted as it did, from its images to its decisions.

BALLOT is "batch · position" (where the paper is; ``abs-1·7`` and ``abs-1:7``
work too), the store's sheet id, or the first characters of the ballot's hash.
"""

from __future__ import annotations

import argparse
import json
import sys

from .errors import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "explain",
        help="why one ballot counted as it did: images, marks, rules and clauses, decisions",
        description="Explain one ballot end to end: where the paper and its cast vote record are, every target's "
        "score and reading, the 31 KAR 6:030 rules applied per contest with their clauses, why it was "
        "flagged, and every entry, decision and reopening with who, when and why.",
    )
    p.add_argument("--db", required=True, metavar="FILE", help="the store")
    p.add_argument(
        "ballot",
        metavar="BALLOT",
        help='"batch · position" (e.g. "abs-1·7"), a sheet id, or 6+ characters of the ballot hash',
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..adjudicate.explanation import BallotNotFound, explain_ballot, find_sheet
    from ..store import StoreError, open_store
    from ..store.sqldb import connect_readonly

    try:
        store = open_store(args.db, create=False)
    except StoreError as e:
        raise UsageError(str(e)) from None
    try:
        conn = connect_readonly(args.db)
    except StoreError as e:
        store.close()
        raise UsageError(str(e)) from None
    try:
        if store.election() is None:
            raise UsageError(f"{args.db} holds no election yet; scan a batch first")
        try:
            sheet_id = find_sheet(store, args.ballot)
        except BallotNotFound as e:
            raise UsageError(str(e)) from None
        exp = explain_ballot(store, conn, sheet_id)
    except StoreError as e:
        raise UsageError(str(e)) from None
    finally:
        conn.close()
        store.close()
    if args.json:
        sys.stdout.write(json.dumps(exp.to_dict(), indent=1, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(format_explanation(exp) + "\n")
    return 0


def _target(t) -> str:
    score = f"{t.score:.2f}" if t.score is not None else "-"
    text = f"{t.label}: {score} {t.scan}"
    if t.hand and t.hand != t.scan:
        text += f", by hand {t.hand}"
    if t.hand_clauses:
        text += " (" + "; ".join(t.hand_clauses) + ")"
    if t.write_in_ink:
        text += ", name written"
    return text


def _contest_lines(c) -> list[str]:
    page = f" · {'front' if c.page == 1 else 'back' if c.page == 2 else 'page ?'}" if c.page else ""
    lines = [f"  {c.title} (vote for {c.vote_for}){page}"]
    for r in c.reasons:
        lines.append(f"    flagged: {r}")
    marked = [t for t in c.targets if t.scan != "unmarked" or (t.hand and t.hand != "unmarked") or t.write_in_ink]
    lines.append(
        "    read:    "
        + ("; ".join(_target(t) for t in marked) if marked else "no target marked")
        + f"  [{len(c.targets)} target(s) scored]"
    )
    lines.append(f"    rules:   {c.machine}" + (f" ({c.machine_status})" if c.machine_status else ""))
    for clause, text in c.clauses:
        lines.append(f"             {clause}" + (f': "{text}"' if text else ""))
    lines.append(f"    counts:  {c.counted}" + ("   <- changed by people" if c.changed_by_people else ""))
    return lines


def format_explanation(exp) -> str:
    """The explanation as text a board member reads aloud."""
    lines = [
        f"Ballot {exp.reference}   (sheet {exp.sheet_id}, hash {exp.identity[:12]})",
        f"  paper:   batch {exp.batch!r}, position {exp.position} in the {exp.container} container"
        + (f" · precinct {exp.precinct_id}" if exp.precinct_id else "")
        + (f" · style {exp.style_id}" if exp.style_id else ""),
        f"  outcome: {exp.outcome}",
    ]
    if exp.duplicate_of:
        lines.append(f"  duplicate of {exp.duplicate_of}")
    v = exp.cvr
    if v and v["votes"]:
        lines.append(
            f"  CVR:     record {v['cvr_number']} of {v['of']} (Dominion CvrNumber; ImprintedId "
            f'"{v["imprinted_id"]}"; NIST UniqueId {v["nist_unique_id"][:12]}…)'
        )
    elif v:
        lines.append(
            f"  CVR:     row {v['cvr_number']} of {v['of']} of the Dominion CVR, set aside with no votes "
            f'(ImprintedId "{v["imprinted_id"]}"); not in the NIST CVR'
        )
    else:
        lines.append("  CVR:     not in the cast vote records")
    lines += ["", "Images"] + [
        f"  {i['page']}: {i['file']} (sha256 {i['sha256'][:12]})"
        + (f"; read with {i['template']}" if "template" in i else "")
        for i in exp.images
    ]
    if exp.reasons:
        lines += ["", "Why it was flagged or set aside (a sheet may have several reasons)"]
        lines += [f"  - {r['words']}: {r['sentence']}" if r["sentence"] else f"  - {r['words']}" for r in exp.reasons]
    if exp.contests:
        lines += ["", "Contests (score, scanner class per 31 KAR 6:030 §2(1), hand reading per §3(1))"]
        for c in exp.contests:
            lines += _contest_lines(c)
    if exp.entries:
        lines += ["", "Entries"]
        for e in exp.entries:
            marks = "; ".join(f"{t}: {', '.join(o) or 'none'}" for t, o in e.marked.items())
            lines.append(f"  {e.when} · round {e.round} · {e.who}: {marks}")
            lines += [f"      write-in {w}" for w in e.write_ins]
            if e.note:
                lines.append(f"      note: {e.note}")
    if exp.disagreements:
        lines.append("  entries disagree on: " + "; ".join(exp.disagreements))
    if exp.history:
        lines += ["", "History (audit log)"]
        lines += [f"  {h.when} · {h.who} · {h.action}" + (f" · {h.what}" if h.what else "") for h in exp.history]
    return "\n".join(lines)
