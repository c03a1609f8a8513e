"""The store's sheets as the reports read them: `tabulate.core.BallotRecord`.

Only *live* sheets (counted, or needing review) become records: a rejected
sheet has no votes and a duplicate is by definition already in the count.
Works over any `Store` backend.
"""

from __future__ import annotations

import json
from pathlib import PurePath
from typing import Iterator

from ..core.marks import BallotMarks, OptionMark
from ..core.records import BallotRecord
from ..core.votes import BallotVotes
from .base import LIVE_STATUSES, Store, StoredSheet


def _mark(value) -> OptionMark:
    if isinstance(value, str):
        return OptionMark(scan=value)
    return OptionMark(
        scan=value.get("scan", "unmarked"),
        hand=value.get("hand"),
        write_in_ink=bool(value.get("write_in_ink", False)),
        score=value.get("score"),
    )


def marks_from_json(text: str | None, ballot_id: str, style_id: str, precinct_id: str | None) -> BallotMarks:
    """Rebuild `BallotMarks` from the JSON the store keeps (the `marks_to_dict` format).

    The ids are the record's, not whatever the reader used; the store wrote
    this text itself, so it is not validated again.
    """
    doc = json.loads(text) if text else {}
    marks = {cid: {oid: _mark(v) for oid, v in options.items()} for cid, options in doc.get("marks", {}).items()}
    return BallotMarks(ballot_id, style_id, marks, precinct_id=precinct_id, fwab=bool(doc.get("fwab", False)))


def _modified(sheet: StoredSheet) -> BallotVotes | None:
    if not sheet.modified or sheet.interpreted is None:
        return None
    contests = tuple(sheet.modified.get(c.contest_id, c) for c in sheet.interpreted.contests)
    v = sheet.interpreted
    return BallotVotes(
        v.ballot_id, v.style_id, contests, v.precinct_id, v.straight_party, v.reasons, needs_review=False, blank=v.blank
    )


def to_record(sheet: StoredSheet) -> BallotRecord:
    """One live sheet as a `BallotRecord` (ValueError for a rejected or duplicate sheet)."""
    if sheet.status not in LIVE_STATUSES or sheet.interpreted is None:
        raise ValueError(f"sheet {sheet.label} is {sheet.status}; only counted sheets are reported")
    precinct = sheet.precinct_id or sheet.batch.precinct_id or ""
    style = sheet.style_id or ""
    return BallotRecord(
        ballot_id=sheet.ballot_id,
        batch=sheet.batch.name,
        position=sheet.position,
        vote_type=sheet.batch.vote_type,
        precinct_id=precinct,
        style_id=style,
        marks=marks_from_json(sheet.marks, sheet.ballot_id, style, precinct or None),
        interpreted=sheet.interpreted,
        modified=_modified(sheet),
        images=tuple((PurePath(p.source).name, p.sha256) for p in sheet.pages),
        status=sheet.status,
        tabulator=sheet.batch.tabulator,
    )


def ballot_records(store: Store, *, batch_id: int | None = None) -> Iterator[BallotRecord]:
    """Every live sheet of the store (or of one batch) as a `BallotRecord`, in batch and position order."""
    for status_sheet in store.sheets(batch_id=batch_id):
        if status_sheet.status in LIVE_STATUSES:
            yield to_record(status_sheet)
