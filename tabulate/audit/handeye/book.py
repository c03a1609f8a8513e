"""The audit's own records, in the store's database (SQLite or PostgreSQL): selections, tallies, tapes, findings.

Tables are prefixed ``he_`` (hand-to-eye) and only ever added to: a tally,
a tape, a determination, a signature or an annotation is a new row, never an
edit, and triggers refuse UPDATE and DELETE on them. Every step is also an
entry of the audit log (`tabulate.adjudicate.auditlog`), whose hash chain
shows any later change.

31 KAR 4:230 Section 2(2): "Determinations and findings made by a County Board
of Elections following the hand-to-eye recount shall be recorded on a Form SBE
91". Once board members sign, the audit is closed: its tallies, tape and
determinations can no longer be added to, only annotated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Mapping

from ...adjudicate import auditlog
from ...adjudicate.schema import migrate as migrate_adjudication
from ...adjudicate.schema import transaction
from ...core import TabulateError
from ...store import sqldb
from ...store.sqldb import Connection, IntegrityError
from .sealing import seal_row
from .tallies import TallyEntry

_TABLES = """
CREATE TABLE IF NOT EXISTS he_audits (
    id          INTEGER PRIMARY KEY,
    created_at  TEXT NOT NULL,
    created_by  TEXT NOT NULL,
    tabulator   TEXT NOT NULL,
    contest_id  TEXT NOT NULL,
    selection   TEXT NOT NULL,
    prediction  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS he_tallies (
    id         INTEGER PRIMARY KEY,
    audit_id   INTEGER NOT NULL REFERENCES he_audits(id),
    attempt    INTEGER NOT NULL,
    counter    TEXT NOT NULL,
    party      TEXT NOT NULL,
    counts     TEXT NOT NULL,
    entered_at TEXT NOT NULL,
    entered_by TEXT NOT NULL,
    UNIQUE (audit_id, attempt, party),
    UNIQUE (audit_id, attempt, counter)
);
CREATE TABLE IF NOT EXISTS he_tapes (
    id         INTEGER PRIMARY KEY,
    audit_id   INTEGER NOT NULL REFERENCES he_audits(id),
    source     TEXT NOT NULL,
    counts     TEXT NOT NULL,
    entered_at TEXT NOT NULL,
    entered_by TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS he_findings (
    id        INTEGER PRIMARY KEY,
    audit_id  INTEGER NOT NULL REFERENCES he_audits(id),
    kind      TEXT NOT NULL CHECK (kind IN ('determination', 'signature', 'annotation')),
    author    TEXT NOT NULL,
    party     TEXT NOT NULL DEFAULT '',
    text      TEXT NOT NULL,
    at        TEXT NOT NULL
);
"""
_APPEND_ONLY = ("he_audits", "he_tallies", "he_tapes", "he_findings")
_REFUSAL = "the hand-to-eye audit records are append-only"
#: PostgreSQL's form of the same refusal: one trigger function, a trigger per table (made once).
_PG_APPEND_ONLY = (
    "CREATE OR REPLACE FUNCTION he_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
    # an integrity error, as SQLite's RAISE(ABORT) is: callers catch one kind on both backends
    f"BEGIN RAISE EXCEPTION '{_REFUSAL}' USING ERRCODE = 'integrity_constraint_violation'; END $$;"
    + "".join(
        f"CREATE OR REPLACE TRIGGER {t}_no_change BEFORE UPDATE OR DELETE ON {t} "
        "FOR EACH ROW EXECUTE FUNCTION he_append_only();"
        for t in _APPEND_ONLY
    )
)


class AuditError(TabulateError, ValueError):
    """A request the audit's state does not allow (no such audit, already signed ...)."""

    code = "audit"


@dataclass(frozen=True)
class Audit:
    id: int
    created_at: str
    created_by: str
    tabulator: str
    contest_id: str
    selection: Mapping
    prediction: Mapping


@dataclass(frozen=True)
class Finding:
    """A determination, a signature or an annotation, as typed by a board member."""

    kind: str
    author: str
    party: str
    text: str
    at: str

    def to_dict(self) -> dict:
        return {"kind": self.kind, "author": self.author, "party": self.party, "text": self.text, "at": self.at}


@dataclass(frozen=True)
class Tape:
    source: str
    counts: Mapping[str, int]
    entered_at: str
    entered_by: str


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def migrate(conn: Connection) -> None:
    """Create the audit's tables (and adjudication's, for the audit log) if missing, on either backend."""
    migrate_adjudication(conn)
    with transaction(conn):
        sqldb.run_script(conn, _TABLES)
        if sqldb.is_postgres(conn):
            sqldb.run_script(conn, _PG_APPEND_ONLY)
            return
        for t in _APPEND_ONLY:
            for op in ("UPDATE", "DELETE"):
                conn.execute(
                    f"CREATE TRIGGER IF NOT EXISTS {t}_no_{op.lower()} BEFORE {op} ON {t} "
                    f"BEGIN SELECT RAISE(ABORT, '{_REFUSAL}'); END"
                )


def _audit(row) -> Audit:
    return Audit(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), json.loads(row[6]))


def create_audit(conn: Connection, actor: str, selection: Mapping, prediction: Mapping) -> Audit:
    """Record a selection and the prediction made from the store as it is now; log both."""
    with transaction(conn):
        at = now()
        cur = conn.execute(
            "INSERT INTO he_audits (created_at, created_by, tabulator, contest_id, selection, "
            "prediction) VALUES (?, ?, ?, ?, ?, ?)",
            (
                at,
                actor,
                selection["tabulator"],
                selection["contest_id"],
                json.dumps(selection, sort_keys=True),
                json.dumps(prediction, sort_keys=True),
            ),
        )
        audit_id = cur.lastrowid
        auditlog.append(
            conn,
            actor,
            "handeye_select",
            detail={"audit": audit_id, **selection},
            facts=seal_row(conn, "he_audit:", audit_id),
        )
        auditlog.append(
            conn,
            actor,
            "handeye_prediction",
            detail={
                "audit": audit_id,
                "options": prediction.get("options", []),
                "ballots": [b["sheet_id"] for b in prediction.get("ballots", [])],
            },
        )
    return get_audit(conn, audit_id)


def get_audit(conn: Connection, audit_id: int) -> Audit:
    row = conn.execute(
        "SELECT id, created_at, created_by, tabulator, contest_id, selection, prediction FROM he_audits WHERE id = ?",
        (int(audit_id),),
    ).fetchone()
    if row is None:
        raise AuditError(f"there is no hand-to-eye audit {audit_id} in this store")
    return _audit(row)


def audits(conn: Connection) -> list[Audit]:
    rows = conn.execute(
        "SELECT id, created_at, created_by, tabulator, contest_id, selection, prediction FROM he_audits ORDER BY id"
    )
    return [_audit(r) for r in rows]


def findings(conn: Connection, audit_id: int, kind: str | None = None) -> list[Finding]:
    sql = "SELECT kind, author, party, text, at FROM he_findings WHERE audit_id = ?"
    args: list = [int(audit_id)]
    if kind:
        sql += " AND kind = ?"
        args.append(kind)
    return [Finding(*r) for r in conn.execute(sql + " ORDER BY id", args)]


def signed(conn: Connection, audit_id: int) -> bool:
    return bool(findings(conn, audit_id, "signature"))


def _open(conn: Connection, audit_id: int) -> Audit:
    audit = get_audit(conn, audit_id)
    if signed(conn, audit_id):
        raise AuditError(
            f"audit {audit_id} is signed by the board: it can no longer be edited, only annotated "
            "(tabulate audit annotate)"
        )
    return audit


def tallies(conn: Connection, audit_id: int) -> list[TallyEntry]:
    rows = conn.execute(
        "SELECT attempt, counter, party, counts, entered_at, entered_by FROM he_tallies WHERE audit_id = ? ORDER BY id",
        (int(audit_id),),
    )
    return [TallyEntry(r[0], r[1], r[2], json.loads(r[3]), r[4], r[5]) for r in rows]


def add_tally(conn: Connection, audit_id: int, entry: TallyEntry, *, actor: str) -> None:
    """Store one counter's tally of one attempt and log it (the counts go into the log too)."""
    with transaction(conn):
        _open(conn, audit_id)
        try:
            cur = conn.execute(
                "INSERT INTO he_tallies (audit_id, attempt, counter, party, counts, entered_at, "
                "entered_by) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    int(audit_id),
                    entry.attempt,
                    entry.counter,
                    entry.party,
                    json.dumps(dict(entry.counts)),
                    entry.entered_at or now(),
                    actor,
                ),
            )
        except IntegrityError:
            raise AuditError(
                f"attempt {entry.attempt} already has a tally by {entry.counter} or by a counter of party {entry.party}"
            ) from None
        auditlog.append(
            conn,
            actor,
            "handeye_tally",
            detail={
                "audit": int(audit_id),
                "attempt": entry.attempt,
                "counter": entry.counter,
                "party": entry.party,
                "counts": dict(entry.counts),
            },
            facts=seal_row(conn, "he_tally:", cur.lastrowid),
        )


def log_attempt_outcome(
    conn: Connection, audit_id: int, attempt: int, differences: tuple[str, ...], *, actor: str
) -> None:
    auditlog.append(
        conn,
        actor,
        "handeye_tallies_match" if not differences else "handeye_tallies_differ",
        detail={"audit": int(audit_id), "attempt": attempt, "options": list(differences)},
    )


def add_tape(conn: Connection, audit_id: int, source: str, counts: Mapping[str, int], *, actor: str) -> None:
    with transaction(conn):
        _open(conn, audit_id)
        cur = conn.execute(
            "INSERT INTO he_tapes (audit_id, source, counts, entered_at, entered_by) VALUES (?, ?, ?, ?, ?)",
            (int(audit_id), source, json.dumps(dict(counts)), now(), actor),
        )
        auditlog.append(
            conn,
            actor,
            "handeye_tape",
            detail={"audit": int(audit_id), "source": source, "counts": dict(counts)},
            facts=seal_row(conn, "he_tape:", cur.lastrowid),
        )


def tape(conn: Connection, audit_id: int) -> Tape | None:
    """The latest tape entered (earlier ones stay in the table and the log)."""
    row = conn.execute(
        "SELECT source, counts, entered_at, entered_by FROM he_tapes WHERE audit_id = ? ORDER BY id DESC LIMIT 1",
        (int(audit_id),),
    ).fetchone()
    return None if row is None else Tape(row[0], json.loads(row[1]), row[2], row[3])


def add_finding(
    conn: Connection, audit_id: int, kind: str, author: str, text: str, *, party: str = "", actor: str
) -> None:
    """A determination or signature (refused once signed) or an annotation (always allowed)."""
    author, text = " ".join(author.split()), " ".join(text.split())
    if not author:
        raise AuditError("say who is writing (the board member's name)")
    if kind != "signature" and not text:
        raise AuditError(f"the {kind} is empty")
    with transaction(conn):
        # Signing closes the audit; more board members may still sign after the first.
        get_audit(conn, audit_id) if kind in ("annotation", "signature") else _open(conn, audit_id)
        if kind == "signature" and any(
            f.author.casefold() == author.casefold() for f in findings(conn, audit_id, "signature")
        ):
            raise AuditError(f"{author} has already signed")
        cur = conn.execute(
            "INSERT INTO he_findings (audit_id, kind, author, party, text, at) VALUES (?, ?, ?, ?, ?, ?)",
            (int(audit_id), kind, author, party, text, now()),
        )
        auditlog.append(
            conn,
            actor,
            f"handeye_{kind}",
            detail={"audit": int(audit_id), "author": author, "party": party, "text": text},
            facts=seal_row(conn, "he_finding:", cur.lastrowid),
        )
