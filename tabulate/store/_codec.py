"""Plain-dict forms of the rules' types for JSON columns (the store's I/O boundary), and timestamps."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from ..rules.types import ContestVotes


#: One encoder for every column: building one per call was a third of the store's time per sheet.
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def dumps(value) -> str:
    """Compact, deterministic JSON."""
    return _ENCODER.encode(value)


def contest_votes_to_dict(v: ContestVotes) -> dict:
    return {
        "contest_id": v.contest_id,
        "status": v.status,
        "selections": list(v.selections),
        "overvotes": v.overvotes,
        "undervotes": v.undervotes,
        "from_straight_party": v.from_straight_party,
        "clauses": list(v.clauses),
    }


def contest_votes_from_dict(d: dict) -> ContestVotes:
    return ContestVotes(
        contest_id=d["contest_id"],
        status=d["status"],
        selections=tuple(d.get("selections", ())),
        overvotes=int(d.get("overvotes", 0)),
        undervotes=int(d.get("undervotes", 0)),
        from_straight_party=bool(d.get("from_straight_party", False)),
        clauses=tuple(d.get("clauses", ())),
    )


def now_utc() -> str:
    """The time now, UTC, ISO 8601 to the millisecond (``2028-11-07T19:04:05.123Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
