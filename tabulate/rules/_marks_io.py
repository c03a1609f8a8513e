"""Marks and votes as JSON (the format of docs/marks.md), with every problem reported at once."""

from __future__ import annotations

from collections import Counter
from typing import Any, cast

from ..core.marks import MARK_CLASSES, BallotMarks, MarkClass, OptionMark
from ..election import Election, Problem
from ._apply import MarksError

_BALLOT_KEYS = {"id", "style", "precinct", "fwab", "marks"}
_MARK_KEYS = {"scan", "hand", "write_in_ink", "score", "write_in_name"}
#: Longest write-in name a marks file may carry (a write-in area holds a name, not a letter).
MAX_WRITE_IN_NAME = 200


def parse_marks(election: Election, doc: Any, source: str = "marks") -> list[BallotMarks]:
    """Check a marks document against the election and build one `BallotMarks` per ballot.

    Parameters
    ----------
    election
        The election the ballots belong to.
    doc
        The parsed JSON: ``{"ballots": [{"id", "style", "precinct"?, "fwab"?, "marks"}]}``.
    source
        Names the document in the error message (a file name).

    Raises
    ------
    MarksError
        Listing every problem with its JSON path: an unknown style, precinct,
        contest or option for the style, a bad mark class, a duplicate ballot id.
    """
    problems: list[Problem] = []
    if not isinstance(doc, dict) or not isinstance(doc.get("ballots"), list):
        raise MarksError(source, [Problem("$", 'expected an object {"ballots": [...]}')])
    # "election" and "sheets" are what `tabulate read --json` writes beside "ballots": its output is a marks file.
    for key in sorted(set(doc) - {"ballots", "election", "sheets"}):
        problems.append(Problem(f"$.{key}", "unknown field"))
    ballots = []
    for n, b in enumerate(doc["ballots"]):
        ballot = _ballot(election, b, f"$.ballots[{n}]", problems)
        if ballot is not None:
            ballots.append(ballot)
    ids = Counter(b.get("id") for b in doc["ballots"] if isinstance(b, dict) and isinstance(b.get("id"), str))
    for n, b in enumerate(doc["ballots"]):
        if isinstance(b, dict) and isinstance(b.get("id"), str) and ids[b["id"]] > 1:
            problems.append(Problem(f"$.ballots[{n}].id", f"ballot id {b['id']!r} is used more than once"))
    if problems:
        raise MarksError(source, problems)
    return ballots


def _ballot(election: Election, b: Any, at: str, problems: list[Problem]) -> BallotMarks | None:
    if not isinstance(b, dict):
        problems.append(Problem(at, "a ballot must be an object"))
        return None
    before = len(problems)
    for key in sorted(set(b) - _BALLOT_KEYS):
        problems.append(Problem(f"{at}.{key}", "unknown field"))
    ballot_id = b.get("id")
    if not isinstance(ballot_id, str) or not ballot_id:
        problems.append(Problem(f"{at}.id", "a ballot needs a non-empty string id"))
    fwab = b.get("fwab", False)
    if not isinstance(fwab, bool):
        problems.append(Problem(f"{at}.fwab", "must be true or false"))
    style_id = b.get("style")
    try:
        contests = {c.id: c for c in election.style_contests(style_id)} if isinstance(style_id, str) else None
    except KeyError:
        contests = None
    if contests is None:
        known = ", ".join(repr(s.id) for s in election.ballot_styles)
        problems.append(Problem(f"{at}.style", f"no ballot style {style_id!r} in the election (styles: {known})"))
    precinct = b.get("precinct")
    if precinct is not None and contests is not None:
        if isinstance(style_id, str) and precinct not in election.style(style_id).precincts:
            problems.append(Problem(f"{at}.precinct", f"precinct {precinct!r} does not vote ballot style {style_id!r}"))
    marks = b.get("marks", {})
    if not isinstance(marks, dict):
        problems.append(Problem(f"{at}.marks", "must be an object of contest id -> {option id: mark}"))
        marks = {}
    parsed: dict[str, dict[str, OptionMark]] = {}
    for cid, options in marks.items():
        cat = f"{at}.marks.{cid}"
        contest = contests.get(cid) if contests is not None else None
        if contests is not None and contest is None:
            problems.append(Problem(cat, f"contest {cid!r} is not on ballot style {style_id!r}"))
            continue
        if not isinstance(options, dict):
            problems.append(Problem(cat, "must be an object of option id -> mark"))
            continue
        option_kinds = {o.id: o.kind for o in contest.options} if contest is not None else {}
        parsed[cid] = {}
        for oid, value in options.items():
            oat = f"{cat}.{oid}"
            if contest is not None and oid not in option_kinds:
                problems.append(
                    Problem(oat, f"no option {oid!r} in contest {cid!r} (options: {', '.join(option_kinds)})")
                )
                continue
            mark = _mark(value, oat, problems, write_in=option_kinds.get(oid) == "write_in")
            if mark is not None:
                parsed[cid][oid] = mark
    if len(problems) > before:
        return None
    # No problems: both ids were checked to be strings above.
    return BallotMarks(cast(str, ballot_id), cast(str, style_id), parsed, precinct_id=precinct, fwab=fwab)


def _mark(value: Any, at: str, problems: list[Problem], *, write_in: bool) -> OptionMark | None:
    classes = " | ".join(repr(c) for c in MARK_CLASSES)
    if isinstance(value, str):
        if value not in MARK_CLASSES:
            problems.append(Problem(at, f"{value!r} is not a mark class ({classes})"))
            return None
        return OptionMark(scan=cast(MarkClass, value))
    if not isinstance(value, dict):
        problems.append(Problem(at, f"a mark is a class ({classes}) or an object with scan, hand, write_in_ink, score"))
        return None
    before = len(problems)
    for key in sorted(set(value) - _MARK_KEYS):
        problems.append(Problem(f"{at}.{key}", "unknown field"))
    scan = value.get("scan", "unmarked")
    if scan not in MARK_CLASSES:
        problems.append(Problem(f"{at}.scan", f"{scan!r} is not a mark class ({classes})"))
    hand = value.get("hand")
    if hand is not None and hand not in MARK_CLASSES:
        problems.append(Problem(f"{at}.hand", f"{hand!r} is not a mark class ({classes}) or null"))
    name = value.get("write_in_name")
    if name is not None and (not isinstance(name, str) or not name.strip() or len(name) > MAX_WRITE_IN_NAME):
        problems.append(Problem(f"{at}.write_in_name", f"must be the name read, 1 to {MAX_WRITE_IN_NAME} characters"))
    elif name is not None and not write_in:
        problems.append(Problem(f"{at}.write_in_name", "only a write-in line has a write-in area"))
    ink = value.get("write_in_ink", name is not None)  # a name read is ink in the write-in area
    if not isinstance(ink, bool):
        problems.append(Problem(f"{at}.write_in_ink", "must be true or false"))
    elif ink and not write_in:
        problems.append(Problem(f"{at}.write_in_ink", "only a write-in line has a write-in area"))
    elif name is not None and not ink:
        problems.append(Problem(f"{at}.write_in_ink", "a write-in name was read, so the write-in area has ink"))
    score = value.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 <= score <= 1):
        problems.append(Problem(f"{at}.score", f"{score!r} is not a fill score between 0 and 1"))
    if len(problems) > before:
        return None
    return OptionMark(
        scan=scan, hand=hand, write_in_ink=ink, score=None if score is None else float(score), write_in_name=name
    )


def mark_to_json(mark: OptionMark) -> str | dict:
    """One mark in the file format: the bare class when nothing else is known."""
    if mark.hand is None and not mark.write_in_ink and mark.score is None and mark.write_in_name is None:
        return mark.scan
    out: dict[str, Any] = {"scan": mark.scan}
    if mark.hand is not None:
        out["hand"] = mark.hand
    if mark.write_in_ink:
        out["write_in_ink"] = True
    if mark.score is not None:
        out["score"] = mark.score
    if mark.write_in_name is not None:
        out["write_in_name"] = mark.write_in_name
    return out


def marks_to_dict(marks: BallotMarks) -> dict:
    """One ballot in the marks file format; ``parse_marks`` reads it back to an equal `BallotMarks`."""
    out: dict[str, Any] = {"id": marks.ballot_id, "style": marks.style_id}
    if marks.precinct_id is not None:
        out["precinct"] = marks.precinct_id
    if marks.fwab:
        out["fwab"] = True
    out["marks"] = {cid: {oid: mark_to_json(m) for oid, m in options.items()} for cid, options in marks.marks.items()}
    return out
