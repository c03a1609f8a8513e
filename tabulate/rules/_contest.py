"""One contest on one ballot: from the target classes to the voter's own selections.

This is the scanner's reading (31 KAR 6:030 Section 2(1)): a target classed
``marked`` is a vote; ``marginal`` is not, but a person is asked to look. The
straight-party layer (`._straight_party`) sits on top of what this returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..core.marks import OptionMark
from ..core.votes import AdjudicationReason, ContestStatus, ContestVotes
from ..election import Contest, ContestOption
from . import clauses as K

UNMARKED = OptionMark()


def scanner_vote(mark_class: str) -> bool:
    """Whether a candidate or question target is a vote for the scanner.

    31 KAR 6:030 Section 2(1): "a vote cast on a scan voting system shall be the
    choice made by a voter by: (a) Filling in the oval or box or connecting the
    arrow next to the candidate's name or the question choice".

    Only ``marked`` counts. A ``marginal`` target is not "filled in" as far as
    the machine can tell; it goes to a person (reason ``marginal_mark``).
    """
    return mark_class == "marked"


def scanner_write_in(mark_class: str, write_in_ink: bool, *, fwab: bool = False) -> bool:
    """Whether a write-in line is a write-in vote (awaiting a person to read the name).

    31 KAR 6:030 Section 2(1)(b): a vote is made by "Writing in the name of an
    eligible candidate in the designated write-in space and filling in the oval
    or box or connecting the arrow next to the designated write-in space." Both
    are needed: a filled target with an empty write-in area is no vote, and a
    name beside an empty target is no vote (Section 1(9): the voter "properly
    marks the oval").

    On a federal write-in absentee ballot, 31 KAR 5:011 Section 2 suspends
    6:030 Section 3(2)(a) (the paper-ballot rule that the write-in target be
    marked): "The requirements of 31 KAR 6:030 ... Section 3(2)(a) and Section
    4(1), (2), and (9), shall be suspended". The FWAB is a form on which the
    voter writes names; it has no targets to fill. So on an FWAB a name in the
    write-in area is a write-in vote whether or not the target is marked.
    """
    if not write_in_ink:
        return False
    return fwab or mark_class == "marked"


def _counts(option: ContestOption, mark_class: str, ink: bool, fwab: bool) -> bool:
    if option.kind == "write_in":
        return scanner_write_in(mark_class, ink, fwab=fwab)
    return scanner_vote(mark_class)


@dataclass(frozen=True)
class OwnSelections:
    """What the voter's own marks in one contest amount to, before straight party.

    ``votes`` are option ids in ballot order; ``write_ins`` the write-in lines
    among them. ``touched`` is True when any target or write-in area of the
    contest holds anything at all (a mark, a marginal mark, ink).
    """

    contest: Contest
    votes: tuple[str, ...]
    write_ins: tuple[str, ...]
    reasons: tuple[AdjudicationReason, ...]
    touched: bool
    fwab: bool = False


def read_contest(contest: Contest, marks: Mapping[str, OptionMark], *, fwab: bool = False) -> OwnSelections:
    """The voter's own selections in a contest, and what a person should look at.

    Options are read in ballot order, never in the order of ``marks``, so the
    result does not depend on how the marks were listed.
    """
    votes, write_ins, reasons = [], [], []
    touched = False
    for option in contest.options:
        mark = marks.get(option.id, UNMARKED)
        if _quiet(mark, option):
            continue  # no vote, no reason, nothing touched: most options of most sheets
        ink = mark.write_in_ink and option.kind == "write_in"
        touched |= mark.scan != "unmarked" or ink or mark.hand not in (None, "unmarked")
        if _counts(option, mark.scan, ink, fwab):
            votes.append(option.id)
            if option.kind == "write_in":
                write_ins.append(option.id)
        reasons += _option_reasons(contest, option, mark, ink, fwab)
    return OwnSelections(contest, tuple(votes), tuple(write_ins), tuple(reasons), touched, fwab)


def _quiet(mark: OptionMark, option: ContestOption) -> bool:
    """Whether an option's mark is the same as no mark at all (`UNMARKED`): nothing to count or to show.

    The scanner reads it ``unmarked`` (Section 2(1): no vote), a hand count reads nothing either (``hand``
    None or ``unmarked``: no Section 3(1) disagreement) and no name is written on a write-in line (Section
    2(1)(b); a federal write-in absentee ballot's name counts alone, 31 KAR 5:011 Section 2): `_counts` is
    False and `_option_reasons` empty for it, whatever the contest.
    """
    return (
        mark.scan == "unmarked"
        and (mark.hand is None or mark.hand == "unmarked")
        and not (mark.write_in_ink and option.kind == "write_in")
    )


def _option_reasons(
    contest: Contest, option: ContestOption, mark: OptionMark, ink: bool, fwab: bool
) -> list[AdjudicationReason]:
    def reason(code: str, detail: str) -> AdjudicationReason:
        return AdjudicationReason(code, contest.id, option.id, detail)

    out = []
    if mark.scan == "marginal":
        detail = "a light or partial mark the scanner did not count; a person decides whether it is a vote"
        if ink and not fwab:
            detail += " (the write-in area also holds a name)"
        out.append(reason("marginal_mark", detail))
    if option.kind == "write_in":
        counted = scanner_write_in(mark.scan, ink, fwab=fwab)
        if counted:
            why = (
                "a name on a federal write-in absentee ballot counts without a marked target (31 KAR 5:011 §2)"
                if fwab and mark.scan != "marked"
                else "target marked and a name written"
            )
            out.append(reason("marked_write_in", f"{why}: a person reads the name (31 KAR 6:030 §4)"))
        elif "marked" in (mark.scan, mark.hand) and not ink:
            # Filled (the scanner's reading) or circled, checked, crossed (a hand count's, §3(1)): either
            # way the voter chose the write-in line, and a person looks for the name the reader missed.
            how = "filled" if mark.scan == "marked" else "marked as a hand count reads it (circled, X, check)"
            out.append(
                reason(
                    "marked_write_in",
                    f"write-in target {how} but no name was seen in the write-in "
                    "area: not a vote under §2(1)(b) unless a person finds a name",
                )
            )
        elif ink and mark.scan == "unmarked":
            out.append(
                reason("unmarked_write_in", "a name is written but its target is not marked: not a vote under §2(1)(b)")
            )
    if mark.hand is not None and _counts(option, mark.hand, ink, fwab) != _counts(option, mark.scan, ink, fwab):
        out.append(
            reason(
                "scan_hand_disagreement",
                f"the scanner reads {mark.scan!r}, a hand count (§3(1)) would read {mark.hand!r}",
            )
        )
    return out


def contest_status(selections: tuple[str, ...], vote_for: int, pending: bool) -> ContestStatus:
    """``write_in_pending`` while a counted write-in awaits a person; else blank, undervote or valid."""
    if pending:
        return "write_in_pending"
    if not selections:
        return "blank"
    return "undervote" if len(selections) < vote_for else "valid"


def overvote(own: OwnSelections) -> tuple[ContestVotes, AdjudicationReason]:
    """An overvoted contest: no option gets credit.

    31 KAR 6:030 Section 1(6): '"Overvote" means a voter has made more than the
    permitted number of selections in a single race except when a voter casts a
    vote using a straight party option and votes for an opposing candidate in a
    particular race.'

    Section 2(2)(b): "If a voter designates a vote for a named candidate on the
    ballot and also writes in the name of a different person, these actions
    shall be considered an overvote, with neither candidate receiving credit for
    the vote, except as provided in Section 5". The machine cannot read the
    name, so a write-in that pushes the count past ``vote_for`` makes an
    overvote here; the reason tells the person that a write-in of a candidate
    the voter also marked is not "a different person" (and §4(2) would not
    count the write-in), which undoes the overvote.
    """
    contest = own.contest
    cited: tuple[str, ...] = (K.OVERVOTE,)
    named = [v for v in own.votes if v not in own.write_ins]
    if own.write_ins and named:
        cited += (K.CANDIDATE_PLUS_WRITE_IN,)
    labels = {o.id: o.label for o in contest.options}
    chosen = ", ".join(f"{labels[v]} [{v}]" if v in own.write_ins else labels[v] for v in own.votes)
    detail = f"{len(own.votes)} selections where {contest.vote_for} allowed: {chosen}"
    if own.write_ins and named:
        detail += (
            "; a named candidate and a write-in: an overvote unless the written name is a candidate the "
            "voter also marked (§2(2)(b) 'a different person')"
        )
    reason = AdjudicationReason("overvote", contest.id, None, detail)
    votes = ContestVotes(contest.id, "overvote", (), overvotes=contest.vote_for, undervotes=0, clauses=cited)
    return votes, reason


def own_votes(own: OwnSelections, clauses: tuple[str, ...] = ()) -> ContestVotes:
    """The voter's own selections as the contest's votes (not overvoted).

    31 KAR 6:030 Section 2(1): the vote is "the choice made by a voter by:
    (a) Filling in the oval ... or (b) Writing in the name of an eligible
    candidate in the designated write-in space and filling in the oval".
    """
    contest = own.contest
    named = len(own.votes) > len(own.write_ins)
    cited: tuple[str, ...] = (K.SCANNER_VOTE,) if named or not own.votes else ()
    if own.write_ins:
        cited += (K.SCANNER_WRITE_IN,) + ((K.FWAB,) if own.fwab else ())
    status = contest_status(own.votes, contest.vote_for, bool(own.write_ins))
    return ContestVotes(
        contest.id,
        status,
        own.votes,
        overvotes=0,
        undervotes=contest.vote_for - len(own.votes),
        clauses=cited + clauses,
    )


def decide_contest(own: OwnSelections) -> tuple[ContestVotes, list[AdjudicationReason]]:
    """A contest without straight party: an overvote, or the voter's own selections."""
    if len(own.votes) > own.contest.vote_for:
        votes, reason = overvote(own)
        return votes, [reason]
    return own_votes(own), []
