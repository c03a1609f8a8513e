"""The one place for hash chains: every entry's SHA-256 covers the one before it.

The store's one journal (`tabulate.store.journal`, written by the store and
by adjudication) hashes the canonical JSON of the entry with the previous
hash inside it, under ``prev`` (`body_hash`). `link_hash` is the shape of
the store's schema-1 event log, kept so that its history can still be read.

Either way, changing, removing or reordering an entry breaks the chain there.
Extending the chain needs no secret, though: that is what each entry's
signature by the station that wrote it is for (`tabulate.core.keys`,
`tabulate.store.journal_signing`).
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

from .canonical import canonical_json, canonical_text

#: The ``prev`` of the first entry of a chain.
GENESIS = "0" * 64


def link_hash(prev_hash: str, content: Mapping[str, Any]) -> str:
    """SHA-256 hex of ``prev_hash`` followed by the canonical JSON of ``content`` (the event-log shape)."""
    return hashlib.sha256((prev_hash + canonical_text(content)).encode("utf-8")).hexdigest()


def body_hash(content: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of ``content``, which holds the previous hash (the audit-log shape)."""
    return hashlib.sha256(canonical_json(content)).hexdigest()
