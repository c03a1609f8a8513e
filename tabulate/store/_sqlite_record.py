"""The SQLite store's writes of sheets: recording a group of sheets (and their duplicates), and decisions' votes.

A mixin of `tabulate.store.sqlite.SQLiteStore` (one file per concept: the
store's connection, election and batches there, recording sheets here,
reading them back in `tabulate.store._sqlite_read`, the journal in
`tabulate.store._sqlite_journal`).
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING, Iterator, Sequence

from ..core.votes import ContestVotes
from ..election import Election
from ._codec import contest_votes_to_dict, dumps, ids_text, now_utc
from ._sqlite_journal import JournalMixin
from .base import DUPLICATE_SHEET, LIVE_STATUSES, PAGE_ALREADY_SCANNED, Recorded, SheetOutcome, SheetReason
from .evidence import encode_marks, to_stored_evidence

_LIVE = "('" + "','".join(LIVE_STATUSES) + "')"


class SheetRecorder(JournalMixin):
    """Recording sheets over ``self._db``; the host class provides `election`."""

    if TYPE_CHECKING:

        def election(self) -> Election | None: ...

    def has_sheet(self, batch_id: int, identity: str, occurrence: int) -> bool:
        return (
            self._db.execute(
                "SELECT 1 FROM sheets WHERE batch_id = ? AND identity = ? AND occurrence = ?",
                (batch_id, identity, occurrence),
            ).fetchone()
            is not None
        )

    def recorded_sources(self, batch_id: int) -> Iterator[tuple[str, tuple[str, ...]]]:
        """``(identity, page sources in side order)`` of every sheet the batch holds, in the order recorded."""
        rows = self._db.execute(
            "SELECT s.id, s.identity, p.source FROM sheets s JOIN pages p ON p.sheet_id = s.id "
            "WHERE s.batch_id = ? ORDER BY s.id, p.side",
            (batch_id,),
        )
        for _sheet_id, group in groupby(rows, key=lambda r: r[0]):
            first, *rest = group
            yield first[1], (first[2], *(r[2] for r in rest))

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
                        ids_text(tuple(c.selections)),
                        c.overvotes,
                        c.undervotes,
                        int(c.from_straight_party),
                        ids_text(tuple(c.clauses)),
                    )
                    for n, c in enumerate(votes.contests)
                ],
            )
        codes = tuple(dict.fromkeys(r.code for r, q in zip(reasons, queued) if q))
        return Recorded(sheet_id, True, status, duplicate_of, codes)

    def _queued_codes(self) -> frozenset[str]:
        election = self.election()
        return frozenset(election.adjudication.reasons) if election else frozenset()

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
