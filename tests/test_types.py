"""mypy passes: strict on the bottom layer, the election, the rules and the kernels' wrappers; lenient elsewhere.

The per-package settings are in pyproject.toml (``[tool.mypy]``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MYPY = shutil.which("mypy", path=str(Path(sys.executable).parent)) or shutil.which("mypy")

pytestmark = pytest.mark.skipif(MYPY is None, reason="mypy is not installed (pip install -e '.[dev]')")


def _mypy(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([MYPY, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_mypy_passes():
    result = _mypy()
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_strict_packages_are_checked_strictly(tmp_path):
    """An untyped function in `tabulate.core` is an error; the same function in `tabulate.commands` is not."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    for package in ("core", "commands"):
        (tmp_path / "tabulate" / package).mkdir(parents=True)
        (tmp_path / "tabulate" / package / "__init__.py").write_text("def untyped(x):\n    return x\n")
    (tmp_path / "tabulate" / "__init__.py").write_text("")
    result = _mypy("--no-incremental", "--cache-dir", str(tmp_path / ".cache"), cwd=tmp_path)
    assert result.returncode == 1, result.stdout
    assert "tabulate/core/__init__.py:1: error" in result.stdout
    assert "commands" not in result.stdout
