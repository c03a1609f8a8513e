"""No compiled kernel may trade exact floating point for speed (numba's ``fastmath``).

With ``fastmath`` LLVM may reassociate sums and vectorise them differently depending on where a
function is inlined. Found in the ninth session: a template page read by a process that had just
compiled the anchor kernels (``_window``, ``_dot_sums``, ``skew_sums_kernel`` were ``fastmath``) and
the same page read by a later process loading numba's cache gave fits differing in the last bits
(240 of 240 pages of ``benchmarks/template_readings.py --sheets 40``). A scan's forkserver compiles
and `tabulate verify --images` may load the cache, so a rounding near a threshold could make the
re-read disagree with the count. Without ``fastmath`` every compile gives IEEE results in source
order: the same file read twice gives the same bits, however the kernels got into the process.
"""

from __future__ import annotations

import importlib
import pkgutil

from numba.core.registry import CPUDispatcher

import tabulate.kernels


def _dispatchers():
    for info in pkgutil.iter_modules(tabulate.kernels.__path__):
        module = importlib.import_module(f"tabulate.kernels.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                yield f"{module.__name__}.{name}", value


def test_the_kernels_are_found():
    names = {name for name, _ in _dispatchers()}
    assert {"tabulate.kernels._skew.skew_sums_kernel", "tabulate.kernels._anchors._dot_sums"} <= names
    assert len(names) >= 30


def test_no_kernel_is_compiled_with_fastmath():
    loose = [name for name, d in _dispatchers() if d.targetoptions.get("fastmath")]
    assert loose == []
