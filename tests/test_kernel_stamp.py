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
