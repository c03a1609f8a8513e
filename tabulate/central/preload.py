"""What `tabulate scan`'s forkserver loads once, before it forks any reader process.

The reader's modules (numba, OpenCV, zxing, the rules) and the kernels'
compiled code (`tabulate.kernels.warm`): a worker forked from the server
inherits them and reads its first sheet at full speed. Without the warm-up
each worker loaded the kernels' cached machine code on its first sheet
(~0.9 s of CPU each; docs/perf.md, start-up). Then every page's sample points
of the election the scan offered (`tabulate.central.layouts_warm`): each
worker used to build them on the first sheet of each style (~0.14 CPU s a page).
"""

from __future__ import annotations

from .. import detect, rules  # noqa: F401  (imported for the workers to inherit)
from ..kernels import warm
from . import worker
from .layouts_warm import warm_layouts_from_env

# Before any OpenCV call here: the server must stay single-threaded, or the workers it forks inherit a
# thread pool whose threads they do not have (building the layouts below calls OpenCV; a scan's workers
# hung on their first sheet when its default pool had started here).
worker.one_thread_per_worker()
warm()
warm_layouts_from_env()
