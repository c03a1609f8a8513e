"""The default store: one SQLite file in WAL mode.

Durability settings, and why
----------------------------
``journal_mode=WAL``
    Readers (``tabulate status``, the review UI) never block the scanner's
    writes, and a crash mid-transaction leaves the last committed state.
``synchronous=FULL``
    In WAL mode ``NORMAL`` survives a killed process but a *power cut* may
    roll back the last commits, after ``tabulate scan`` has already told the
    clerk the batch is done -- and a clerk who believes it will not rescan.
    ``FULL`` syncs the WAL at every commit, so what the summary reports is on
    disk. The pipeline commits groups of sheets (see `tabulate.central`), so
    this costs a few fsyncs a second, not one per sheet.
``foreign_keys=ON``
    A vote, page or reason cannot point at a sheet that does not exist.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Mapping

from ..election import Election, ElectionError, parse_election
from ..election.load import normalise
from ..election.model import canonical_json, election_hash
from . import _schema
from . import journal as _journal
from ._codec import now_utc
from ._sqlite_read import SheetReader
from ._sqlite_record import SheetRecorder
from .base import (
    Batch,
    BatchCounts,
    BatchMismatchError,
    ElectionMismatchError,
    StoreError,
)
from .facts import election_fact


def _batch_differences(batch: Batch, **given) -> list[str]:
    """``"<what> <opened with>, this run <given>"`` for each detail a resumed batch would change."""
    names = {"vote_type": "vote type", "precinct_id": "precinct", "tabulator": "tabulator", "operator": "operator"}
    shown = lambda v: "none" if v is None else str(v)
    return [
        f"{names[k]} {shown(getattr(batch, k))}, this run {shown(v)}"
        for k, v in given.items()
        if getattr(batch, k) != v
    ]


class SQLiteStore(SheetRecorder, SheetReader):
    """`tabulate.store.Store` over one SQLite file; open it with `open_sqlite`.

    Recording sheets is `SheetRecorder`'s (with the journal, `JournalMixin`), reading them back `SheetReader`'s.
    """

    def __init__(self, db: sqlite3.Connection, path: str):
        self._db = db
        self.path = path
        #: What to connect to again (``path`` is for messages: on PostgreSQL it hides the password).
        self.location = path
        self._election: Election | None = None

    # -- plumbing -----------------------------------------------------------------------
    @contextmanager
    def _transaction(self):
        # IMMEDIATE takes the write lock up front, so the duplicate checks and
        # the inserts that depend on them see one consistent database.
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as e:
            # A full disk, a read-only file, a lock held too long: the store
            # cannot be written, and nothing of this transaction was.
            raise StoreError(f"cannot write to the store {self.path}: {e}") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- the election -------------------------------------------------------------------
    def election(self) -> Election | None:
        if self._election is None:
            row = self._db.execute("SELECT hash, definition FROM election").fetchone()
            if row is None:
                return None
            try:
                election = parse_election(json.loads(row[1]), f"{self.path} (stored election)")
            except (ElectionError, ValueError) as e:
                raise StoreError(f"{self.path}: the stored election definition cannot be read: {e}") from None
            if election.hash != row[0]:
                raise StoreError(f"{self.path}: the stored election definition does not match its hash")
            self._election = election
        return self._election

    def bind_election(self, election: Election, definition: Mapping) -> None:
        canonical = normalise(dict(definition))
        if election_hash(canonical) != election.hash:
            raise ValueError("the election definition given does not hash to the election's hash")
        with self._transaction() as db:
            row = db.execute("SELECT hash, title FROM election").fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO election (id, hash, title, definition, bound_at) VALUES (1, ?, ?, ?, ?)",
                    (election.hash, election.title, canonical_json(canonical).decode("utf-8"), now_utc()),
                )
                self._append_event(
                    db,
                    "election_bound",
                    data={"hash": election.hash, "title": election.title},
                    facts={"election": _journal.digest(election_fact(election.hash, election.title))},
                )
            elif row[0] != election.hash:
                raise ElectionMismatchError(
                    f"{self.path} holds the election {row[1]!r} (hash {row[0][:12]}), not {election.title!r} "
                    f"(hash {election.hash[:12]}); use a new --db for a different election"
                )
        # The stored definition is the one given (its canonical form hashes to ``election.hash``, checked
        # above), so the election built from it is this one: kept, so the first sheets recorded do not
        # validate and build it again (0.1-0.15 CPU s of a scan's parent, most of it the JSON schema).
        self._election = election

    # -- batches --------------------------------------------------------------------------
    @staticmethod
    def _batch(row) -> Batch:
        return Batch(*row)

    _BATCH_COLS = "id, name, vote_type, precinct_id, operator, started_at, ended_at, tabulator"

    def open_batch(
        self,
        name: str,
        vote_type: str,
        *,
        precinct_id: str | None = None,
        operator: str | None = None,
        tabulator: str = "1",
    ) -> Batch:
        with self._transaction() as db:
            row = db.execute(f"SELECT {self._BATCH_COLS} FROM batches WHERE name = ?", (name,)).fetchone()
            if row is not None:
                batch = self._batch(row)
                differences = _batch_differences(
                    batch, vote_type=vote_type, precinct_id=precinct_id, tabulator=tabulator, operator=operator
                )
                if differences:
                    # Resuming keeps the batch's details: a run that says otherwise is a mistake
                    # (another tub under a reused name, a second station), never silently merged.
                    raise BatchMismatchError(
                        f"batch {name!r} was opened with {'; '.join(differences)}; "
                        "resume it with the same settings or use another batch name"
                    )
                # ended_at says the last run went to the end; this one has not yet.
                db.execute("UPDATE batches SET ended_at = NULL WHERE id = ?", (batch.id,))
                self._append_event(
                    db, "batch_resumed", actor=operator, batch_id=batch.id, facts=self._batch_facts(db, batch.id)
                )
                return replace(batch, ended_at=None)
            cur = db.execute(
                "INSERT INTO batches (name, vote_type, precinct_id, operator, started_at, tabulator) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (name, vote_type, precinct_id, operator, now_utc(), tabulator),
            )
            self._append_event(
                db,
                "batch_opened",
                actor=operator,
                batch_id=cur.lastrowid,
                data={"name": name, "vote_type": vote_type, "precinct_id": precinct_id, "tabulator": tabulator},
                facts=self._batch_facts(db, cur.lastrowid),
            )
            row = db.execute(f"SELECT {self._BATCH_COLS} FROM batches WHERE id = ?", (cur.lastrowid,)).fetchone()
            return self._batch(row)

    def close_batch(self, batch_id: int) -> Batch:
        with self._transaction() as db:
            db.execute("UPDATE batches SET ended_at = ? WHERE id = ?", (now_utc(), batch_id))
            counts = dict(
                db.execute(
                    "SELECT status, COUNT(*) FROM sheets WHERE batch_id = ? GROUP BY status", (batch_id,)
                ).fetchall()
            )
            self._append_event(
                db, "batch_closed", batch_id=batch_id, data={"sheets": counts}, facts=self._batch_facts(db, batch_id)
            )
            return self._batch(
                db.execute(f"SELECT {self._BATCH_COLS} FROM batches WHERE id = ?", (batch_id,)).fetchone()
            )

    def batches(self) -> list[Batch]:
        return [self._batch(r) for r in self._db.execute(f"SELECT {self._BATCH_COLS} FROM batches ORDER BY id")]

    def batch_counts(self) -> list[BatchCounts]:
        by_status: dict[int, dict[str, int]] = {}
        for batch_id, status, n in self._db.execute(
            "SELECT batch_id, status, COUNT(*) FROM sheets GROUP BY batch_id, status"
        ):
            by_status.setdefault(batch_id, {})[status] = n
        by_reason: dict[int, dict[tuple[str, str], int]] = {}
        for batch_id, status, code, n in self._db.execute(
            "SELECT s.batch_id, s.status, r.code, COUNT(DISTINCT s.id) FROM sheets s "
            "JOIN sheet_reasons r ON r.sheet_id = s.id WHERE r.queued = 1 GROUP BY s.batch_id, s.status, r.code"
        ):
            by_reason.setdefault(batch_id, {})[(status, code)] = n
        return [BatchCounts(b, **by_status.get(b.id, {}), by_reason=by_reason.get(b.id, {})) for b in self.batches()]


def open_sqlite(path: str | Path, *, create: bool = True) -> SQLiteStore:
    """Open (or create) a store file and bring its schema up to date.

    Raises
    ------
    StoreError
        The file is missing (with ``create=False``), cannot be created or
        written, is not a SQLite database, or was written by a newer tabulate.
    """
    path = Path(path)
    if not create and not path.is_file():
        raise StoreError(f"no store at {path}")
    if create and not path.parent.is_dir():
        raise StoreError(f"cannot create the store {path}: folder {path.parent} does not exist")
    try:
        db = sqlite3.connect(str(path), isolation_level=None, timeout=30.0)
    except sqlite3.Error as e:
        raise StoreError(f"cannot open the store {path}: {e}") from None
    try:
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StoreError(f"cannot put the store {path} in WAL mode (got {mode})")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
        before = _schema.migrate(db)
    except sqlite3.DatabaseError as e:
        db.close()
        raise StoreError(f"cannot use {path} as a store: {e}") from None
    except ValueError as e:
        db.close()
        raise StoreError(f"cannot use {path} as a store: {e}") from None
    except StoreError:
        db.close()
        raise
    store = SQLiteStore(db, str(path))
    if 0 < before < 2:
        # Only on the upgrade itself: an emptied journal later is tampering, not an old store.
        store._adopt_legacy()
    return store
