"""The one journal: an append-only, hash-chained record that binds every fact a count depends on.

Every layer writes here -- the store (election bound, batches opened and
closed, sheets recorded, votes modified) and adjudication (logins, entries,
decisions, reopenings, exports) -- in one format checked by one verifier.

An entry is ``{seq, at, kind, actor, sheet, data, facts, prev}``; its hash is
SHA-256 over the canonical JSON of that object (sorted keys, no spaces,
UTF-8: `tabulate.core.canonical_json`; `tabulate.core.body_hash`), where
``prev`` is the previous entry's hash (64 zeros for the first). ``facts`` maps a *fact key*
(``election``, ``batch:3``, ``sheet:12``, ``decision:5``) to the SHA-256 of
the canonical JSON of the row it names, as written in the same transaction.
The latest entry binding a key is the row's sealed value; a row that differs
from it, a bound row that is gone, or a row no entry binds is a broken fact.

Nothing here depends on SQLite beyond the three functions that read and
write the ``journal`` table through a DB-API connection; a second backend
stores the same columns and computes the same hashes (docs/store.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, Mapping

from ..core.canonical import canonical_json, canonical_text
from ..core.chain import GENESIS, body_hash
from . import journal_signing

_COLUMNS = "seq, at, kind, actor, sheet, data, facts, prev_hash, hash, signer, signature"
#: For a file whose journal predates the signature columns (schema 4), read by a connection that does not migrate.
_COLUMNS_UNSIGNED = "seq, at, kind, actor, sheet, data, facts, prev_hash, hash, NULL, NULL"
#: Passed as ``signer`` to `append`: the process's station key (`journal_signing.signing_as`).
_PROCESS_SIGNER: Any = object()
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class JournalEntry:
    """One entry of the journal (see the module docstring for what ``hash`` covers)."""

    seq: int
    at: str
    kind: str
    actor: str | None
    sheet: str | None
    data: Mapping[str, Any]
    facts: Mapping[str, str]
    prev_hash: str
    hash: str
    #: The public key (hex) of the station that signed the entry, and its signature of ``hash``; None if unsigned.
    signer: str | None = None
    signature: str | None = None


@dataclass(frozen=True)
class ChainCheck:
    """What `check_chain` found: ``ok``, the head, and otherwise the first bad entry and how."""

    ok: bool
    entries: int
    head_seq: int
    head_hash: str
    first_bad_seq: int | None = None
    problem: str = ""
    #: The first ``station_registered`` entry (None: no station is registered, the journal is unsigned).
    signed_from: int | None = None
    #: The entries written before it (vouched for by the county key's signature on it).
    unsigned_before: int = 0
    #: The registered stations' names, and the county key (hex) that registered them.
    stations: tuple[str, ...] = ()
    county_key: str | None = None


def digest(value: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of ``value``: how a row is sealed as a fact."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def entry_hash(
    seq: int,
    at: str,
    kind: str,
    actor: str | None,
    sheet: str | None,
    data: Mapping[str, Any],
    facts: Mapping[str, str],
    prev_hash: str,
) -> str:
    """The hash of one entry chained to the previous entry's hash (the previous hash inside, under ``prev``)."""
    return body_hash(
        {
            "seq": seq,
            "at": at,
            "kind": kind,
            "actor": actor,
            "sheet": sheet,
            "data": data,
            "facts": facts,
            "prev": prev_hash,
        }
    )


def now_utc() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds").replace("+00:00", "Z")


def _text(value: Any) -> str:
    return canonical_text(value)


def append(
    conn,
    kind: str,
    *,
    actor: str | None = None,
    sheet: str | int | None = None,
    data: Mapping[str, Any] | None = None,
    facts: Mapping[str, str] | None = None,
    signer: journal_signing.Signer | None = _PROCESS_SIGNER,
) -> JournalEntry:
    """Append one entry inside the caller's write transaction (the next ``seq`` depends on the last).

    ``data`` is normalised through canonical JSON first, so what is hashed is
    exactly what is stored and read back. The entry is signed by ``signer``
    (by default the process's station key) when the store registers stations;
    a write the store's signatures would not accept is refused
    (`journal_signing.SigningError`), so a station never leaves an entry `verify` names.
    """
    data = json.loads(_text(dict(data or {})))
    facts = {str(k): str(v) for k, v in (facts or {}).items()}
    sheet = None if sheet is None else str(sheet)
    last = conn.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    seq, prev = (last[0] + 1, last[1]) if last else (1, GENESIS)
    at = now_utc()
    h = entry_hash(seq, at, kind, actor, sheet, data, facts, prev)
    who = journal_signing.signer_for(
        conn, kind, journal_signing.current_signer() if signer is _PROCESS_SIGNER else signer
    )
    signed_by, signature = (who.public_key, who.sign(h)) if who is not None else (None, None)
    conn.execute(
        f"INSERT INTO journal ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (seq, at, kind, actor, sheet, _text(data), _text(facts), prev, h, signed_by, signature),
    )
    return JournalEntry(seq, at, kind, actor, sheet, data, facts, prev, h, signed_by, signature)


def ensure_table(conn) -> None:
    """Create the ``journal`` table in a SQLite file if it is missing (schema version 2's DDL)."""
    from ._schema import ensure_journal

    with_tx = not conn.in_transaction
    if with_tx:
        conn.execute("BEGIN IMMEDIATE")
    try:
        ensure_journal(conn)
    except BaseException:
        if with_tx:
            conn.execute("ROLLBACK")
        raise
    if with_tx:
        conn.execute("COMMIT")


def entries(
    conn, *, sheet: str | None = None, kind: str | None = None, limit: int | None = None, newest_first: bool = False
) -> Iterator[JournalEntry]:
    """Entries in sequence order (or newest first), optionally for one sheet or one kind."""
    sql, where, args = f"SELECT {_columns(conn)} FROM journal", [], []
    if sheet is not None:
        where.append("sheet = ?")
        args.append(str(sheet))
    if kind is not None:
        where.append("kind = ?")
        args.append(kind)
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY seq" + (" DESC" if newest_first else "")
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    for row in conn.execute(sql, args):
        yield JournalEntry(*row[:5], json.loads(row[5]), json.loads(row[6]), *row[7:11])


def head(conn) -> tuple[int, str]:
    """The last entry's sequence number and hash: ``(0, GENESIS)`` for an empty journal."""
    row = conn.execute("SELECT seq, hash FROM journal ORDER BY seq DESC LIMIT 1").fetchone()
    return (row[0], row[1]) if row else (0, GENESIS)


def _columns(conn) -> str:
    """The columns to read: a file not yet migrated to schema 4 has no signature columns (all unsigned)."""
    from .sqldb import is_postgres

    if is_postgres(conn):
        found = conn.execute(
            "SELECT 1 FROM information_schema.columns WHERE table_name = 'journal' AND column_name = 'signature'"
        ).fetchone()
    else:
        found = conn.execute("SELECT 1 FROM pragma_table_info('journal') WHERE name = 'signature'").fetchone()
    return _COLUMNS if found else _COLUMNS_UNSIGNED


def _raw_rows(conn) -> Iterable[tuple]:
    # Physical (rowid) order, not seq order: a reordering shows as numbers out of turn.
    return conn.execute(f"SELECT {_columns(conn)} FROM journal ORDER BY rowid")


def _entry_problem(row: tuple, prev: str, expected: int) -> tuple[str, int] | None:
    """Why one raw row does not follow the chain so far, and the entry to name; None if it does."""
    seq, at, kind, actor, sheet, data_text, facts_text, stored_prev, stored_hash = row[:9]
    try:
        data, facts = json.loads(data_text), json.loads(facts_text)
    except (TypeError, ValueError):
        return f"journal entry {seq} ({kind}) is not valid JSON (altered)", seq
    if _text(data) != data_text or _text(facts) != facts_text:
        return f"journal entry {seq} ({kind}) is not in canonical form (altered)", seq
    if entry_hash(seq, at, kind, actor, sheet, data, facts, stored_prev) != stored_hash:
        return f"journal entry {seq} ({kind}) does not match its hash (altered)", seq
    if seq > expected:
        return f"journal entry {expected} is missing (removed): entry {seq} follows entry {expected - 1}", expected
    if seq < expected:
        return f"journal entry {seq} ({kind}) appears after entry {expected - 1} (reordered or inserted)", seq
    if stored_prev != prev:
        # The entry is intact and the numbers run on: the one before it was edited and re-hashed.
        return f"journal entry {seq - 1} was altered and re-hashed: entry {seq} no longer chains to it", seq - 1
    return None


def check_chain(rows: Iterable[tuple], *, from_head: str | None = None, county_key: str | None = None) -> ChainCheck:
    """Walk raw journal rows in storage order and name the first entry that does not follow.

    ``from_head`` is a head hash published earlier: the chain must still hold
    an entry with that hash, or the journal was truncated or its tail rewritten.
    Each entry's signature is checked as it comes (`journal_signing.SignatureWalk`):
    from the first station registered on, an entry unsigned, signed by a key no
    registration names, or whose signature does not match is named. ``county_key``
    (hex) is the county's published key the registrations must be signed by.
    """
    prev, expected, count, last = GENESIS, 1, 0, (0, GENESIS)
    seen_head = from_head is None
    walk = journal_signing.SignatureWalk(county_key)

    def bad(seq: int, problem: str) -> ChainCheck:
        return ChainCheck(False, count, last[0], last[1], seq, problem)

    for row in rows:
        row = tuple(row)
        count += 1
        problem = _entry_problem(row, prev, expected)
        if problem is not None:
            return bad(problem[1], problem[0])
        seq, kind, stored_hash = row[0], row[2], row[8]
        signed = walk.problem(
            {
                "seq": seq,
                "kind": kind,
                "actor": row[3],
                "data": json.loads(row[5]) if kind == journal_signing.REGISTER else {},
                "hash": stored_hash,
                "signer": row[9],
                "signature": row[10],
            }
        )
        if signed is not None:
            return bad(seq, signed)
        seen_head = seen_head or stored_hash == from_head
        prev, expected, last = stored_hash, seq + 1, (seq, stored_hash)
    if not seen_head:
        return bad(
            last[0] + 1,
            f"the journal does not contain the published head {from_head[:16]}... "
            f"(truncated, or its tail rewritten; it now ends at entry {last[0]})",
        )
    finished = walk.finish()
    if finished is not None:
        return bad(last[0], finished)
    reg = walk.registry
    return ChainCheck(
        True,
        count,
        last[0],
        last[1],
        signed_from=reg.first_seq,
        unsigned_before=walk.unsigned_before,
        stations=tuple(sorted(set(reg.stations.values()))),
        county_key=reg.county_key,
    )


def verify_chain(conn, *, from_head: str | None = None, county_key: str | None = None) -> ChainCheck:
    """`check_chain` over a connection's ``journal`` table."""
    if from_head is not None and not _HEX64.match(from_head):
        raise ValueError(f"--from-head must be a SHA-256 in hex (64 characters), not {from_head!r}")
    return check_chain(_raw_rows(conn), from_head=from_head, county_key=county_key)


def bound_facts(entries_: Iterable[JournalEntry]) -> dict[str, tuple[str, int]]:
    """Each fact key's sealed digest and the entry that sealed it last."""
    out: dict[str, tuple[str, int]] = {}
    for e in entries_:
        for key, value in e.facts.items():
            out[key] = (value, e.seq)
    return out


def _order(key: str):
    kind, _, ident = key.partition(":")
    return (kind, int(ident) if ident.isdigit() else 0, ident)


def first_broken_fact(
    bound: Mapping[str, tuple[str, int]], current: Mapping[str, str], prefixes: Iterable[str]
) -> tuple[str, str] | None:
    """The first fact (by key) whose row differs from what the journal sealed, as ``(key, problem)``.

    Only keys starting with one of ``prefixes`` are compared, so each owner
    (the store, adjudication) answers for its own rows.
    """
    prefixes = tuple(prefixes)
    keys = {k for k in bound if k.startswith(prefixes)} | {k for k in current if k.startswith(prefixes)}
    for key in sorted(keys, key=_order):
        sealed = bound.get(key)
        now = current.get(key)
        if sealed is None:
            return key, "is not in the journal (a row added outside tabulate)"
        if now is None:
            return key, f"was sealed by journal entry {sealed[1]} and is gone (deleted)"
        if now != sealed[0]:
            return key, f"does not match journal entry {sealed[1]} (altered)"
    return None
