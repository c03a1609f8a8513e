"""One scan at a time into a batch: an operating-system lock on a byte of a lock file beside the store.

Two scans into the same batch name at once, from different folders, would
interleave their positions, and positions are how auditors find the paper.
`BatchLock` makes the second refuse before it opens the batch.

Why an OS lock and not a lease row in the store: the kernel drops the lock the
moment its process ends, however it ends (Ctrl-C, ``kill -9``, a power cut), so
a crashed scan never leaves a stale lock for the clerk to clear, and no clock
or expiry time is involved (a lease would have to guess how long a live scan
may stay silent). The lock is ``fcntl.lockf`` on one byte of
``<store>-scan.lock``, at an offset derived from the batch name, so scans into
different batches of one store run side by side. POSIX record locks belong to
a process: they keep out other processes, which is what two clerks' scans are
(one process never runs two scans). Where ``fcntl`` does not exist (Windows)
the lock does nothing.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from .base import StoreError

try:
    import fcntl
except ImportError:  # Windows: no POSIX record locks
    fcntl = None


class BatchBusyError(StoreError):
    """Another process is scanning into this batch right now."""

    code = "store_batch_busy"


def lock_path(db: str | Path) -> Path:
    """The lock file of a store: ``<store>-scan.lock`` beside it."""
    return Path(f"{db}-scan.lock")


def _offset(batch_name: str) -> int:
    # 56 bits of the name's SHA-256: a byte offset no file system refuses, and no two
    # batch names of a county share one in practice.
    return int.from_bytes(hashlib.sha256(batch_name.encode("utf-8", "surrogateescape")).digest()[:7], "big")


class BatchLock:
    """Hold the scan lock of one batch of one store (a context manager).

    Raises
    ------
    BatchBusyError
        On `acquire` (or entry), when another process holds it.
    StoreError
        On `acquire`, when the lock file cannot be created.
    """

    def __init__(self, db: str | Path, batch_name: str):
        self.path = lock_path(db)
        self.batch_name = batch_name
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock (`BatchBusyError` if another process holds it)."""
        if fcntl is None or self._fd is not None:
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StoreError(f"cannot create the scan lock {self.path}: {e.strerror or e}") from None
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, _offset(self.batch_name))
        except OSError:
            os.close(fd)
            raise BatchBusyError(
                f"batch {self.batch_name!r} is being scanned by another process right now; "
                "wait for that scan to finish, or scan these sheets into another batch"
            ) from None
        self._fd = fd

    def release(self) -> None:
        """Give the lock back (nothing if it is not held)."""
        if self._fd is not None:
            os.close(self._fd)  # closing the file releases the process's locks on it
            self._fd = None

    def __enter__(self) -> BatchLock:
        self.acquire()
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class PgBatchLock:
    """`BatchLock` for a PostgreSQL store: a session advisory lock on the store's own connection.

    The server drops it when the connection ends, however the scan ends (as the
    kernel drops an OS lock), and it keeps out scans on other machines too.
    """

    def __init__(self, store, batch_name: str):
        self._conn = store._db.raw
        self.batch_name = batch_name
        # The offset's 56 bits, as a positive bigint key (the lock key space is 64-bit signed).
        self._key = _offset(batch_name)
        self._held = False

    def acquire(self) -> None:
        if self._held:
            return
        if not self._conn.execute("SELECT pg_try_advisory_lock(%s)", (self._key,)).fetchone()[0]:
            raise BatchBusyError(
                f"batch {self.batch_name!r} is being scanned by another process right now; "
                "wait for that scan to finish, or scan these sheets into another batch"
            )
        self._held = True

    def release(self) -> None:
        if self._held and not self._conn.closed:
            self._conn.execute("SELECT pg_advisory_unlock(%s)", (self._key,))
        self._held = False


def batch_lock(db: str | Path, store, batch_name: str) -> BatchLock | PgBatchLock:
    """The scan lock for one batch of the store at ``db`` (a file lock, or a PostgreSQL advisory lock)."""
    from .base import is_postgres_url

    if is_postgres_url(db):
        return PgBatchLock(store, batch_name)
    return BatchLock(db, batch_name)
