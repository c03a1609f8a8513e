"""The SQLite store's journal: appending entries that seal rows, and reading the rows back as facts.

A mixin of `tabulate.store.sqlite.SQLiteStore` (one file per concept: the
store's tables there, the journal's use of them here). See
`tabulate.store.journal` for the format and docs/store.md for what is sealed.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

from . import journal as _journal
from . import journal_signing
from .base import Batch, StoredSheet, StoreError
from .evidence import EvidenceError, evidence_digest
from .facts import batch_fact, election_fact, sheet_fact

#: Sheets read per round trip when sealing or checking.
_CHUNK = 500


class JournalMixin:
    """Journal methods over ``self._db``; the host class provides `_assemble`, `batches`, `_batch`."""

    # What the host (`SQLiteStore`) provides.
    _db: sqlite3.Connection
    path: str
    _BATCH_COLS: str
    _SHEET_COLS: str

    if TYPE_CHECKING:

        @staticmethod
        def _batch(row: Any) -> Batch: ...

        def batches(self) -> list[Batch]: ...

        def _assemble(self, rows: Any, batches: Mapping[int, Batch]) -> list[StoredSheet]: ...

        def _transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def _append_event(
        self,
        db,
        kind: str,
        *,
        actor: str | None = None,
        batch_id: int | None = None,
        sheet_id: int | None = None,
        data: Mapping | None = None,
        facts: Mapping[str, str] | None = None,
    ) -> _journal.JournalEntry:
        data = dict(data or {})
        if batch_id is not None:
            data.setdefault("batch_id", batch_id)
        return _journal.append(db, kind, actor=actor, sheet=sheet_id, data=data, facts=facts)

    def _batch_facts(self, db, batch_id: int) -> dict[str, str]:
        row = db.execute(f"SELECT {self._BATCH_COLS} FROM batches WHERE id = ?", (batch_id,)).fetchone()
        return {f"batch:{batch_id}": _journal.digest(batch_fact(self._batch(row)))}

    def _evidence_sha256(self, db, sheet_ids: Sequence[int]) -> dict[int, str | None]:
        marks_ = ",".join("?" * len(sheet_ids))
        out: dict[int, str | None] = {}
        for sid, blob in db.execute(
            f"SELECT sheet_id, evidence FROM readings WHERE sheet_id IN ({marks_})", list(sheet_ids)
        ):
            try:
                out[sid] = evidence_digest(blob)
            except (EvidenceError, TypeError):
                out[sid] = "unreadable"  # never what was sealed: the sheet is named as altered
        return out

    def _sheet_facts(self, db, sheet_ids: Sequence[int]) -> dict[str, str]:
        """Seal these sheets as they are now in the open transaction (read back, as `facts` reads them)."""
        out: dict[str, str] = {}
        batches = {b.id: b for b in self.batches()}
        for start in range(0, len(sheet_ids), _CHUNK):
            chunk = list(sheet_ids[start : start + _CHUNK])
            rows = db.execute(
                f"SELECT {self._SHEET_COLS} FROM sheets WHERE id IN ({','.join('?' * len(chunk))})", chunk
            ).fetchall()
            evidence = self._evidence_sha256(db, chunk)
            for sheet in self._assemble(rows, batches):
                out[f"sheet:{sheet.id}"] = _journal.digest(sheet_fact(sheet, evidence.get(sheet.id)))
        return out

    def log(
        self,
        kind: str,
        *,
        actor: str | None = None,
        batch_id: int | None = None,
        sheet_id: int | None = None,
        data: Mapping | None = None,
    ) -> _journal.JournalEntry:
        with self._transaction() as db:
            return self._append_event(db, kind, actor=actor, batch_id=batch_id, sheet_id=sheet_id, data=data)

    def journal(self) -> Iterator[_journal.JournalEntry]:
        return _journal.entries(self._db)

    def journal_head(self) -> tuple[int, str]:
        return _journal.head(self._db)

    def verify_journal(self, *, from_head: str | None = None, county_key: str | None = None) -> _journal.ChainCheck:
        return _journal.verify_chain(self._db, from_head=from_head, county_key=county_key)

    def journal_registry(self) -> journal_signing.Registry:
        return journal_signing.registry(self._db)

    def signing_problem(self, signer: journal_signing.Signer | None) -> str | None:
        return journal_signing.check_registered(self._db, signer)

    def register_station(
        self, name: str, public_key: str, *, county: journal_signing.Signer, actor: str | None = None
    ) -> _journal.JournalEntry:
        with self._transaction() as db:
            return _journal.append(
                db,
                journal_signing.REGISTER,
                actor=actor,
                data={"station": name, "public_key": public_key},
                signer=county,
            )

    def facts(self) -> Iterator[tuple[str, str]]:
        election = self._db.execute("SELECT hash, title FROM election").fetchone()
        if election is not None:
            yield "election", _journal.digest(election_fact(election[0], election[1]))
        for batch in self.batches():
            yield f"batch:{batch.id}", _journal.digest(batch_fact(batch))
        batches = {b.id: b for b in self.batches()}
        cur = self._db.execute(f"SELECT {self._SHEET_COLS} FROM sheets ORDER BY id")
        while rows := cur.fetchmany(_CHUNK):
            evidence = self._evidence_sha256(self._db, [r[0] for r in rows])
            for key, sheet in self._assemble_each(rows, batches):
                yield key, "unreadable" if sheet is None else _journal.digest(sheet_fact(sheet, evidence.get(sheet.id)))

    def _assemble_each(self, rows, batches) -> Iterator[tuple[str, StoredSheet | None]]:
        """Assemble rows a chunk at a time; a row edited outside tabulate that does not parse gives None."""
        try:
            for sheet in self._assemble(rows, batches):
                yield f"sheet:{sheet.id}", sheet
            return
        except (ValueError, KeyError, TypeError, AttributeError):
            pass
        for row in rows:  # find which: a broken fact to name, not a crash
            try:
                yield f"sheet:{row[0]}", self._assemble([row], batches)[0]
            except (ValueError, KeyError, TypeError, AttributeError):
                yield f"sheet:{row[0]}", None

    # The names the store used before the journal (one chain now; kept for callers).
    events = journal

    def verify_events(self) -> int:
        check = self.verify_journal()
        if not check.ok:
            raise StoreError(f"{self.path}: {check.problem}")
        return check.entries

    def _adopt_legacy(self) -> None:
        """Seal a store written before the journal: its old event log's head and every row it holds.

        Trust on first use: rows written by an older tabulate are taken as
        they are when this version first opens the store (docs/store.md).
        """
        if self._db.execute("SELECT 1 FROM election UNION SELECT 1 FROM batches LIMIT 1").fetchone() is None:
            return
        with self._transaction() as db:
            last = db.execute("SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1").fetchone()
            facts = dict(self.facts())
            _journal.append(
                db,
                "journal_started",
                data={"legacy_events": last[0] if last else 0, "legacy_events_head": last[1] if last else None},
                facts=facts,
            )
