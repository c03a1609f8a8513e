"""Reading sheets on a Dask cluster: ``tabulate scan ... --cluster local:N|tcp://scheduler:8786``.

Workers load, fingerprint and interpret sheets exactly as the process pool's
workers do (`tabulate.central.worker.read_sheet_source`); this process alone
writes the store, consuming results in feed order, so a batch read on a
cluster is recorded exactly as the process pool records it -- the same sheet
ids, positions, occurrences and votes, hence byte-identical exports.

Why Dask rather than a home-made queue: its scheduler already re-runs the
tasks of a worker that dies (a lost machine, the kernel's OOM killer), up to
``distributed.scheduler.allowed-failures`` times, then reports the task as
``KilledWorker``; it shows progress on its dashboard, and deploys on
SSH, Kubernetes and HPC batch systems (docs/scale.md).

The election travels with each task (about 7 kB pickled; the workers' layout
and template caches are keyed by its content, so nothing is rebuilt). It was
once scattered to every worker instead, but when a worker died the scheduler
sometimes knew of one copy only ("Removing worker ... caused the cluster to
lose scattered data, which can't be recovered"), and every task still to run
was cancelled with it: the batch stopped with ``FutureCancelledError`` after
the very worker loss it exists to survive (seen once in ~30 runs of
`tests/test_scan_cluster.py`'s lost-worker test on a loaded machine). What it does not give,
exactly-once recording, the store gives: results are recorded by sheet
identity, and a re-run skips what is recorded.

Images are opened where they are: a path every worker sees (a shared file
system) or an object-storage URL read through fsspec (``s3://``, ``gs://``).
"""

from __future__ import annotations

import logging
import uuid
from concurrent.futures import TimeoutError as FutureTimeout

from ..core.errors import TabulateError
from ..election import Election
from ..store.base import SheetOutcome, SheetReason
from .interpret import Interpreter
from .patience import Patience, as_patience
from .pipeline import READER_CRASHED, READER_TIMED_OUT
from .sources import SheetSource
from .worker import fingerprint, keep_page_buffers, read_sheet_source

#: Seconds to reach a scheduler, or for a local cluster's workers to start.
CONNECT_TIMEOUT_S = 60


class ClusterError(TabulateError, RuntimeError):
    """The cluster cannot be started or reached (a wrong address, no dask installed): one line for the clerk."""

    code = "cluster"


def read_on_worker(election: Election, interpreter: Interpreter, sheet: SheetSource) -> SheetOutcome:
    """The cluster's task: one sheet (never raises for anything the sheet holds)."""
    keep_page_buffers()  # as the pool's readers (`init_worker`); once a process
    return read_sheet_source(election, interpreter, sheet)


def connect(address: str):
    """A `distributed.Client` for ``local:N`` (N single-threaded worker processes here) or a scheduler address."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as e:  # pragma: no cover - the optional 'cluster' extra
        raise ClusterError(f"--cluster needs dask.distributed ({e}): pip install 'ballot-tabulate[cluster]'") from None
    try:
        if address.startswith("local:"):
            try:
                n = int(address.removeprefix("local:"))
            except ValueError:
                n = 0
            if n < 1:
                raise ClusterError(f"--cluster {address}: give local:N with N at least 1")
            import dask

            # The workers' statistical profiler samples every thread's stack 100 times a second, holding the
            # interpreter lock that the reader needs; nobody reads those profiles here.
            with dask.config.set({"distributed.worker.profile.enabled": False}):
                cluster = LocalCluster(
                    n_workers=n,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    silence_logs=logging.ERROR,
                )
            return Client(cluster, timeout=CONNECT_TIMEOUT_S)
        return Client(address, timeout=CONNECT_TIMEOUT_S)
    except ClusterError:
        raise
    except (OSError, TimeoutError) as e:
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {e}") from None


class _Result:
    """A cluster task as the pipeline waits for it: a `SheetOutcome`, whatever happened to its worker."""

    def __init__(self, future, sheet: SheetSource, readers: DaskReaders):
        self._future, self._sheet, self._readers = future, sheet, readers

    def result(self, timeout: float | None = None) -> SheetOutcome:
        from distributed import KilledWorker

        try:
            return self._future.result(timeout=timeout)
        except KilledWorker:
            # The scheduler re-ran this sheet on other workers and each died: this sheet kills readers.
            return self._readers.set_aside(
                self._sheet, READER_CRASHED, "the readers died reading this sheet on several workers (a damaged image?)"
            )
        except TimeoutError:
            raise FutureTimeout from None
        finally:
            self._readers.forget(self._future)


class DaskReaders:
    """The pipeline's readers on a Dask cluster (the same interface as its process pool).

    ``cluster`` is an address (``local:N``, ``tcp://host:8786``) or a
    `distributed.Client` the caller owns (tests, notebooks).
    """

    def __init__(self, cluster, election: Election, interpreter: Interpreter, timeout: float | Patience):
        if isinstance(cluster, str):
            self._client, self._own = connect(cluster), True
        else:
            self._client, self._own = cluster, False
        self.patience = as_patience(timeout)
        self.timeout = self.patience.seconds
        self._election = election
        self._interpreter = interpreter
        self._futures: set = set()
        threads = sum(w.get("nthreads", 1) for w in self._client.scheduler_info()["workers"].values())
        self.workers = max(1, threads)
        #: Where to watch the cluster's own progress (a remote scheduler's dashboard).
        self.dashboard = (
            getattr(self._client, "dashboard_link", None)
            if isinstance(cluster, str) and not cluster.startswith("local:")
            else None
        )

    def submit(self, sheet: SheetSource) -> _Result:
        # A fresh key per submission: a sheet re-submitted after a timeout is a new task, not the stuck one.
        future = self._client.submit(
            read_on_worker,
            self._election,
            self._interpreter,
            sheet,
            key=f"sheet-{sheet.position}-{uuid.uuid4().hex}",
            pure=False,
        )
        self._futures.add(future)
        return _Result(future, sheet, self)

    def forget(self, future) -> None:
        self._futures.discard(future)

    def set_aside(self, sheet: SheetSource, code: str, why: str) -> SheetOutcome:
        _data, images, identity, _err = fingerprint(sheet, self._election)
        return SheetOutcome(sheet.position, identity, images, "rejected", reasons=(SheetReason(code, why),))

    def restart(self) -> None:
        """Cancel every task in flight (the pipeline re-submits them one at a time)."""
        if self._futures:
            self._client.cancel(list(self._futures), force=True)
            self._futures.clear()

    def isolated(self, sheet: SheetSource) -> SheetOutcome:
        """Read one sheet alone; a hang sets only it aside."""
        try:
            return self.patience.result(self.submit(sheet))
        except FutureTimeout:
            self.restart()
            return self.set_aside(sheet, READER_TIMED_OUT, f"reading this sheet took more than {self.timeout:.0f} s")

    def close(self) -> None:
        self.restart()
        if self._own:
            cluster = getattr(self._client, "cluster", None)
            self._client.close()
            if cluster is not None:
                cluster.close()
