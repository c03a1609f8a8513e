"""The target kernel's numba cache is refreshed when a helper file it calls changes (`tabulate.kernels._stamp`)."""

from __future__ import annotations

import os

from tabulate.kernels import _stamp


def _at(path, seconds: int) -> str:
    path.write_text("x = 1\n")
    os.utime(path, ns=(seconds * 10**9, seconds * 10**9))
    return str(path)


def test_a_newer_helper_touches_the_kernel_file(tmp_path):
    main = _at(tmp_path / "_targets.py", 1_000)
    helper = _at(tmp_path / "_areas.py", 2_000)
    assert _stamp.refresh(main, helper)
    assert os.stat(main).st_mtime_ns > os.stat(helper).st_mtime_ns  # now: numba's stamp changed, it compiles again


def test_older_helpers_leave_the_kernel_file_alone(tmp_path):
    main = _at(tmp_path / "_targets.py", 3_000)
    helpers = [_at(tmp_path / "_areas.py", 2_000), _at(tmp_path / "_interior.py", 3_000)]
    assert not _stamp.refresh(main, *helpers)
    assert os.stat(main).st_mtime_ns == 3_000 * 10**9


def test_a_missing_file_is_not_an_error(tmp_path):
    main = _at(tmp_path / "_targets.py", 1_000)
    assert not _stamp.refresh(main, str(tmp_path / "gone.py"))


def test_the_installed_kernel_is_not_older_than_its_helpers():
    from tabulate.kernels import _areas, _interior, _targets

    newest = max(os.stat(m.__file__).st_mtime_ns for m in (_areas, _interior))
    assert os.stat(_targets.__file__).st_mtime_ns >= newest


def test_the_target_kernels_cache_is_keyed_on_its_helpers_content_too():
    from tabulate.kernels import _areas, _interior, _targets

    stamp = _targets.score_targets_kernel._cache._cache_file._source_stamp
    assert stamp == _stamp.content_stamp(_targets.__file__, _areas.__file__, _interior.__file__)


_KERNEL = """
from numba import njit
import _helper, _stamp
from _helper import value

@njit(cache=True)
def kernel():
    return value()

_stamp.bind(kernel, __file__, _helper.__file__)
print(kernel())
"""


def test_a_helper_edited_alone_is_compiled_again_not_loaded_stale(tmp_path):
    """numba keys its cache on the kernel file's content only: a helper's edit must still reach the kernel
    (without `_stamp.bind` this run prints 1, 1, 1)."""
    import shutil
    import subprocess
    import sys

    shutil.copy(_stamp.__file__, tmp_path / "_stamp.py")
    (tmp_path / "_main.py").write_text(_KERNEL)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(tmp_path)}
    seen = []
    for v in (1, 2, 2):
        (tmp_path / "_helper.py").write_text(
            f"from numba import njit\n\n@njit(cache=True)\ndef value():\n    return {v}\n"
        )
        run = subprocess.run([sys.executable, str(tmp_path / "_main.py")], env=env, capture_output=True, text=True)
        seen.append(run.stdout.strip())
    assert seen == ["1", "2", "2"]
    assert list((tmp_path / "cache").rglob("*.nbi"))  # the cache was used, not bypassed
