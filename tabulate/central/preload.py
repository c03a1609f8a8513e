"""What `tabulate scan`'s forkserver loads once, before it forks any reader process.

The reader's modules (numba, OpenCV, zxing, the rules) and the kernels'
compiled code (`tabulate.kernels.warm`): a worker forked from the server
inherits them and reads its first sheet at full speed. Without the warm-up
each worker loaded the kernels' cached machine code on its first sheet
(~0.9 s of CPU each; docs/perf.md, start-up). Then every page's sample points
of the election the scan offered (`tabulate.central.layouts_warm`): each
worker used to build them on the first sheet of each style (~0.14 CPU s a page).

This preload is what a cold scan's first sheet waits for, on one core; it
does not import SciPy's linear algebra (`without_scipy_linalg`).
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from importlib.abc import MetaPathFinder
from typing import Iterator

#: The module numba imports when its array functions load, only to learn whether BLAS is there.
_SCIPY_LINALG = "scipy.linalg"


class _RefuseScipyLinalg(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == _SCIPY_LINALG or name.startswith(_SCIPY_LINALG + "."):
            raise ImportError(f"{name} is not loaded in the readers' preload (tabulate.central.preload)")
        return None


@contextmanager
def without_scipy_linalg() -> Iterator[None]:
    """Refuse ``import scipy.linalg`` while numba loads: 0.21-0.27 CPU s off every cold scan's critical path.

    numba's ``numba.np.arraymath`` imports ``scipy.linalg.cython_blas`` when
    it loads (the first kernel call) only to set a flag for ``np.dot`` and
    ``np.convolve`` compiled with BLAS; no kernel of ours calls either
    (tests/test_scan_preload.py holds them to it), and nothing of the reader
    imports SciPy (scikit-image, which needs it, is not on the reading path).
    Importing it later is not refused.
    """
    if _SCIPY_LINALG in sys.modules:  # already loaded: nothing to save
        yield
        return
    finder = _RefuseScipyLinalg()
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)


with without_scipy_linalg():
    from .. import detect, rules  # noqa: F401  (imported for the workers to inherit)
    from ..kernels import warm
    from . import readers, worker  # noqa: F401  (readers: the pool's initializer, `init_reader`)
    from .layouts_warm import warm_layouts_from_env

    # Before any OpenCV call here: the server must stay single-threaded, or the workers it forks inherit a
    # thread pool whose threads they do not have (building the layouts below calls OpenCV; a scan's workers
    # hung on their first sheet when its default pool had started here).
    worker.one_thread_per_worker()
    warm()
warm_layouts_from_env()
