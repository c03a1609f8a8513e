"""Adjudication's rows sealed in the journal: each decision, as written and as reopened.

The results read a decision's ``after_votes`` and ``write_ins`` (see
`tabulate.adjudicate.records`), so a decision row is a fact the journal
binds (`tabulate.store.journal`): the entry that records a decision seals the
row, and a reopening seals it again with its ``reopened_*`` columns.
``applied`` is left out: it only says the store has been told (the store
seals its own copy of the votes).
"""

from __future__ import annotations

import json
from typing import Iterator

from ..store import sqldb
from ..store.journal import digest
from ..store.sqldb import Connection

#: The key prefix of a decision's fact.
DECISION = "decision:"

_SEALED = (
    "id",
    "sheet_id",
    "round",
    "panel",
    "decided_by",
    "members",
    "payload",
    "before_votes",
    "after_votes",
    "write_ins",
    "why",
    "created_at",
    "reopened_at",
    "reopened_by",
    "reopen_reason",
)
_COLS = ", ".join(_SEALED)


def decision_fact(row) -> dict:
    """A decision row as the journal seals it (every column but ``applied``, as stored)."""
    return dict(zip(_SEALED, tuple(row)))


def seal_decision(conn: Connection, decision_id: int) -> dict[str, str]:
    """The fact of one decision as it is now in the open transaction, for the entry that records it."""
    row = conn.execute(f"SELECT {_COLS} FROM adj_decisions WHERE id = ?", (decision_id,)).fetchone()
    return {f"{DECISION}{decision_id}": digest(decision_fact(row))}


def decision_facts(conn: Connection) -> Iterator[tuple[str, str]]:
    """Every decision row's fact key and digest (none in a store nobody has reviewed)."""
    if not sqldb.has_table(conn, "adj_decisions"):
        return
    for row in conn.execute(f"SELECT {_COLS} FROM adj_decisions ORDER BY id"):
        yield f"{DECISION}{row[0]}", digest(decision_fact(row))


#: The key prefix of an account's fact.
USER = "user:"

#: An account's columns a decision's validity rests on: who it is, its role and party, its password, whether enabled.
_USER_SEALED = ("id", "name", "role", "party", "password_hash", "created_at", "disabled")
_USER_COLS = ", ".join(_USER_SEALED)


def seal_user(conn: Connection, user_id: int) -> dict[str, str]:
    """The fact of one account as it is now in the open transaction, for the entry that adds or changes it.

    Sealed because an account is the way into the review app: someone holding the
    store file who made themselves ``board`` or put their own password hash on a
    board member's account could then decide ballots through the app, and every
    decision would look legitimate.
    """
    row = conn.execute(f"SELECT {_USER_COLS} FROM adj_users WHERE id = ?", (int(user_id),)).fetchone()
    return {f"{USER}{user_id}": digest(dict(zip(_USER_SEALED, tuple(row))))}


def user_facts(conn: Connection) -> Iterator[tuple[str, str]]:
    """Every account's fact key and digest."""
    if not sqldb.has_table(conn, "adj_users"):
        return
    for row in conn.execute(f"SELECT {_USER_COLS} FROM adj_users ORDER BY id"):
        yield f"{USER}{row[0]}", digest(dict(zip(_USER_SEALED, tuple(row))))


def user_seal_problem(conn: Connection, user_id: int) -> str | None:
    """Why an account may not sign in: it differs from the journal's latest seal of it, or was never sealed.

    One indexed-free scan of the journal's ``facts`` text per sign-in (the key, quoted, only
    ever appears as a fact key in canonical JSON): sign-ins are rare, decisions are not.
    """
    key = f"{USER}{int(user_id)}"
    row = conn.execute(
        "SELECT facts FROM journal WHERE facts LIKE ? ORDER BY seq DESC LIMIT 1", (f'%"{key}":%',)
    ).fetchone()
    sealed = json.loads(row[0]).get(key) if row else None
    if sealed is None:
        return "this account is not in the journal (added outside tabulate)"
    if seal_user(conn, user_id)[key] != sealed:
        return "this account was changed outside tabulate (its role, party or password differs from the journal)"
    return None
