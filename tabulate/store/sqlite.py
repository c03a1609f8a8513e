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
from typing import Iterator, Mapping, Sequence

from ..election import Election, ElectionError, parse_election
from ..election.load import normalise
from ..election.model import canonical_json, election_hash
from ..rules.types import AdjudicationReason, BallotVotes, ContestVotes
from . import _schema
from . import journal as _journal
from ._codec import contest_votes_from_dict, contest_votes_to_dict, dumps, now_utc
from ._sqlite_journal import JournalMixin
from .base import (
    DUPLICATE_SHEET,
    LIVE_STATUSES,
    PAGE_ALREADY_SCANNED,
    Batch,
    BatchCounts,
    BatchMismatchError,
    ElectionMismatchError,
    PageImage,
    Recorded,
    SheetOutcome,
    SheetReason,
    StoredSheet,
    StoreError,
)
from .evidence import decode_evidence, decode_marks, encode_marks, to_stored_evidence
from .facts import election_fact

_LIVE = "('" + "','".join(LIVE_STATUSES) + "')"
#: Sheets fetched per round trip when streaming `SQLiteStore.sheets`.
_CHUNK = 500


def _batch_differences(batch: Batch, **given) -> list[str]:
    """``"<what> <opened with>, this run <given>"`` for each detail a resumed batch would change."""
    names = {"vote_type": "vote type", "precinct_id": "precinct", "tabulator": "tabulator", "operator": "operator"}
    shown = lambda v: "none" if v is None else str(v)
    return [
        f"{names[k]} {shown(getattr(batch, k))}, this run {shown(v)}"
        for k, v in given.items()
        if getattr(batch, k) != v
    ]


class SQLiteStore(JournalMixin):
    """`tabulate.store.Store` over one SQLite file; open it with `open_sqlite`."""

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

    # -- sheets ---------------------------------------------------------------------------
    def has_sheet(self, batch_id: int, identity: str, occurrence: int) -> bool:
        return (
            self._db.execute(
                "SELECT 1 FROM sheets WHERE batch_id = ? AND identity = ? AND occurrence = ?",
                (batch_id, identity, occurrence),
            ).fetchone()
            is not None
        )

    def sheet_count(self, batch_id: int) -> int:
        return self._db.execute("SELECT COUNT(*) FROM sheets WHERE batch_id = ?", (batch_id,)).fetchone()[0]

    def _live_original(self, db, o: SheetOutcome) -> tuple[int, SheetReason] | None:
        """The live sheet this outcome repeats (same identity, or sharing a page), with the reason."""
        row = db.execute(
            f"SELECT s.id, b.name, s.position FROM sheets s JOIN batches b ON b.id = s.batch_id "
            f"WHERE s.identity = ? AND s.status IN {_LIVE} ORDER BY s.id LIMIT 1",
            (o.identity,),
        ).fetchone()
        if row is not None:
            return row[0], SheetReason(DUPLICATE_SHEET, f"same images as sheet {row[2]} of batch {row[1]!r}")
        for page in o.pages:
            row = db.execute(
                f"SELECT s.id, b.name, s.position FROM pages p JOIN sheets s ON s.id = p.sheet_id "
                f"JOIN batches b ON b.id = s.batch_id WHERE p.sha256 = ? AND s.status IN {_LIVE} "
                f"ORDER BY s.id LIMIT 1",
                (page.sha256,),
            ).fetchone()
            if row is not None:
                return row[0], SheetReason(
                    PAGE_ALREADY_SCANNED, f"page {page.source} is already in sheet {row[2]} of batch {row[1]!r}"
                )
        return None

    def record_sheets(self, batch_id: int, outcomes: Sequence[SheetOutcome]) -> list[Recorded]:
        results: list[Recorded] = []
        added = 0
        with self._transaction() as db:
            now = now_utc()
            for o in outcomes:
                row = db.execute(
                    "SELECT id, status, duplicate_of FROM sheets "
                    "WHERE batch_id = ? AND identity = ? AND occurrence = ?",
                    (batch_id, o.identity, o.occurrence),
                ).fetchone()
                if row is not None:
                    results.append(Recorded(row[0], False, row[1], row[2]))
                    continue
                original = self._live_original(db, o)
                results.append(self._insert(db, batch_id, o, original, now))
                added += 1
            if added:
                new = [r.sheet_id for r in results if r.added]
                self._append_event(
                    db,
                    "sheets_recorded",
                    batch_id=batch_id,
                    data={"added": added, "first_sheet_id": min(new), "last_sheet_id": max(new)},
                    facts=self._sheet_facts(db, new),
                )
        return results

    def _insert(self, db, batch_id: int, o: SheetOutcome, original, now: str) -> Recorded:
        status, reasons, duplicate_of = o.status, o.reasons, None
        if original is not None:
            duplicate_of, reason = original
            status, reasons = "duplicate", (reason,)
        votes = o.votes if status in LIVE_STATUSES else None
        position = o.position
        if db.execute("SELECT 1 FROM sheets WHERE batch_id = ? AND position = ?", (batch_id, position)).fetchone():
            # Only when a later run's input differs from the first (pages added or
            # removed mid-folder): the new sheet goes after the batch's last one.
            position = db.execute("SELECT MAX(position) + 1 FROM sheets WHERE batch_id = ?", (batch_id,)).fetchone()[0]
        cur = db.execute(
            "INSERT INTO sheets (batch_id, position, identity, occurrence, status, style_id, precinct_id, "
            "straight_party, blank, duplicate_of, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                batch_id,
                position,
                o.identity,
                o.occurrence,
                status,
                o.style_id,
                o.precinct_id,
                votes.straight_party if votes else None,
                int(bool(votes and votes.blank)),
                duplicate_of,
                now,
            ),
        )
        sheet_id = cur.lastrowid
        db.executemany(
            "INSERT INTO pages (sheet_id, side, source, sha256) VALUES (?, ?, ?, ?)",
            [(sheet_id, n, p.source, p.sha256) for n, p in enumerate(o.pages, 1)],
        )
        queue = self._queued_codes()
        # A counted sheet's reasons (an undervote) are notes; a sheet in review is there for the
        # reasons the election queues; a sheet set aside, for all of its reasons.
        queued = [
            status in ("rejected", "duplicate") or (status == "needs_review" and r.code in queue) for r in reasons
        ]
        db.executemany(
            "INSERT INTO sheet_reasons (sheet_id, seq, code, detail, contest_id, option_id, queued) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                (sheet_id, n, r.code, r.detail, r.contest_id, r.option_id, int(q))
                for n, (r, q) in enumerate(zip(reasons, queued))
            ],
        )
        if status != "duplicate" and (o.evidence is not None or o.marks is not None):
            election = self.election()
            db.execute(
                "INSERT INTO readings (sheet_id, evidence, marks_z) VALUES (?, ?, ?)",
                (sheet_id, to_stored_evidence(o.evidence, election), encode_marks(o.marks, election)),
            )
        if votes is not None:
            db.executemany(
                "INSERT INTO votes (sheet_id, contest_id, seq, status, selections, overvotes, undervotes, "
                "from_straight_party, clauses) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        sheet_id,
                        c.contest_id,
                        n,
                        c.status,
                        dumps(list(c.selections)),
                        c.overvotes,
                        c.undervotes,
                        int(c.from_straight_party),
                        dumps(list(c.clauses)),
                    )
                    for n, c in enumerate(votes.contests)
                ],
            )
        codes = tuple(dict.fromkeys(r.code for r, q in zip(reasons, queued) if q))
        return Recorded(sheet_id, True, status, duplicate_of, codes)

    def _queued_codes(self) -> frozenset[str]:
        election = self.election()
        return frozenset(election.adjudication.reasons) if election else frozenset()

    _SHEET_COLS = (
        "id, batch_id, position, identity, status, style_id, precinct_id, straight_party, blank, "
        "duplicate_of, recorded_at"
    )

    def sheets(self, *, batch_id: int | None = None, status: str | None = None) -> Iterator[StoredSheet]:
        batches = {b.id: b for b in self.batches()}
        where, params = [], []
        if batch_id is not None:
            where.append("batch_id = ?")
            params.append(batch_id)
        if status is not None:
            where.append("status = ?")
            params.append(status)
        sql = (
            f"SELECT {self._SHEET_COLS} FROM sheets"
            + (" WHERE " + " AND ".join(where) if where else "")
            + " ORDER BY batch_id, position, id"
        )
        cur = self._db.execute(sql, params)
        while rows := cur.fetchmany(_CHUNK):
            yield from self._assemble(rows, batches)

    def sheet(self, sheet_id: int) -> StoredSheet:
        rows = self._db.execute(f"SELECT {self._SHEET_COLS} FROM sheets WHERE id = ?", (sheet_id,)).fetchall()
        if not rows:
            raise KeyError(sheet_id)
        return self._assemble(rows, {b.id: b for b in self.batches()})[0]

    def _assemble(self, rows, batches: Mapping[int, Batch]) -> list[StoredSheet]:
        ids = [r[0] for r in rows]
        marks_ = ",".join("?" * len(ids))
        pages: dict[int, list[PageImage]] = {i: [] for i in ids}
        for sid, source, sha in self._db.execute(
            f"SELECT sheet_id, source, sha256 FROM pages WHERE sheet_id IN ({marks_}) ORDER BY sheet_id, side", ids
        ):
            pages[sid].append(PageImage(source, sha))
        reasons: dict[int, list[SheetReason]] = {i: [] for i in ids}
        for sid, code, detail, cid, oid in self._db.execute(
            f"SELECT sheet_id, code, detail, contest_id, option_id FROM sheet_reasons "
            f"WHERE sheet_id IN ({marks_}) ORDER BY sheet_id, seq",
            ids,
        ):
            reasons[sid].append(SheetReason(code, detail, cid, oid))
        votes: dict[int, list[ContestVotes]] = {i: [] for i in ids}
        modified: dict[int, dict[str, ContestVotes]] = {i: {} for i in ids}
        for sid, cid, st, sel, over, under, sp, clauses, mod in self._db.execute(
            f"SELECT sheet_id, contest_id, status, selections, overvotes, undervotes, from_straight_party, "
            f"clauses, modified FROM votes WHERE sheet_id IN ({marks_}) ORDER BY sheet_id, seq",
            ids,
        ):
            votes[sid].append(
                ContestVotes(cid, st, tuple(json.loads(sel)), over, under, bool(sp), tuple(json.loads(clauses)))
            )
            if mod is not None:
                modified[sid][cid] = contest_votes_from_dict(json.loads(mod))
        election = self.election()
        marks = {
            sid: decode_marks(packed, text, election)
            for sid, text, packed in self._db.execute(
                f"SELECT sheet_id, marks, marks_z FROM readings WHERE sheet_id IN ({marks_})", ids
            )
        }
        out = []
        for sid, bid, pos, identity, status, style, precinct, sp, blank, dup, at in rows:
            batch = batches[bid]
            interpreted = None
            if status in LIVE_STATUSES:
                interpreted = BallotVotes(
                    ballot_id=identity,
                    style_id=style or "",
                    contests=tuple(votes[sid]),
                    precinct_id=precinct,
                    straight_party=sp,
                    reasons=tuple(
                        AdjudicationReason(r.code, r.contest_id, r.option_id, r.detail) for r in reasons[sid]
                    ),
                    needs_review=status == "needs_review",
                    blank=bool(blank),
                )
            out.append(
                StoredSheet(
                    sid,
                    batch,
                    pos,
                    identity,
                    status,
                    tuple(pages[sid]),
                    tuple(reasons[sid]),
                    style,
                    precinct,
                    dup,
                    at,
                    interpreted,
                    modified[sid],
                    marks.get(sid),
                )
            )
        return out

    def evidence(self, sheet_id: int) -> dict | None:
        """The reader's evidence for one sheet (its ``SheetReading.to_dict`` document), or None."""
        row = self._db.execute("SELECT evidence FROM readings WHERE sheet_id = ?", (sheet_id,)).fetchone()
        return decode_evidence(row[0], self.election()) if row else None

    def set_modified(self, sheet_id: int, votes: Sequence[ContestVotes], *, actor: str, note: str = "") -> None:
        with self._transaction() as db:
            for v in votes:
                cur = db.execute(
                    "UPDATE votes SET modified = ? WHERE sheet_id = ? AND contest_id = ?",
                    (dumps(contest_votes_to_dict(v)), sheet_id, v.contest_id),
                )
                if cur.rowcount != 1:
                    raise KeyError(f"sheet {sheet_id} has no votes for contest {v.contest_id!r}")
            self._append_event(
                db,
                "votes_modified",
                actor=actor,
                sheet_id=sheet_id,
                data={"note": note, "contests": [contest_votes_to_dict(v) for v in votes]},
                facts=self._sheet_facts(db, [sheet_id]),
            )


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
