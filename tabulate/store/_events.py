"""The store's append-only event log, chained by SHA-256 so that an edit or a deletion shows.

Each entry's ``hash`` is SHA-256 over the previous entry's hash and this
entry's canonical content (seq, time, kind, actor, batch, sheet, data). The
database refuses UPDATE and DELETE on the table (triggers, docs/store.md);
someone editing the file directly can drop the triggers, and `verify_chain`
then finds the first entry that no longer matches.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Iterator, Mapping

from ..core.chain import GENESIS, link_hash
from ._codec import dumps, now_utc
from .base import Event, StoreError

_COLUMNS = "seq, at, kind, actor, batch_id, sheet_id, data, prev_hash, hash"


def event_hash(prev_hash: str, seq: int, at: str, kind: str, actor, batch_id, sheet_id, data: str) -> str:
    """The entry's hash: the previous hash followed by its canonical content (`tabulate.core.link_hash`)."""
    return link_hash(prev_hash, {"seq": seq, "at": at, "kind": kind, "actor": actor, "batch_id": batch_id,
                                 "sheet_id": sheet_id, "data": json.loads(data)})


def append_event(db: sqlite3.Connection, kind: str, *, actor: str | None = None, batch_id: int | None = None,
                 sheet_id: int | None = None, data: Mapping | None = None) -> Event:
    """Append an entry; call inside a write transaction (the next ``seq`` depends on the last)."""
    last = db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
    seq, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
    at, text = now_utc(), dumps(dict(data or {}))
    digest = event_hash(prev, seq, at, kind, actor, batch_id, sheet_id, text)
    db.execute(f"INSERT INTO events ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
               (seq, at, kind, actor, batch_id, sheet_id, text, prev, digest))
    return Event(seq, at, kind, actor, batch_id, sheet_id, json.loads(text), prev, digest)


def iter_events(db: sqlite3.Connection) -> Iterator[Event]:
    for row in db.execute(f"SELECT {_COLUMNS} FROM events ORDER BY seq"):
        yield Event(*row[:6], json.loads(row[6]), row[7], row[8])


def verify_chain(db: sqlite3.Connection, where: str) -> int:
    """Check every entry against the one before; return how many there are, or raise `StoreError`."""
    prev, n = GENESIS, 0
    for seq, at, kind, actor, batch_id, sheet_id, data, prev_hash, digest in db.execute(
            f"SELECT {_COLUMNS} FROM events ORDER BY seq"):
        if prev_hash != prev or event_hash(prev, seq, at, kind, actor, batch_id, sheet_id, data) != digest:
            raise StoreError(f"{where}: the event log is broken at entry {seq} ({kind})")
        prev, n = digest, n + 1
    return n
