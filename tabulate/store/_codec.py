"""The store's JSON columns and timestamps; the converters themselves live in `tabulate.core`."""

from __future__ import annotations

from datetime import datetime, timezone

from ..core.canonical import canonical_text as dumps
from ..core.votes import contest_votes_from_dict, contest_votes_to_dict

__all__ = ["contest_votes_from_dict", "contest_votes_to_dict", "dumps", "now_utc"]


def now_utc() -> str:
    """The time now, UTC, ISO 8601 to the millisecond (``2028-11-07T19:04:05.123Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
