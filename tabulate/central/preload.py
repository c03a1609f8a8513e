"""What `tabulate scan`'s forkserver loads once, before it forks any reader process.

The reader's modules (numba, OpenCV, zxing, the rules) and the kernels'
compiled code (`tabulate.kernels.warm`): a worker forked from the server
inherits them and reads its first sheet at full speed. Without the warm-up
each worker loaded the kernels' cached machine code on its first sheet
(~0.9 s of CPU each; docs/perf.md, start-up). Then every page's sample points
of the election the scan offered (`tabulate.central.layouts_warm`): each
worker used to build them on the first sheet of each style (~0.14 CPU s a page).

This preload is what a cold scan's first sheet waits for, on one core; it
does not import SciPy, CFFI, coverage or PyYAML (`without_unused_modules`), runs
no garbage collection, and leaves everything it made frozen for the workers
forked from it (`frozen_for_forks`).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from pathlib import Path
from typing import Iterator

#: Modules numba imports while it loads that nothing of the reader uses, with what each costs a cold scan:
#: ``scipy`` (0.21-0.27 CPU s for ``scipy.linalg``: numba's array functions ask whether BLAS is there; 0.015-0.02
#: for ``scipy`` itself: numba checks its version when it is installed), ``cffi`` (0.05 CPU s: numba's typing of
#: CFFI functions, with its C parser), ``coverage`` (0.11 CPU s where it is installed: numba's support for
#: coverage measurement) and ``yaml`` (0.015 CPU s: numba reads a ``.numba_config.yaml`` in the current folder
#: with it; the readers take numba's settings from the environment only). docs/perf.md, branches cold and cold6.
REFUSED = ("scipy", "cffi", "coverage", "yaml")


class _Refuse(MetaPathFinder):
    def __init__(self, names: tuple[str, ...]):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if any(name == n or name.startswith(n + ".") for n in self.names):
            raise ImportError(f"{name} is not loaded in the readers' preload (tabulate.central.preload)")
        return None


@contextmanager
def without_unused_modules(names: tuple[str, ...] = REFUSED) -> Iterator[None]:
    """Refuse ``names`` while numba loads: ~0.4 CPU s off every cold scan's critical path.

    numba's ``numba.np.arraymath`` imports ``scipy.linalg.cython_blas`` when
    it loads (the first kernel call) only to set a flag for ``np.dot`` and
    ``np.convolve`` compiled with BLAS; no kernel of ours calls either
    (tests/test_scan_preload.py holds them to it), and nothing of the reader
    imports SciPy (scikit-image, which needs it, is not on the reading path).
    ``numba.core.typing.cffi_utils`` imports ``cffi`` to type CFFI functions
    (no kernel calls one) and ``numba.misc.coverage_support`` imports
    ``coverage`` to report which lines of a jitted function ran;
    ``numba/__init__.py`` imports ``scipy`` to check its version, and
    ``numba.core.config`` imports ``yaml`` to read a ``.numba_config.yaml``
    (without it, numba warns if such a file is there). Each import is wrapped in
    ``try/except ImportError`` there. Importing them later is
    not refused; a module already loaded is not refused either.
    """
    refused = tuple(n for n in names if n not in sys.modules)
    if not refused:
        yield
        return
    finder = _Refuse(refused)
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


@contextmanager
def frozen_for_forks(freeze: bool = True) -> Iterator[None]:
    """No garbage collection while the preload loads; then (``freeze``) every object it made frozen for the workers.

    The preload makes ~120,000 objects (numba's registries, the modules) and
    Python's collector ran ~240 times meanwhile, 0.06-0.08 CPU s, for ~1,100
    objects of garbage. Then each worker forked from the server ran a full
    collection within its first ~0.1 s (its allocations cross the thresholds
    it inherited): 0.07-0.08 CPU s, and ~7,500 pages (~30 MB) of the server's
    memory copied into the worker because the collector writes to every
    object it visits. Python's documentation of ``gc.freeze`` says: "If a
    process will fork() without exec(), avoiding unnecessary copy-on-write in
    child processes will maximize memory sharing and reduce overall memory
    usage. This requires both avoiding creation of freed 'holes' in memory
    pages in the parent process and ensuring that GC collections in child
    processes won't touch the gc_refs counter of long-lived objects
    originating in the parent process. To accomplish both, call gc.disable()
    early in the parent process, gc.freeze() right before fork(), and
    gc.enable() early in child processes." The server forks only once this
    preload is done, and the workers collect their own objects as usual. Only
    the server freezes (``freeze=QUICK_EXIT``): a test or a benchmark that
    imports the preload keeps collecting what it made before.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if enabled:
            gc.enable()


#: The name the previous round gave it (SciPy's linear algebra was its only refusal).
without_scipy_linalg = without_unused_modules


def _in_forkserver() -> bool:
    """Whether this process is a multiprocessing forkserver importing its preload (not a test or a benchmark)."""
    frame = sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if code.co_name == "main" and Path(code.co_filename).parts[-2:] == ("multiprocessing", "forkserver.py"):
            return True
        frame = frame.f_back
    return False


def _exit_at_once() -> None:
    """The forkserver's exit once its scan is gone, without tearing numba, LLVM and OpenCV down.

    The interpreter's own finalisation costs ~0.3 CPU s (~1 s wall at load 15)
    after the scan has printed its summary, and the server holds the scan's
    standard output meanwhile: a pipe that reads the scan's output (a script,
    a benchmark, ``| tee``) waited for it. The server holds no file, database
    or lock of its own; its workers are forked and leave through ``os._exit``
    anyway. Registered last, this runs first of the exit handlers.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(0)


#: Whether this process is the readers' forkserver, which leaves through `_exit_at_once`.
QUICK_EXIT = _in_forkserver()
if QUICK_EXIT:
    atexit.register(_exit_at_once)

with frozen_for_forks(freeze=QUICK_EXIT):
    with without_unused_modules():
        # The reader's modules by name: `tabulate.detect` loads its names on first use (lazy_loader), so
        # importing the package alone would leave each worker to import them on its first sheet.
        from .. import rules  # noqa: F401  (imported for the workers to inherit)
        from ..detect import decode, read, reading, settings  # noqa: F401
        from ..kernels import warm
        from . import readers, worker  # noqa: F401  (readers: the pool's initializer, `init_reader`)
        from .layouts_warm import warm_layouts_from_env

        # Before any OpenCV call here: the server must stay single-threaded, or the workers it forks inherit a
        # thread pool whose threads they do not have (building the layouts below calls OpenCV; a scan's workers
        # hung on their first sheet when its default pool had started here).
        worker.one_thread_per_worker()
        warm()
    warm_layouts_from_env()
