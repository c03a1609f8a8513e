"""The store's JSON columns and timestamps; the converters themselves live in `tabulate.core`."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from functools import lru_cache

from ..core.canonical import canonical_text as dumps
from ..core.votes import contest_votes_from_dict, contest_votes_to_dict

__all__ = ["contest_votes_from_dict", "contest_votes_to_dict", "dumps", "ids_text", "text_ids", "now_utc"]


# A vote row's selections and clauses are short lists of ids drawn from the election: a few hundred
# distinct lists in a county. Encoding each one afresh when a sheet is recorded, and decoding it
# when the row is read back to be sealed in the journal, was a quarter of the store's CPU a sheet
# (docs/perf.md, branch scanpath); the same list always gives the same text, so both are cached.
@lru_cache(maxsize=16384)
def ids_text(ids: tuple[str, ...]) -> str:
    """The stored JSON text of a list of ids: exactly `dumps` of the list."""
    return dumps(list(ids))


@lru_cache(maxsize=16384)
def text_ids(text: str) -> tuple:
    """A stored JSON list back as a tuple (the inverse of `ids_text`; any JSON list is read as before)."""
    return tuple(json.loads(text))


def now_utc() -> str:
    """The time now, UTC, ISO 8601 to the millisecond (``2028-11-07T19:04:05.123Z``)."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
