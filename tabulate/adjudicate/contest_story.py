"""One contest of an explained ballot: each target as read, what the rules made of it, and what counts.

Part of `tabulate.adjudicate.explanation.explain_ballot`: the scanner's class
(31 KAR 6:030 §2(1)) and the hand-count reading (§3(1)) of every target, the
clauses the rules applied, and the votes after people decided.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..election import STRAIGHT_PARTY_CONTEST_ID
from ..rules import CLAUSE_TEXT
from ..rules import STRAIGHT_PARTY_CLAUSE as STRAIGHT_PARTY
from .explain import contest_outcome, option_label, reason_sentence
from .source import ReviewSheet, SourceError


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


def _sentence(election, sheet: ReviewSheet, r) -> str:
    if r.code not in _REVIEW_CODES:
        return r.detail or ""
    mark = sheet.marks.marks.get(r.contest_id, {}).get(r.option_id) if sheet.marks and r.option_id else None
    return reason_sentence(election, r, mark, sheet.targets.get((r.contest_id, r.option_id)) if r.option_id else None)


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

__all__ = ["ContestStory", "TargetLine"]
