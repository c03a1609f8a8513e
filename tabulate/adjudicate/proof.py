"""Adjudication's part of `tabulate verify`: its sealed decisions, and each decision re-derived.

`decision_facts_source` hands the store's verifier (`tabulate.store.verify`)
the decision rows to compare with the journal. `check_decisions` then
re-applies each current decision's recorded entry to its sheet through the
same rules the reviewers' screens use (`tabulate.adjudicate.entries.decided_votes`)
and compares the result with the votes the decision stored: a decision whose
votes do not follow from what the reviewers entered is named.
"""

from __future__ import annotations

import json

from ..rules import votes_to_dict
from ..store.sqldb import Connection
from ..store.verify import FactSource
from .entries import DecisionError, Entry, decided_votes
from .records import current_decisions, decided_votes_by_sheet, unexplained_modification
from .sealing import DECISION, USER, decision_facts, user_facts
from .source import SourceError, StoreSource


def decision_facts_source(conn: Connection) -> FactSource:
    """The decision rows as a `FactSource` for `tabulate.store.verify.verify_store`."""

    def describe(key: str) -> str:
        ident = key[len(DECISION) :]
        row = (
            conn.execute("SELECT sheet_id FROM adj_decisions WHERE id = ?", (ident,)).fetchone()
            if ident.isdigit()
            else None
        )
        return f"decision {ident}" + (f" (sheet {row[0]})" if row else "")

    return FactSource((DECISION,), lambda: decision_facts(conn), describe)


def user_facts_source(conn: Connection) -> FactSource:
    """The accounts as a `FactSource`: a role, party or password hash changed outside tabulate is named."""

    def describe(key: str) -> str:
        ident = key[len(USER) :]
        row = (
            conn.execute("SELECT name FROM adj_users WHERE id = ?", (int(ident),)).fetchone()
            if ident.isdigit()
            else None
        )
        return f"user {ident}" + (f" ({row[0]})" if row else "")

    from .schema import ACCOUNTS_SEALED_FROM, schema_version

    # Accounts are sealed from the upgrade that sealed them (trust on first use); before it, none is.
    sealed = schema_version(conn) >= ACCOUNTS_SEALED_FROM
    return FactSource((USER,), lambda: user_facts(conn) if sealed else iter(()), describe)


def _comparable(votes: dict) -> list:
    return [
        (c["contest_id"], c["status"], list(c["selections"]), c["overvotes"], c["undervotes"])
        for c in votes.get("contests", [])
    ]


def check_decisions(conn: Connection, source: StoreSource) -> str | None:
    """Re-derive every current decision's votes from its entry; the first that differs, in one line."""
    election = source.election()
    for sheet_id, row in sorted(current_decisions(conn).items(), key=lambda kv: kv[1]["id"]):
        where = f"decision {row['id']} (sheet {sheet_id})"
        try:
            entry = Entry.from_json(json.loads(row["payload"]))
            decided = decided_votes(election, source.sheet(sheet_id), entry)
            stored = json.loads(row["after_votes"])
            stored_write_ins = json.loads(row["write_ins"])
        except (SourceError, DecisionError, ValueError, KeyError, TypeError) as e:
            return f"{where}: cannot be re-derived from its entry: {e}"
        if _comparable(votes_to_dict(decided.votes)) != _comparable(stored):
            return f"{where}: its stored votes do not follow from the reviewers' entry"
        if {f"{c}/{o}": v for (c, o), v in decided.write_ins.items()} != stored_write_ins:
            return f"{where}: its stored write-in names do not follow from the reviewers' entry"
    return None


def check_modifications(conn: Connection, store) -> str | None:
    """Every live sheet's votes as changed by people must be some decision's on that sheet; the first that is not."""
    decided = decided_votes_by_sheet(conn)
    for sheet in store.sheets():
        problem = unexplained_modification(sheet, decided)
        if problem is not None:
            return problem
    return None
