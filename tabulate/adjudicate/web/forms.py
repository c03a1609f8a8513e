"""The review form: field names, and the form back to an `Entry`.

Fields (``|`` cannot occur in an id the election schema allows):

- ``m|CONTEST|OPTION``: ``1`` the option is marked, ``0`` it is not;
- ``wn|CONTEST|OPTION``: the name read on a write-in line; ``ws|...``: ``1``
  for a sticker or stamp; ``wo|...``: the confirmed outcome (a declared
  write-in candidate's id or ``not_counted``);
- ``round``, ``member`` (whose entry this is), ``note``; for a ballot
  entered by hand ``manual``, ``style`` and ``precinct``.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...election import Election
from ..entries import MAX_NAME_CHARS, MAX_NOTE_CHARS, Entry, WriteInReading
from ..explain import option_label
from ..source import ReviewSheet


def mark_field(contest_id: str, option_id: str) -> str:
    return f"m|{contest_id}|{option_id}"


def name_field(contest_id: str, option_id: str) -> str:
    return f"wn|{contest_id}|{option_id}"


def sticker_field(contest_id: str, option_id: str) -> str:
    return f"ws|{contest_id}|{option_id}"


def outcome_field(contest_id: str, option_id: str) -> str:
    return f"wo|{contest_id}|{option_id}"


def _text(form: Mapping[str, Any], key: str, limit: int) -> str:
    value = form.get(key, "")
    if isinstance(value, list):
        value = value[-1]
    return " ".join(str(value).split())[:limit]


def parse_entry(
    election: Election, sheet: ReviewSheet, form: Mapping[str, Any], *, round_: int, manual: bool
) -> tuple[Entry | None, list[str]]:
    """The entry a form describes, or the list of what is missing from it (in words)."""
    problems: list[str] = []
    style_id = _text(form, "style", 64) if manual else (sheet.style_id or "")
    precinct_id = _text(form, "precinct", 64) if manual else sheet.precinct_id
    try:
        contests = election.style_contests(style_id)
    except KeyError:
        return None, ["choose the ballot style printed on the paper"]
    marked: dict[str, tuple[str, ...]] = {}
    readings: list[WriteInReading] = []
    for contest in contests:
        chosen = []
        for option in contest.options:
            value = form.get(mark_field(contest.id, option.id))
            if value not in ("0", "1"):
                problems.append(f"{contest.title}: decide whether {option_label(contest, option.id)} is marked")
                continue
            if value == "1":
                chosen.append(option.id)
            if option.kind == "write_in":
                name = _text(form, name_field(contest.id, option.id), MAX_NAME_CHARS)
                sticker = form.get(sticker_field(contest.id, option.id)) == "1"
                outcome = _text(form, outcome_field(contest.id, option.id), 64) or None
                if name or sticker or outcome:
                    readings.append(WriteInReading(contest.id, option.id, name, sticker, outcome))
        marked[contest.id] = tuple(chosen)
    if problems:
        return None, problems
    note = _text(form, "note", MAX_NOTE_CHARS)
    return Entry(sheet.sheet_id, round_, style_id, precinct_id, marked, tuple(readings), manual, note), []


def entry_fields(entry: Entry, election: Election) -> list[tuple[str, str]]:
    """An entry as hidden form fields (the preview page carries the entry to the record step)."""
    out = [("round", str(entry.round)), ("note", entry.note)]
    if entry.manual:
        out += [("manual", "1"), ("style", entry.style_id), ("precinct", entry.precinct_id or "")]
    for contest in election.style_contests(entry.style_id):
        chosen = set(entry.marked.get(contest.id, ()))
        for option in contest.options:
            out.append((mark_field(contest.id, option.id), "1" if option.id in chosen else "0"))
    for w in entry.write_ins:
        out.append((name_field(w.contest_id, w.option_id), w.name))
        if w.sticker:
            out.append((sticker_field(w.contest_id, w.option_id), "1"))
    return out
