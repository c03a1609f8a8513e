"""Adjudication's entries in the store's one journal (`tabulate.store.journal`).

Every decision, reopening, login, failed login, throttle and export is an
entry of the same hash-chained journal the store writes (31 KAR 4:220
§9(12)(b) asks that each adjudication be recorded; an entry keeps who, when,
the reading before, the result after, and why). A decision's entry also
seals the decision row itself, so editing, deleting or forging a decision
breaks `tabulate verify`.

This module keeps adjudication's vocabulary (``action``, ``detail``,
``sheet_id``) over the journal's (``kind``, ``data``, ``sheet``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from ..core.canonical import canonical_json
from ..core.chain import GENESIS
from ..store import journal
from ..store.journal import now_utc
from ..store.sqldb import Connection
from .schema import transaction


@dataclass(frozen=True)
class LogEntry:
    seq: int
    ts: str
    actor: str
    action: str
    sheet_id: str | None
    detail: Mapping[str, Any]
    prev_hash: str
    hash: str
    facts: Mapping[str, str]
    #: The public key (hex) of the station that signed the entry (None: unsigned).
    signer: str | None = None


#: What `verify` found: the journal's own chain check (one shape for every verifier).
Verification = journal.ChainCheck


def canonical(value: Any) -> bytes:
    """Canonical JSON bytes: sorted keys, no spaces, UTF-8 (the journal's form)."""
    return canonical_json(value)


def _now() -> str:
    return now_utc()


def append(
    conn: Connection,
    actor: str,
    action: str,
    *,
    sheet_id: str | None = None,
    detail: Mapping[str, Any] | None = None,
    facts: Mapping[str, str] | None = None,
) -> LogEntry:
    """Append one entry; inside the caller's transaction when there is one.

    ``facts`` seals rows written in the same transaction (``decision:<id>``).
    """
    with transaction(conn):
        e = journal.append(conn, action, actor=actor, sheet=sheet_id, data=detail, facts=facts)
    return _entry(e)


def _entry(e: journal.JournalEntry) -> LogEntry:
    return LogEntry(e.seq, e.at, e.actor or "", e.kind, e.sheet, e.data, e.prev_hash, e.hash, e.facts, e.signer)


def entries(
    conn: Connection,
    *,
    sheet_id: str | None = None,
    action: str | None = None,
    limit: int | None = None,
    newest_first: bool = False,
) -> Iterator[LogEntry]:
    """Entries in sequence order (or newest first), optionally for one sheet or action."""
    for e in journal.entries(conn, sheet=sheet_id, kind=action, limit=limit, newest_first=newest_first):
        yield _entry(e)


def verify(conn: Connection) -> Verification:
    """Check the journal's chain and name the first entry that does not follow."""
    return journal.verify_chain(conn)


def head(conn: Connection) -> tuple[int, str]:
    """The last entry's sequence number and hash: ``(0, GENESIS)`` for an empty journal."""
    return journal.head(conn)


__all__ = ["GENESIS", "LogEntry", "Verification", "append", "canonical", "entries", "head", "verify"]
