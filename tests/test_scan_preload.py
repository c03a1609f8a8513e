"""The readers' preload leaves SciPy, CFFI, coverage and PyYAML out (no kernel needs them) and freezes what it made.

numba imports ``scipy.linalg`` when its array functions load, only to know
whether ``np.dot``-like calls may use BLAS (0.21-0.27 CPU s of every cold
scan's start-up, docs/perf.md "This round (branch warm)"). The preload refuses
that import; that is safe only while no jitted kernel uses BLAS.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

KERNELS = Path(__file__).resolve().parents[1] / "tabulate" / "kernels"
#: numba compiles these with BLAS (numba.np.linalg, numba.np.arraymath's inner products).
BLAS_CALLS = frozenset({"dot", "vdot", "inner", "matmul", "linalg", "convolve", "correlate", "cov", "corrcoef"})


def test_the_preload_does_not_import_scipy_linalg_and_a_later_import_still_works():
    code = (
        "import sys\n"
        "import tabulate.central.preload\n"
        "print('scipy.linalg' in sys.modules)\n"
        "import scipy.linalg\n"
        "print(scipy.linalg.norm([3.0, 4.0]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "5.0"]


@pytest.mark.skipif(importlib.util.find_spec("cffi") is None, reason="cffi is not installed")
def test_the_preload_leaves_cffi_and_coverage_out_and_they_still_import_later():
    code = (
        "import sys\n"
        "assert 'cffi' not in sys.modules and 'coverage' not in sys.modules\n"
        "import tabulate.central.preload\n"
        "print('cffi' in sys.modules, 'coverage' in sys.modules, 'jsonschema' in sys.modules)\n"
        "print('scipy' in sys.modules, 'yaml' in sys.modules)\n"
        "import cffi, yaml\n"
        "print(type(cffi.FFI()).__name__, yaml.safe_load('a: 1'))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV_CORE")}  # pytest-cov would preload coverage
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
    # jsonschema: the readers never validate an election; scipy (numba checks its version) and yaml (numba's
    # config file) are refused like cffi (tabulate.central.preload.REFUSED)
    assert out.split() == ["False", "False", "False", "False", "False", "FFI", "{'a':", "1}"]


def _blas_uses(path: Path) -> list[str]:
    uses = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            uses.append(f"{path.name}:{node.lineno}: @")
        elif isinstance(node, ast.Attribute) and node.attr in BLAS_CALLS:
            uses.append(f"{path.name}:{node.lineno}: .{node.attr}")
    return uses


def test_no_jitted_kernel_module_calls_anything_numba_would_compile_with_blas():
    jitted = [p for p in sorted(KERNELS.glob("*.py")) if "numba" in p.read_text(encoding="utf-8")]
    assert len(jitted) >= 5  # the kernels are where they were: this test still looks at them
    assert [use for p in jitted for use in _blas_uses(p)] == []


def test_the_check_sees_a_blas_call(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import numpy as np\n\ndef f(a, b):\n    return np.dot(a, b) + (a @ b)\n")
    assert sorted(_blas_uses(probe)) == ["probe.py:4: .dot", "probe.py:4: @"]


def _quick_exit() -> bool:
    import tabulate.central.preload as preload

    return preload.QUICK_EXIT


def test_only_the_forkserver_leaves_without_finalising_and_it_exits_cleanly():
    """The server skips the interpreter's teardown (~0.3 CPU s after the summary); a plain import does not."""
    import tabulate.central.preload as preload

    assert preload.QUICK_EXIT is False  # a test, a benchmark: their exit handlers and buffers are theirs
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from tabulate.central.readers_start import reader_context\n"
        "from test_scan_preload import _quick_exit\n"
        "if __name__ == '__main__':\n"
        "    with ProcessPoolExecutor(1, mp_context=reader_context()) as pool:\n"
        "        print(pool.submit(_quick_exit).result(), flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    # A worker is forked from the server: it inherits the server's flag. The run's output pipe closes at the end.
    assert done.returncode == 0 and done.stdout.split() == ["True"], done.stderr[-2000:]


def _gc_state() -> tuple[bool, int]:
    import gc

    return gc.isenabled(), gc.get_freeze_count()


def test_the_server_freezes_what_it_loaded_so_its_workers_collect_only_their_own_objects():
    """`frozen_for_forks`: a worker's first full collection no longer walks (and copies) the server's ~120,000 objects.

    Python's documentation of ``gc.freeze``: "call gc.disable() early in the
    parent process, gc.freeze() right before fork(), and gc.enable() early in
    child processes."
    """
    import gc

    import tabulate.central.preload  # noqa: F401

    assert gc.isenabled() and gc.get_freeze_count() == 0  # a plain import (a test, a benchmark): only the server
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from concurrent.futures import ProcessPoolExecutor\n"
        "from tabulate.central.readers_start import reader_context\n"
        "from test_scan_preload import _gc_state\n"
        "if __name__ == '__main__':\n"
        "    with ProcessPoolExecutor(1, mp_context=reader_context()) as pool:\n"
        "        print(*pool.submit(_gc_state).result(), flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    enabled, frozen = done.stdout.split()
    assert enabled == "True"  # the workers collect their own garbage
    assert int(frozen) > 50_000, done.stderr[-2000:]  # numba's registries and the modules: ~120,000 objects


def test_the_preload_loads_the_readers_modules_though_tabulate_detect_loads_its_names_lazily():
    """`tabulate.detect`'s names load on first use now (lazy_loader): the preload names its modules itself."""
    wanted = ["tabulate.detect.read", "tabulate.detect.template", "tabulate.detect.decode", "tabulate.detect.score"]
    wanted += ["tabulate.election.render", "numba", "cv2", "zxingcpp", "simplejpeg", "imagecodecs"]
    code = f"import sys, tabulate.central.preload\nprint(*[m for m in {wanted!r} if m not in sys.modules])\n"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.split() == []
