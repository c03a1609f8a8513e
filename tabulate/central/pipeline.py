"""Central count: feed a batch of sheets through the readers into the store, exactly once.

Workers (a process pool over all cores) load, fingerprint and interpret
sheets; the parent alone writes the store, a group of sheets per transaction.
Results are consumed in feed order, so each sheet's *occurrence* (how many
earlier sheets of this input had the same images) is the same in every run.

Why a run can be killed at any moment and started again:

* The store writes a group of sheets in one transaction; a sheet is either
  fully recorded (pages, reasons, reading, votes) or absent.
* Re-running a batch fingerprints each sheet first and skips those the batch
  already holds (same identity, same occurrence) without decoding them again;
  the rest are read and recorded. On the process pool the worker does it: it
  is told which identities the batch holds for the sheet's files, loads and
  hashes the pages (once: the identity is of the bytes it read, so a file
  changed since is read as the new sheet it is) and sends back a sheet the
  batch holds unread; the parent then checks its occurrence in feed order.
  The store refuses to record a sheet twice even if asked.
* A reader that crashes (a decoder fault, the kernel's OOM killer) or hangs
  breaks the pool; the sheets in flight are then re-read one at a time in a
  fresh process, and only the one that breaks it again is set aside
  (``reader_crashed`` / ``reader_timed_out``).
"""

from __future__ import annotations

import os
import sqlite3
import sys
import threading
import time
from collections import Counter, deque
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from typing import Iterable

from ..election import Election
from ..store.base import Batch, BatchCounts, Recorded, SheetOutcome, Store
from .hotfolder import HotFolder
from .interpret import Interpreter, interpret_sheet
from .patience import Patience, as_patience
from .readers import (  # noqa: F401  (re-exported: where callers have always found them)
    READER_CRASHED,
    READER_TIMED_OUT,
    SHEET_TIMEOUT_S,
    START_TIMEOUT_S,
    Readers,
    ReadersUnavailable,
    start_readers,
)
from .sources import ScanPlan, SheetSource
from .worker import Fingerprinted, fingerprint

#: Sheets per store transaction, and the longest a read sheet waits to be committed.
COMMIT_SHEETS = 64
COMMIT_SECONDS = 0.5
#: Sheets handed to a reader process in one task (the pool; a Dask cluster takes one at a time): 8, not
#: 4, took ~0.2 CPU ms a G4 sheet off the parent's futures, pickles and wake-ups (docs/perf.md, g4page7).
TASK_SHEETS = 8
_END = object()
_SEP = "\0"  # between a sheet's page sources: no file name holds it
#: FOR TESTS ONLY, never in an election: a whole number N makes a run stop for good once it has
#: committed N sheets (0: as soon as its readers are started), after writing `TEST_PAUSE_MARK`
#: on stderr. A test then kills the process at a known point, whatever the machine's speed.
TEST_PAUSE_ENV = "TABULATE_TEST_PAUSE_AFTER"
TEST_PAUSE_MARK = "tabulate: test pause:"


@dataclass
class RunSummary:
    """What one run of a batch did. Every sheet read is in exactly one of
    counted, needs_review, rejected, duplicate or ``already`` (recorded by an earlier run)."""

    batch: Batch
    sheets_read: int = 0
    already: int = 0
    counted: int = 0
    needs_review: int = 0
    rejected: int = 0
    duplicate: int = 0
    #: (status, reason code) -> sheets, for the sheets recorded by this run.
    by_reason: Counter = field(default_factory=Counter)
    seconds: float = 0.0
    ignored: tuple[str, ...] = ()
    #: Pages of a hot folder left waiting for their other side when the watch stopped (not recorded).
    waiting: tuple[str, ...] = ()
    complete: bool = False
    #: The batch's totals in the store after the run.
    totals: BatchCounts | None = None

    @property
    def added(self) -> int:
        return self.counted + self.needs_review + self.rejected + self.duplicate

    @property
    def balanced(self) -> bool:
        """The accounting identity: every sheet read is accounted for exactly once."""
        return self.added + self.already == self.sheets_read

    def add(self, recorded: Recorded) -> None:
        self.sheets_read += 1
        if not recorded.added:
            self.already += 1
            return
        setattr(self, recorded.status, getattr(self, recorded.status) + 1)
        for code in recorded.reasons:
            self.by_reason[(recorded.status, code)] += 1


class _Occurrences:
    """How many times each identity has been seen so far in this run's input, and (resuming) what the batch holds.

    Kept in a private temporary SQLite file (deleted on close) rather than a
    dict, so that the parent's memory does not grow with the batch: SQLite
    keeps a small page cache and spills the rest to disk.
    """

    def __init__(self):
        self._db = sqlite3.connect("", isolation_level=None)  # "": a private temporary on-disk database
        self._db.execute("CREATE TABLE seen (identity BLOB PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
        self._db.execute("CREATE TABLE recorded (sources TEXT NOT NULL, identity TEXT NOT NULL)")

    def remember(self, recorded: Iterable[tuple[str, tuple[str, ...]]]) -> None:
        """A resumed batch's sheets (identity, page sources), for `recorded_for` (kept here, not in memory)."""
        self._db.execute("BEGIN")
        self._db.executemany(
            "INSERT INTO recorded VALUES (?, ?)", ((_SEP.join(sources), ident) for ident, sources in recorded)
        )
        self._db.execute("COMMIT")
        self._db.execute("CREATE INDEX recorded_sources ON recorded (sources)")

    def recorded_for(self, sheet: SheetSource) -> frozenset[str]:
        """The identities the batch holds for a sheet of exactly these page files."""
        key = _SEP.join(p.label for p in sheet.pages)
        return frozenset(r[0] for r in self._db.execute("SELECT identity FROM recorded WHERE sources = ?", (key,)))

    def next(self, identity: str) -> int:
        (n,) = self._db.execute(
            "INSERT INTO seen VALUES (?, 1) ON CONFLICT (identity) DO UPDATE SET n = n + 1 RETURNING n - 1",
            (bytes.fromhex(identity),),
        ).fetchone()
        return n

    def close(self) -> None:
        self._db.close()


def _test_pause_after() -> int | None:
    text = os.environ.get(TEST_PAUSE_ENV, "").strip()
    if not text:
        return None
    if not text.isdigit():
        raise ValueError(f"{TEST_PAUSE_ENV} must be a whole number of sheets, not {text!r}")
    return int(text)


def _test_pause(committed: int) -> None:
    """Stop here for good (the test hook `TEST_PAUSE_ENV`): the test kills the process."""
    print(
        f"{TEST_PAUSE_MARK} {committed} sheet(s) committed by this run; waiting to be killed "
        f"({TEST_PAUSE_ENV} is for tests only)",
        file=sys.stderr,
        flush=True,
    )
    threading.Event().wait()


def _progress(total: int | None, batch: Batch, enabled: bool):
    from tqdm import tqdm

    return tqdm(
        total=total,
        unit="sheet",
        desc=f"batch {batch.name}",
        file=sys.stderr,
        disable=not enabled,
        dynamic_ncols=True,
        smoothing=0.05,
    )


def run_batch(
    store: Store,
    election: Election,
    batch: Batch,
    plan: ScanPlan | HotFolder,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    interpreter: Interpreter = interpret_sheet,
    progress: bool = False,
    commit_sheets: int = COMMIT_SHEETS,
    commit_seconds: float = COMMIT_SECONDS,
    sheet_timeout: float | Patience = SHEET_TIMEOUT_S,
    readers: Readers | None = None,
    task_sheets: int = TASK_SHEETS,
) -> RunSummary:
    """Read every sheet of ``plan`` into ``batch`` of ``store``; return what was done.

    Parameters
    ----------
    store, election, batch
        An open store bound to ``election``, and the batch to fill (new or resumed).
    plan
        The sheets, in feed order: a `ScanPlan`, or a `HotFolder` that yields
        sheets as a scanner completes them (and ``None`` while nothing is ready).
    workers
        Reader processes (default: every core).
    cluster
        Read on a Dask cluster instead (``local:N`` or a scheduler address,
        `tabulate.central.cluster`); the store is still written here alone.
    interpreter
        ``(election, pages) -> Interpretation``; the real reader by default.
    progress
        Show a progress bar with sheets per second on stderr.
    task_sheets
        Sheets per task for a process pool (`TASK_SHEETS`): fewer round trips.
    readers
        Readers already started (`start_readers`) and kept up by the caller
        across batches (a station, `tabulate.central.station`): used as they
        are and left running. ``workers``, ``cluster`` and ``interpreter``
        are then the readers' own.

    Returns
    -------
    RunSummary
        With ``complete`` True when every sheet of the plan was handled (the
        batch is then closed in the store).
    """
    workers = max(1, workers or os.cpu_count() or 1)
    summary = RunSummary(batch)
    started = time.monotonic()
    resume = store.sheet_count(batch.id) > 0
    occurrences = _Occurrences()
    pending: list[SheetOutcome] = []
    last_commit = time.monotonic()
    bar = _progress(len(plan) if isinstance(plan, ScanPlan) else None, batch, progress)
    backlog = getattr(plan, "backlog", None) is not None
    pause_after = _test_pause_after()
    committed = 0  # sheets this run has handed to the store

    def commit() -> None:
        nonlocal last_commit, committed
        if pending:
            for rec in store.record_sheets(batch.id, pending):
                summary.add(rec)
            committed += len(pending)
            pending.clear()
            extra = {"backlog": plan.backlog + len(window)} if backlog else {}
            bar.set_postfix(
                counted=summary.counted,
                review=summary.needs_review,
                rejected=summary.rejected,
                duplicate=summary.duplicate,
                **extra,
                refresh=False,
            )
        last_commit = time.monotonic()
        if pause_after is not None and committed >= pause_after:
            _test_pause(committed)

    def accept(outcome: SheetOutcome, occurrence: int | None, expected: str | None) -> None:
        if occurrence is None or outcome.identity != expected:
            occurrence = occurrences.next(outcome.identity)
        pending.append(replace(outcome, occurrence=occurrence))
        bar.update(1)
        # The test hook commits exactly at its sheet, so the pause falls where the test asked.
        due = pause_after is not None and committed + len(pending) >= pause_after
        if due or len(pending) >= commit_sheets or time.monotonic() - last_commit >= commit_seconds:
            commit()

    patience = as_patience(sheet_timeout)
    own_readers = readers is None
    if readers is None:
        readers = start_readers(election, workers=workers, cluster=cluster, interpreter=interpreter, timeout=patience)
        if progress and readers.dashboard:
            print(f"tabulate: the cluster's progress: {readers.dashboard}", file=sys.stderr)
    window: deque = deque()
    sources = iter(plan)
    # A few sheets per task when the readers take them (the pool): one round trip, one pickle each
    # way and one wake-up of each process for all of them, not for every sheet (docs/perf.md).
    submit_many = getattr(readers, "submit_many", None) if task_sheets > 1 or resume else None
    per_task = task_sheets if submit_many is not None else 1
    # Resuming on the pool, each sheet's files are hashed once, by the worker that reads them; the
    # sheets the batch holds come back unread (`worker.read_unless_recorded`). Elsewhere (a Dask
    # cluster) this process fingerprints each sheet first, as before.
    in_workers = resume and submit_many is not None
    if in_workers:
        occurrences.remember(store.recorded_sources(batch.id))
    depth = 4 * readers.workers * per_task
    exhausted = False

    def submit(chunk: list) -> None:
        if submit_many is None or (len(chunk) <= 1 and not in_workers):
            window.extend((s, occ, ident, readers.submit(s), None) for s, occ, ident, _ in chunk)
        else:
            recorded = [known for *_, known in chunk] if in_workers else None
            future = (
                submit_many([s for s, *_ in chunk], recorded) if in_workers else submit_many([s for s, *_ in chunk])
            )
            window.extend((s, occ, ident, future, i) for i, (s, occ, ident, _) in enumerate(chunk))

    def already_or_read(sheet: SheetSource, fp: Fingerprinted) -> None:
        """A sheet a worker hashed but did not read: the batch holds it, or (its occurrence is new) it is read."""
        occurrence = occurrences.next(fp.identity)
        if store.has_sheet(batch.id, fp.identity, occurrence):
            summary.sheets_read += 1
            summary.already += 1
            bar.update(1)
        else:  # the same images again, further on in this input than the batch holds: read it now
            accept(readers.isolated(sheet), occurrence, fp.identity)

    def take() -> list:
        """Up to ``per_task`` sheets to read, fewer when the input ends or a hot folder has no more ready."""
        nonlocal exhausted
        chunk: list = []
        while len(chunk) < per_task:
            sheet = next(sources, _END)
            if sheet is _END:
                exhausted = True
                break
            if sheet is None:  # a hot folder with nothing ready yet: what it gave goes now
                break
            occurrence = identity = None
            if in_workers:  # the worker hashes it and reads it only if the batch lacks it (`recorded_for`)
                chunk.append((sheet, occurrence, identity, occurrences.recorded_for(sheet)))
                continue
            if resume:  # fingerprint first: sheets already recorded are not read again
                identity = fingerprint(sheet, election)[2]
                occurrence = occurrences.next(identity)
                if store.has_sheet(batch.id, identity, occurrence):
                    summary.sheets_read += 1
                    summary.already += 1
                    bar.update(1)
                    continue
            chunk.append((sheet, occurrence, identity, None))
        return chunk

    def feed() -> None:
        # Whole tasks only, while there is room for one: a sheet taken off the window is not sent alone.
        while not exhausted and depth - len(window) >= per_task:
            chunk = take()
            submit(chunk)
            if len(chunk) < per_task:
                return

    try:
        feed()
        if pause_after == 0:
            _test_pause(0)
        while window or not exhausted:
            if not window:  # a hot folder, waiting for the scanner: record what was read meanwhile
                commit()
                bar.refresh()
                plan.wait()
                feed()
                continue
            sheet, occurrence, identity, future, index = window[0]
            try:
                # One time-out for a task of several sheets too: a hang is noticed as soon as before, and
                # a task that was only slow loses nothing (every sheet in flight is re-read alone).
                result = patience.result(future)
            except (BrokenProcessPool, FutureTimeout):
                # Which sheet broke the pool is unknown: re-read each in flight alone.
                readers.restart()
                stranded = list(window)
                window.clear()
                for s, occ, ident, _f, _i in stranded:
                    accept(readers.isolated(s), occ, ident)
                feed()
                continue
            window.popleft()
            outcome = result if index is None else result[index]
            if isinstance(outcome, Fingerprinted):
                already_or_read(sheet, outcome)
            else:
                accept(outcome, occurrence, identity)
            feed()
        commit()
        summary.complete = True
    finally:
        # Sheets already read are recorded even when the run is interrupted.
        try:
            commit()
        finally:
            if own_readers:
                readers.close()
            occurrences.close()
            bar.close()
    summary.ignored = tuple(plan.ignored)
    summary.waiting = tuple(getattr(plan, "waiting", ()))
    if not summary.waiting:  # pages waiting for their other side: the batch is not finished
        store.close_batch(batch.id)
    summary.seconds = time.monotonic() - started
    summary.totals = next((c for c in store.batch_counts() if c.batch.id == batch.id), None)
    return summary
