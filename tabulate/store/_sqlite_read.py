"""The SQLite store's reads of sheets: each sheet back with its pages, reasons, votes and marks.

A mixin of `tabulate.store.sqlite.SQLiteStore` (recording sheets is in
`tabulate.store._sqlite_record`).
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Iterator, Mapping

from ..core.votes import AdjudicationReason, BallotVotes, ContestVotes
from ..election import Election
from ._codec import contest_votes_from_dict, text_ids
from .base import LIVE_STATUSES, Batch, PageImage, SheetReason, StoredSheet
from .evidence import decode_evidence, decode_marks

#: Sheets fetched per round trip when streaming `SQLiteStore.sheets`.
_CHUNK = 500


class SheetReader:
    """Reading sheets over ``self._db``; the host class provides `batches` and `election`."""

    _db: sqlite3.Connection

    if TYPE_CHECKING:

        def batches(self) -> list[Batch]: ...

        def election(self) -> Election | None: ...

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
            votes[sid].append(ContestVotes(cid, st, text_ids(sel), over, under, bool(sp), text_ids(clauses)))
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
