"""Reasons and outcomes in words, for the review pages and the decision log."""

from __future__ import annotations

from datetime import datetime
from typing import Mapping

from ..core.votes import AdjudicationReason
from ..election import Contest, Election
from ..rules import ContestVotes, OptionMark


def when_words(ts: str | None) -> str:
    """A stored UTC timestamp as local time to the second: "2026-11-30 07:57:01 EET"; "" for none."""
    if not ts:
        return ""
    try:
        t = datetime.fromisoformat(ts)
    except ValueError:
        return ts
    return t.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z").strip()


def hand_clause_words(clause: str) -> str:
    """The reader's hand-count clause ("6:030 s3(1)(b) circled") as printed: "circled (31 KAR 6:030 §3(1)(b))"."""
    head, _, words = clause.partition(" ")
    where, _, what = words.partition(" ")
    if not head.startswith("6:030") or not where.startswith("s"):
        return clause
    return f"{what or 'see'} (31 KAR {head} §{where[1:]})"


def option_label(contest: Contest, option_id: str | None) -> str:
    if option_id is None:
        return ""
    for o in contest.options:
        if o.id == option_id:
            if o.kind == "write_in":
                n = option_id.rsplit("-", 1)[-1]
                return "the write-in line" + (f" {n}" if contest.write_ins > 1 else "")
            return o.label + (f" / {o.running_mate}" if o.running_mate else "")
    for w in contest.declared_write_ins:
        if w.id == option_id:
            return w.name
    return option_id


def _contest(election: Election, contest_id: str | None) -> Contest | None:
    if contest_id is None:
        return None
    try:
        return election.contest(contest_id)
    except KeyError:
        return None


def reason_sentence(
    election: Election, reason: AdjudicationReason, mark: OptionMark | None = None, evidence: Mapping | None = None
) -> str:
    """One reason a ballot is in the queue, as a sentence a reviewer acts on."""
    contest = _contest(election, reason.contest_id)
    title = contest.title if contest else (reason.contest_id or "The ballot")
    label = option_label(contest, reason.option_id) if contest else (reason.option_id or "")
    th = election.thresholds
    code = reason.code
    if code == "marginal_mark":
        score = f"fill score {mark.score:.2f}; " if mark is not None and mark.score is not None else ""
        return (
            f"{title}: the target for {label} is lightly or partly marked ({score}the scanner counts "
            f"{th.definite:.2f} and above and ignores below {th.marginal:.2f}). Is it a vote?"
        )
    if code == "overvote":
        allowed = contest.vote_for if contest else "?"
        return (
            f"{title}: more options are marked than the {allowed} allowed; as read, none of them gets "
            f"the vote (31 KAR 6:030 §1(6)). Check each mark: an erasure or a stray mark is not a vote. "
            f"{reason.detail}"
        )
    if code == "marked_write_in":
        return (
            f"{title}: {label} is marked. Type the name you read; you then confirm whose vote it is "
            f"(31 KAR 6:030 §4). {reason.detail}"
        )
    if code == "unmarked_write_in":
        return (
            f"{title}: a name is written on {label} but its target is not marked, which is no vote "
            f"(31 KAR 6:030 §2(1)(b)) unless you find the target marked."
        )
    if code == "scan_hand_disagreement":
        scan = mark.scan if mark else "?"
        hand = mark.hand if mark and mark.hand else "?"
        why = "(31 KAR 6:030 §3(1))"
        if evidence and evidence.get("hand_clauses"):
            why = "; ".join(hand_clause_words(str(c)) for c in evidence["hand_clauses"])
        return (
            f"{title}, {label}: the scanner reads it {scan}, but a person counting by hand would read it "
            f"{hand}: {why}. Decide what the voter marked."
        )
    if code == "blank_ballot":
        return (
            "No mark was found on either side. Look at the paper for marks the scanner cannot see "
            "(very light pencil, marks beside the names)."
        )
    if code == "damaged_ballot":
        return (
            "The scanner could not read this ballot (" + (reason.detail or "damaged") + "). Enter every "
            'contest by hand from the paper: a damaged ballot "clearly having a selection" is counted as '
            "marked (31 KAR 4:220 §9(4)(c))."
        )
    if code == "undervote":
        return f"{title}: fewer options marked than allowed ({reason.detail})."
    return f"{title}: {code.replace('_', ' ')}" + (f" ({reason.detail})" if reason.detail else "")


def contest_outcome(contest: Contest, cv: ContestVotes, write_ins: Mapping[tuple[str, str], str | None]) -> str:
    """What a contest's votes amount to, in words: the names credited, or why none is."""
    if cv.status == "overvote":
        return "overvote: no option gets the vote"
    if not cv.selections:
        return "no vote"
    names = []
    for s in cv.selections:
        opt = next((o for o in contest.options if o.id == s), None)
        if opt is not None and opt.kind == "write_in":
            key = (contest.id, s)
            if key not in write_ins:
                names.append("write-in (name not yet confirmed)")
            elif write_ins[key] is None:
                names.append("write-in, not counted")
            else:
                names.append("write-in for " + option_label(contest, write_ins[key]))
        else:
            names.append(option_label(contest, s))
    extra = f"; {cv.undervotes} vote(s) unused" if cv.undervotes and contest.vote_for > 1 else ""
    return ", ".join(names) + extra
