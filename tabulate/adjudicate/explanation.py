"""Why a ballot counted the way it did: one sheet explained end to end.

`explain_ballot` gathers, for any sheet of the store (flagged or not, decided
or not), what a board member needs to answer "why did ballot X count for Y?":

- where the paper is (batch · position, the Arlo container) and where its
  record is in the cast vote records (the Dominion ``CvrNumber`` and
  ``ImprintedId``, the NIST ``UniqueId``);
- its scanned images, and for every target the fill score, the scanner's
  class (31 KAR 6:030 §2(1)) and the hand-count reading (§3(1));
- per contest, the votes the rules gave with the clauses they applied, and
  the votes after people decided;
- why it was flagged, in the same words as everywhere else;
- every entry, decision and reopening, with who, when and why.

The CLI (``tabulate explain``) prints it as text or JSON, the review app
renders it at ``/ballot/<id>/explain``; both read this one model.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ..core.errors import TabulateError
from ..core.vocabulary import ballot_reference, parse_reference, reason_words
from ..election import STRAIGHT_PARTY_CONTEST_ID
from ..report import ARLO_CONTAINERS
from ..rules import CLAUSE_TEXT
from ..rules import STRAIGHT_PARTY_CLAUSE as STRAIGHT_PARTY
from ..store import sqldb
from ..store.base import LIVE_STATUSES
from ..store.sqldb import Connection
from . import auditlog
from .explain import contest_outcome, option_label, reason_sentence, when_words
from .records import adjudicated_counts, current_decisions, votes_from_dict
from .source import ReviewSheet, SourceError, StoreSource


class BallotNotFound(TabulateError, LookupError):
    """No sheet, or more than one, answers to what the user typed."""

    code = "ballot_not_found"


@dataclass(frozen=True)
class TargetLine:
    """One target as read: the score, the scanner's class and the hand-count reading."""

    option_id: str
    label: str
    score: float | None
    scan: str
    hand: str | None
    write_in_ink: bool
    hand_clauses: tuple[str, ...] = ()


@dataclass(frozen=True)
class ContestStory:
    """One contest: what was read, what the rules made of it, and what counts."""

    contest_id: str
    title: str
    vote_for: int
    page: int | None
    targets: tuple[TargetLine, ...]
    machine: str
    machine_status: str
    clauses: tuple[tuple[str, str], ...]
    counted: str
    changed_by_people: bool
    reasons: tuple[str, ...]


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


@dataclass(frozen=True)
class BallotExplanation:
    sheet_id: str
    reference: str
    identity: str
    batch: str
    position: int
    vote_type: str
    container: str
    precinct_id: str | None
    style_id: str | None
    store_status: str
    outcome: str
    images: tuple[dict[str, Any], ...]
    reasons: tuple[dict[str, str], ...]
    contests: tuple[ContestStory, ...]
    entries: tuple[EntryView, ...]
    disagreements: tuple[str, ...]
    history: tuple[HistoryItem, ...]
    cvr: dict[str, Any] | None = None
    duplicate_of: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict:
        return asdict(self)


def find_sheet(store, text: str) -> int:
    """The sheet id for what a person typed: "batch · position", a sheet id, or a prefix of the hash.

    Raises
    ------
    BallotNotFound
        Nothing matches, or a hash prefix matches more than one sheet.
    """
    text = text.strip()
    ref = parse_reference(text)
    if ref is not None:
        batch = next((b for b in store.batches() if b.name == ref[0]), None)
        if batch is not None:
            for s in store.sheets(batch_id=batch.id):
                if s.position == ref[1]:
                    return s.id
        raise BallotNotFound(f"no sheet at position {ref[1]} of batch {ref[0]!r}")
    if text.isdigit() and len(text) < 12:
        try:
            return store.sheet(int(text)).id
        except KeyError:
            raise BallotNotFound(f"no sheet {text} in the store") from None
    prefix = text.lower()
    if len(prefix) < 6 or any(ch not in "0123456789abcdef" for ch in prefix):
        raise BallotNotFound(
            f'{text!r} is not a ballot reference: give batch·position (e.g. "abs-1·7"), '
            "a sheet id, or at least 6 characters of the ballot's hash"
        )
    found = [s for s in store.sheets() if s.identity.startswith(prefix)]
    if not found:
        raise BallotNotFound(f"no sheet's hash starts with {text!r}")
    live = [s for s in found if s.duplicate_of is None] or found
    if len(live) > 1:
        refs = ", ".join(s.label for s in live[:5])
        raise BallotNotFound(f"{text!r} matches several sheets ({refs}): give more of the hash")
    return live[0].id


def _targets(election, sheet: ReviewSheet, contest) -> tuple[TargetLine, ...]:
    marks = sheet.marks.marks.get(contest.id, {}) if sheet.marks else {}
    out = []
    for o in contest.options:
        m = marks.get(o.id)
        if m is None:
            continue
        ev = sheet.targets.get((contest.id, o.id)) or {}
        out.append(
            TargetLine(
                o.id,
                option_label(contest, o.id),
                m.score,
                m.scan,
                m.hand,
                m.write_in_ink,
                tuple(str(c) for c in ev.get("hand_clauses", ()) or ()),
            )
        )
    return tuple(out)


def _contests(election, sheet: ReviewSheet, after, write_ins) -> tuple[ContestStory, ...]:
    from .layouts import style_layout

    if sheet.interpreted is None and after is None:
        return ()
    style_id = sheet.style_id or (after.style_id if after is not None else None)
    page_of = {}
    if style_id:
        try:
            page_of = {cid: p.page for p in style_layout(election, sheet, style_id) for cid, _ in p.contest_boxes}
        except SourceError:
            page_of = {}  # read with a template set the store does not hold: pages unknown, said as such
    queued = set(election.adjudication.reasons)
    out = []
    for contest in election.style_contests(style_id):
        if contest.id == STRAIGHT_PARTY_CONTEST_ID:
            out.append(_straight_party(election, sheet, contest, after, page_of.get(contest.id)))
            continue
        before = _contest_votes(sheet.interpreted, contest.id)
        final = _contest_votes(after, contest.id) if after is not None else before
        machine = contest_outcome(contest, before, {}) if before is not None else "not read by the scanner"
        counted = contest_outcome(contest, final, write_ins) if final is not None else "no vote"
        clauses = (final or before).clauses if (final or before) is not None else ()
        reasons = tuple(
            _sentence(election, sheet, r) for r in sheet.reasons if r.contest_id == contest.id and r.code in queued
        )
        out.append(
            ContestStory(
                contest.id,
                contest.title,
                contest.vote_for,
                page_of.get(contest.id),
                _targets(election, sheet, contest),
                machine,
                before.status if before is not None else "",
                tuple((c, CLAUSE_TEXT.get(c, "")) for c in clauses),
                counted,
                after is not None and machine != counted,
                reasons,
            )
        )
    return tuple(out)


def _straight_party(election, sheet: ReviewSheet, contest, after, page: int | None) -> ContestStory:
    """The straight-party targets: the party they apply to the partisan contests (31 KAR 6:030 §5)."""

    def words(votes) -> str:
        if votes is None:
            return "not read by the scanner"
        return (
            f"straight party {option_label(contest, votes.straight_party)}"
            if votes.straight_party
            else "no straight-party vote"
        )

    machine, counted = words(sheet.interpreted), words(after if after is not None else sheet.interpreted)
    clauses = (
        ((STRAIGHT_PARTY, CLAUSE_TEXT.get(STRAIGHT_PARTY, "")),)
        if (after or sheet.interpreted) is not None and (after or sheet.interpreted).straight_party
        else ()
    )
    return ContestStory(
        contest.id,
        contest.title,
        contest.vote_for,
        page,
        _targets(election, sheet, contest),
        machine,
        "",
        clauses,
        counted,
        after is not None and machine != counted,
        (),
    )


def _contest_votes(votes, contest_id):
    if votes is None:
        return None
    try:
        return votes.contest(contest_id)
    except KeyError:
        return None


def ballot_entries(conn: Connection, election, sheet_id: str) -> tuple[EntryView, ...]:
    if not _has_table(conn, "adj_entries"):
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


def _has_table(conn: Connection, name: str) -> bool:
    return sqldb.has_table(conn, name)


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


def _cvr_place(store, conn, sheet) -> dict[str, Any] | None:
    """Where the sheet's row sits in the Dominion CVR export: every sheet of paper (a set-aside one has a
    row with no votes), by tabulator, batch and position; a duplicate is no paper and has none.

    Counted from the per-batch counts and this batch's sheets alone, not from
    every record, so a 40,000-ballot store explains a ballot as fast as a small one.
    """
    if sheet.status == "duplicate":
        return None
    decided = current_decisions(conn)
    counts = adjudicated_counts(store, conn, store.batch_counts())
    per_batch = {(c.batch.tabulator, c.batch.name): c.counted + c.needs_review + c.rejected for c in counts}
    here = (sheet.batch.tabulator, sheet.batch.name)
    before = sum(n for k, n in per_batch.items() if k < here)
    before += sum(
        1 for s in store.sheets(batch_id=sheet.batch.id) if s.status != "duplicate" and s.position < sheet.position
    )
    votes = sheet.status in LIVE_STATUSES or str(sheet.id) in decided
    return {
        "cvr_number": before + 1,
        "imprinted_id": ballot_reference(sheet.batch.name, sheet.position),
        "tabulator": sheet.batch.tabulator,
        "batch_id": sheet.batch.name,
        "record_id": sheet.position,
        "nist_unique_id": sheet.ballot_id if votes else None,
        "votes": votes,
        "of": sum(per_batch.values()),
    }


def _outcome(sheet, decided: bool, in_cvr: bool) -> str:
    if sheet.status == "duplicate":
        return "not counted: a duplicate of a sheet already scanned"
    if decided:
        return "counted as people decided"
    if sheet.status == "counted":
        return "counted as the scanner read it (never flagged)"
    if sheet.status == "needs_review":
        return "awaiting review: counted as read until people decide" if in_cvr else "awaiting review"
    return "set aside, not counted: " + "; ".join(reason_words(r.code) for r in sheet.reasons)


def _sentence(election, sheet: ReviewSheet, r) -> str:
    if r.code not in _REVIEW_CODES:
        return r.detail or ""
    mark = sheet.marks.marks.get(r.contest_id, {}).get(r.option_id) if sheet.marks and r.option_id else None
    return reason_sentence(election, r, mark, sheet.targets.get((r.contest_id, r.option_id)) if r.option_id else None)


def _template_words(sheet: ReviewSheet, page) -> str:
    where = f"style {sheet.style_id} page {page.layout_page}" if page.layout_page else "page not identified"
    held = "" if sheet.templates is not None else " (not recorded in this store)"
    return f"template set {page.template_set[:12]}{held}, {where}"


def explain_ballot(store, conn: Connection, sheet_id: int) -> BallotExplanation:
    """Everything about one sheet, for the CLI and the review app (see the module docstring)."""
    source = StoreSource(store)
    election = source.election()
    stored = store.sheet(int(sheet_id))
    sheet = source.sheet(str(sheet_id))
    decision = current_decisions(conn).get(str(sheet_id))
    after = votes_from_dict(json.loads(decision["after_votes"])) if decision is not None else None
    write_ins = (
        {tuple(k.split("/", 1)): v for k, v in json.loads(decision["write_ins"]).items()}
        if decision is not None
        else {}
    )
    images = tuple(
        {
            "side": p.side,
            "page": {1: "front", 2: "back"}.get(p.layout_page, "unknown"),
            "file": stored.pages[p.side - 1].source,
            "sha256": p.sha256,
            # Read with a template set (issue #11): which one, so the layout it was scored on can be found.
            **({"template": _template_words(sheet, p)} if p.template_set else {}),
        }
        for p in sheet.pages_in_order
    )
    # Reasons the election does not queue (undervotes, by default) are not why it was flagged.
    shown = [r for r in sheet.reasons if stored.status != "needs_review" or r.code in election.adjudication.reasons]
    reasons = tuple(
        {
            "code": r.code,
            "words": reason_words(r.code),
            "contest_id": r.contest_id or "",
            "sentence": _sentence(election, sheet, r),
        }
        for r in shown
    )
    entries = ballot_entries(conn, election, str(sheet_id))
    cvr = _cvr_place(store, conn, stored) if stored.status != "duplicate" else None
    dup = None
    if stored.duplicate_of is not None:
        dup = store.sheet(stored.duplicate_of).label
    return BallotExplanation(
        sheet_id=str(sheet_id),
        reference=stored.label,
        identity=stored.identity,
        batch=stored.batch.name,
        position=stored.position,
        vote_type=stored.batch.vote_type,
        container=ARLO_CONTAINERS.get(stored.batch.vote_type, stored.batch.vote_type),
        precinct_id=(after.precinct_id if after is not None else None) or stored.precinct_id,
        style_id=(after.style_id if after is not None else None) or stored.style_id,
        store_status=stored.status,
        outcome=_outcome(stored, decision is not None, cvr is not None),
        images=images,
        reasons=reasons,
        contests=_contests(election, sheet, after, write_ins),
        entries=entries,
        disagreements=disagreements(entries),
        history=_history(conn, str(sheet_id)),
        cvr=cvr,
        duplicate_of=dup,
    )


_REVIEW_CODES = frozenset(
    {
        "marginal_mark",
        "overvote",
        "marked_write_in",
        "unmarked_write_in",
        "scan_hand_disagreement",
        "blank_ballot",
        "damaged_ballot",
        "undervote",
    }
)

__all__ = [
    "BallotExplanation",
    "BallotNotFound",
    "ContestStory",
    "EntryView",
    "HistoryItem",
    "TargetLine",
    "ballot_entries",
    "disagreements",
    "explain_ballot",
    "find_sheet",
]
