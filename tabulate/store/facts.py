"""What the journal seals for each row a result depends on, computed from domain values.

The fact of a row is a plain dict built from the `Store` protocol's own
dataclasses, so every backend seals and checks the same value for the same
sheet; `tabulate.store.journal.digest` turns it into the SHA-256 an entry
binds. Timestamps and ids are included: a row moved to another batch or
re-dated is a changed row.
"""

from __future__ import annotations

import hashlib
from typing import Any

from ..core.votes import contest_votes_to_dict
from .base import Batch, StoredSheet


def text_digest(text: str | None) -> str | None:
    """SHA-256 of a stored text (the reader's evidence, the marks) exactly as written."""
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def sheet_fact(sheet: StoredSheet, evidence_sha256: str | None) -> dict[str, Any]:
    """A recorded sheet: its images, a digest of its reading, its votes (as read and as modified), its status."""
    v = sheet.interpreted
    return {
        "batch": sheet.batch.id,
        "position": sheet.position,
        "identity": sheet.identity,
        "status": sheet.status,
        "style": sheet.style_id,
        "precinct": sheet.precinct_id,
        "duplicate_of": sheet.duplicate_of,
        "recorded_at": sheet.recorded_at,
        "pages": [[p.source, p.sha256] for p in sheet.pages],
        "reasons": [[r.code, r.detail, r.contest_id, r.option_id] for r in sheet.reasons],
        "reading": evidence_sha256,
        "marks": text_digest(sheet.marks),
        "votes": None
        if v is None
        else {
            "straight_party": v.straight_party,
            "blank": v.blank,
            "contests": [contest_votes_to_dict(c) for c in v.contests],
        },
        "modified": {cid: contest_votes_to_dict(c) for cid, c in sorted(sheet.modified.items())},
    }


def batch_fact(batch: Batch) -> dict[str, Any]:
    """A batch: what it is and when it was opened and last closed."""
    return {
        "name": batch.name,
        "vote_type": batch.vote_type,
        "precinct": batch.precinct_id,
        "operator": batch.operator,
        "tabulator": batch.tabulator,
        "started_at": batch.started_at,
        "ended_at": batch.ended_at,
    }


def election_fact(election_hash: str, title: str) -> dict[str, Any]:
    """The election the store holds (its definition is checked against this hash on every open)."""
    return {"hash": election_hash, "title": title}
