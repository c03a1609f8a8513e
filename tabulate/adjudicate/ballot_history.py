"""What people did with a ballot: every entry (and where a team's entries differ), and its history in the audit log.

Part of `tabulate.adjudicate.explanation.explain_ballot`; the review app shows
the entries on the board's page too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from ..election import STRAIGHT_PARTY_CONTEST_ID
from ..store import sqldb
from ..store.sqldb import Connection
from . import auditlog
from .explain import option_label, when_words


@dataclass(frozen=True)
class HistoryItem:
    """One thing that happened to the ballot, from the audit log."""

    when: str
    at: str
    who: str
    action: str
    what: str


@dataclass(frozen=True)
class EntryView:
    """One person's entry: the options they found marked and the names they read, per contest."""

    who: str
    when: str
    round: int
    panel: str
    marked: dict[str, tuple[str, ...]]
    write_ins: tuple[str, ...]
    note: str
    #: Contest titles where this entry differs from another of its round and panel.
    differs: tuple[str, ...] = ()


def ballot_entries(conn: Connection, election, sheet_id: str) -> tuple[EntryView, ...]:
    if not sqldb.has_table(conn, "adj_entries"):
        return ()
    rows = conn.execute(
        "SELECT e.round, e.panel, e.payload, e.created_at, u.name, u.party FROM adj_entries e "
        "JOIN adj_users u ON u.id = e.user_id WHERE e.sheet_id = ? ORDER BY e.id",
        (sheet_id,),
    )
    # Contests in ballot order (the straight-party targets first), as the paper shows them.
    order = {STRAIGHT_PARTY_CONTEST_ID: -1, **{c.id: i for i, c in enumerate(election.contests)}}
    out = []
    for rnd, panel, payload, created, name, party in rows:
        p = json.loads(payload)
        marked = {}
        for cid, opts in sorted(p.get("marked", {}).items(), key=lambda kv: order.get(kv[0], len(order))):
            try:
                contest = election.contest(cid)
                marked[contest.title] = tuple(option_label(contest, o) for o in opts)
            except KeyError:
                marked[cid] = tuple(opts)
        names = tuple(
            f'{w.get("contest_id")}/{w.get("option_id")}: "{w.get("name", "")}"'
            + (f" → {w['outcome']}" if w.get("outcome") else "")
            for w in p.get("write_ins", ())
        )
        who = f"{name} ({party})" if party else name
        out.append(EntryView(who, when_words(created), int(rnd), panel, marked, names, p.get("note", "")))
    return _with_differences(out)


def _with_differences(entries: list[EntryView]) -> tuple[EntryView, ...]:
    groups: dict[tuple[int, str], list[EntryView]] = {}
    for e in entries:
        groups.setdefault((e.round, e.panel), []).append(e)
    out = []
    for e in entries:
        others = groups[(e.round, e.panel)]
        differs = tuple(t for t in e.marked if len({o.marked.get(t, ()) for o in others}) > 1)
        out.append(replace(e, differs=differs))
    return tuple(out)


def disagreements(entries: tuple[EntryView, ...]) -> tuple[str, ...]:
    """Contests where the entries of one round and panel differ: what a team disagreed on."""
    groups: dict[tuple[int, str], list[EntryView]] = {}
    for e in entries:
        groups.setdefault((e.round, e.panel), []).append(e)
    out = []
    for (rnd, _panel), es in groups.items():
        if len(es) < 2:
            continue
        titles = sorted({t for e in es for t in e.marked})
        for t in titles:
            if len({e.marked.get(t, ()) for e in es}) > 1:
                out.append(f"round {rnd}: {t}")
        if len({e.write_ins for e in es}) > 1:
            out.append(f"round {rnd}: write-in names")
    return tuple(out)


def _history(conn: Connection, sheet_id: str) -> tuple[HistoryItem, ...]:
    if not sqldb.has_table(conn, "journal"):  # a store from before the journal held adjudication
        return ()
    logged = list(auditlog.entries(conn, sheet_id=sheet_id))
    out = []
    for e in logged:
        d = e.detail
        what = ""
        if e.action == "decision":
            what = f"decided by the {d.get('decided_by', '?')}: " + " & ".join(d.get("members", ()))
            note = (d.get("why") or {}).get("note")
            what += f"; why: {note}" if note else ""
        elif e.action == "reopen":
            what = f"reopened: {d.get('reason', '')}"
        elif isinstance(d, dict):
            what = ", ".join(f"{k}: {v}" for k, v in d.items() if isinstance(v, (str, int)) and k != "ballot")
        out.append(HistoryItem(when_words(e.ts), e.ts, e.actor, e.action.replace("_", " "), what))
    return tuple(out)


__all__ = ["EntryView", "HistoryItem", "ballot_entries", "disagreements"]
