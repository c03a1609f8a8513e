"""The readers a batch's sheets are handed to: a process pool on this machine's cores (or a Dask cluster).

`start_readers` starts them; `run_batch` (tabulate.central.pipeline) hands
them one sheet at a time, and a station (tabulate.central.station) keeps them
up from one tub to the next. A reader that crashes or hangs breaks the pool:
`restart` starts a fresh one and `isolated` re-reads one sheet alone, so only
the sheet that breaks it again is set aside (``reader_crashed`` /
``reader_timed_out``).
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol

from ..core.errors import TabulateError
from ..election import Election
from ..store.base import SheetOutcome, SheetReason
from . import layouts_cache
from .interpret import Interpreter, interpret_sheet
from .layouts_warm import offer_election, withdraw_election
from .patience import SHEET_TIMEOUT_S, Patience, as_patience
from .readers_start import reader_context, take_offer
from .sources import SheetSource
from .worker import fingerprint, init_worker, ping, read_task, read_tasks

READER_CRASHED = "reader_crashed"
READER_TIMED_OUT = "reader_timed_out"
#: How long a fresh reader process may take to start (imports, JIT cache) before the readers are unusable.
START_TIMEOUT_S = 120.0


def _kill(executor: ProcessPoolExecutor) -> None:
    for proc in list((getattr(executor, "_processes", None) or {}).values()):
        try:
            proc.kill()
        except (OSError, ValueError, AttributeError):
            pass
    executor.shutdown(wait=False, cancel_futures=True)


def init_reader(
    election: Election, interpreter: Interpreter, scan_pid: int, prepared: layouts_cache.Prepared | None
) -> None:
    """Pool initializer: `init_worker`, then the page templates seeded from what the parent ``prepared``.

    ``prepared`` when the forkserver did not build them itself (it was started
    before the election was known): the signed on-disk cache (mapped and
    verified here, as the parent did) and the pages the parent laid out
    (`tabulate.central.layouts_cache`).
    """
    init_worker(election, interpreter, scan_pid)
    if prepared is not None:
        layouts_cache.seed(election, prepared)


class ReadersUnavailable(TabulateError, RuntimeError):
    """Reader processes cannot run at all (not one sheet's fault): the run stops, nothing is set aside."""

    code = "readers_unavailable"


class _Readers:
    """The worker pool, restartable after a reader crashes."""

    #: Where to watch progress besides the bar (a Dask scheduler's dashboard; none for the pool).
    dashboard: str | None = None

    def __init__(self, workers: int, election: Election, interpreter: Interpreter, timeout: float | Patience):
        self._ctx = reader_context()
        # The forkserver builds every page's sample points once, for all workers (layouts_warm);
        # a template set's reader has sample points of its own. A server started early
        # (`readers_start.start_early`) was offered the election already, or (started before the
        # election was known) leaves each worker to load them from the on-disk cache.
        early, self._offered = take_offer(election)
        if not early and interpreter is interpret_sheet:
            self._offered = offer_election(election)
        seed = self._offered is None and interpreter is interpret_sheet
        self._args = (election, interpreter, os.getpid(), layouts_cache.prepared(election) if seed else None)
        self.workers = workers
        self.patience = as_patience(timeout)
        self.timeout = self.patience.seconds
        self._pool = self._new(workers)

    def _new(self, n: int) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(n, mp_context=self._ctx, initializer=init_reader, initargs=self._args)

    def submit(self, sheet: SheetSource) -> Future:
        return self._pool.submit(read_task, sheet)

    def submit_many(self, sheets: list[SheetSource], recorded: list[frozenset[str]] | None = None) -> Future:
        """A few sheets as one task: a Future of their outcomes, in the same order.

        ``recorded`` (a resumed batch): each sheet's identities the batch holds; such a sheet comes back
        `Fingerprinted`, not read (`worker.read_sheet_source`).
        """
        if recorded is None:
            return self._pool.submit(read_tasks, sheets)
        return self._pool.submit(read_tasks, sheets, recorded)

    def restart(self) -> None:
        _kill(self._pool)
        self._pool = self._new(self.workers)

    def isolated(self, sheet: SheetSource) -> SheetOutcome:
        """Read one sheet alone in a fresh process; a crash or hang sets only it aside."""
        pool = self._new(1)
        try:
            pool.submit(ping).result(timeout=START_TIMEOUT_S)
        except (BrokenProcessPool, FutureTimeout, Exception) as e:
            _kill(pool)
            raise ReadersUnavailable(f"the sheet readers cannot start ({type(e).__name__}: {e})") from None
        try:
            return self.patience.result(pool.submit(read_task, sheet))
        except BrokenProcessPool:
            code, why = READER_CRASHED, "the reader process died reading this sheet (a damaged image?)"
        except FutureTimeout:
            code, why = READER_TIMED_OUT, f"reading this sheet took more than {self.timeout:.0f} s"
        finally:
            _kill(pool)
        _data, images, identity, _err = fingerprint(sheet, self._args[0])
        return SheetOutcome(sheet.position, identity, images, "rejected", reasons=(SheetReason(code, why),))

    def close(self) -> None:
        _kill(self._pool)
        withdraw_election(self._offered)


class Readers(Protocol):
    """What `run_batch` needs of the readers: the process pool (`_Readers`) or a Dask cluster."""

    workers: int
    dashboard: str | None

    def submit(self, sheet: SheetSource) -> Any: ...  # a Future, or the cluster's own (``result(timeout=)``)

    def restart(self) -> None: ...

    def isolated(self, sheet: SheetSource) -> SheetOutcome: ...

    def close(self) -> None: ...


def start_readers(
    election: Election,
    *,
    workers: int | None = None,
    cluster: str | None = None,
    interpreter: Interpreter = interpret_sheet,
    timeout: float | Patience = SHEET_TIMEOUT_S,
) -> Readers:
    """Start the readers ``run_batch`` hands sheets to: a pool on this machine's cores, or a Dask cluster.

    The caller closes them (``close()``); `run_batch` does so itself when it started them.
    """
    if cluster is None:
        return _Readers(max(1, workers or os.cpu_count() or 1), election, interpreter, timeout)
    from .cluster import DaskReaders

    return DaskReaders(cluster, election, interpreter, timeout)
