"""The adjudication audit log: append-only, each entry chained to the one before by sha256.

Each entry's hash is ``sha256(canonical JSON of {seq, ts, actor, action,
sheet_id, detail, prev})`` where ``prev`` is the previous entry's hash (64
zeros for the first). Changing, removing or reordering any entry breaks the
chain at that entry, and `verify` names it. Removing entries from the *end*
leaves a valid shorter chain; that is why `verify` prints the head (the last
sequence number and hash) for the board to write down and compare later, as
they do with seal numbers.

Every decision, reopening, login, failed login, lockout and export is logged
(31 KAR 4:220 §9(12)(b) asks that each adjudication be recorded; the log
keeps who, when, the reading before, the result after, and why).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterator, Mapping

from ..core.canonical import canonical_json as canonical
from ..core.chain import GENESIS, body_hash
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


@dataclass(frozen=True)
class Verification:
    """The outcome of `verify`.

    ``ok`` is True when every entry is intact. Otherwise ``first_bad_seq`` is
    the first entry that does not follow from the ones before it and
    ``problem`` says how (altered, removed, reordered, inserted).
    """

    ok: bool
    entries: int
    head_seq: int
    head_hash: str
    first_bad_seq: int | None = None
    problem: str = ""


def entry_hash(seq: int, ts: str, actor: str, action: str, sheet_id: str | None,
               detail: Mapping[str, Any], prev_hash: str) -> str:
    """The hash of one entry chained to the previous entry's hash."""
    body = {"seq": seq, "ts": ts, "actor": actor, "action": action, "sheet_id": sheet_id,
            "detail": detail, "prev": prev_hash}
    return body_hash(body)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def append(conn: sqlite3.Connection, actor: str, action: str, *, sheet_id: str | None = None,
           detail: Mapping[str, Any] | None = None) -> LogEntry:
    """Append one entry; inside the caller's transaction when there is one.

    Parameters
    ----------
    conn
        A connection from `tabulate.adjudicate.schema.connect` (migrated).
    actor
        Who did it: a user name, ``"system"``, or a command (``"cli"``).
    action
        What: ``login``, ``login_failed``, ``decision``, ``reopen``, ``export`` ...
    sheet_id
        The ballot concerned, if any.
    detail
        JSON-able facts (before, after, why ...), stored as canonical JSON.
    """
    detail = json.loads(canonical(dict(detail or {})))  # normalise: what is hashed is what is stored
    with transaction(conn):
        last = conn.execute("SELECT seq, hash FROM adj_log ORDER BY seq DESC LIMIT 1").fetchone()
        seq, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
        ts = _now()
        digest = entry_hash(seq, ts, actor, action, sheet_id, detail, prev)
        conn.execute("INSERT INTO adj_log (seq, ts, actor, action, sheet_id, detail, prev_hash, hash) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     (seq, ts, actor, action, sheet_id, canonical(detail).decode("utf-8"), prev, digest))
    return LogEntry(seq, ts, actor, action, sheet_id, detail, prev, digest)


def entries(conn: sqlite3.Connection, *, sheet_id: str | None = None, action: str | None = None,
            limit: int | None = None, newest_first: bool = False) -> Iterator[LogEntry]:
    """Entries in sequence order (or newest first), optionally for one sheet or action."""
    sql = "SELECT seq, ts, actor, action, sheet_id, detail, prev_hash, hash FROM adj_log"
    where, args = [], []
    if sheet_id is not None:
        where.append("sheet_id = ?")
        args.append(sheet_id)
    if action is not None:
        where.append("action = ?")
        args.append(action)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY seq" + (" DESC" if newest_first else "")
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    for row in conn.execute(sql, args):
        yield LogEntry(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), row[6], row[7])


def verify(conn: sqlite3.Connection) -> Verification:
    """Walk the chain in storage order and name the first entry that does not follow.

    The rows are read in their physical (rowid) order *and* their sequence
    numbers are checked to run 1, 2, 3 ...; a row whose stored text does not
    hash to its stored hash was altered; a row whose ``prev_hash`` is not the
    hash of the row before it follows a removal or a reordering.
    """
    prev_hash, expected_seq, count, head = GENESIS, 1, 0, (0, GENESIS)
    rows = conn.execute("SELECT seq, ts, actor, action, sheet_id, detail, prev_hash, hash FROM adj_log "
                        "ORDER BY rowid")
    for seq, ts, actor, action, sheet_id, detail_text, stored_prev, stored_hash in rows:
        count += 1

        def bad(problem: str, at: int = seq) -> Verification:
            return Verification(False, count, head[0], head[1], at, problem)

        try:
            detail = json.loads(detail_text)
        except (TypeError, ValueError):
            return bad(f"entry {seq}: its detail is not valid JSON (altered)")
        if canonical(detail).decode("utf-8") != detail_text:
            return bad(f"entry {seq}: its detail is not in canonical form (altered)")
        recomputed = entry_hash(seq, ts, actor, action, sheet_id, detail, stored_prev)
        if recomputed != stored_hash:
            return bad(f"entry {seq}: its contents do not match its hash (altered)")
        if seq != expected_seq:
            if seq > expected_seq:
                return bad(f"entry {expected_seq} is missing (removed): entry {seq} follows entry "
                           f"{expected_seq - 1}", at=expected_seq)
            return bad(f"entry {seq} appears after entry {expected_seq - 1} (reordered or inserted)")
        if stored_prev != prev_hash:
            # Entry seq is intact in itself and the numbers run on, so what changed is
            # the entry before it, re-hashed to hide an edit (or replaced wholesale).
            return bad(f"entry {seq - 1} was altered and re-hashed: entry {seq} no longer chains to it",
                       at=seq - 1)
        prev_hash, expected_seq, head = stored_hash, seq + 1, (seq, stored_hash)
    return Verification(True, count, head[0], head[1])


def head(conn: sqlite3.Connection) -> tuple[int, str]:
    """The last entry's sequence number and hash: ``(0, GENESIS)`` for an empty log."""
    row = conn.execute("SELECT seq, hash FROM adj_log ORDER BY seq DESC LIMIT 1").fetchone()
    return (row[0], row[1]) if row else (0, GENESIS)
