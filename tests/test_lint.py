"""ruff passes on the code, the tests and the benchmarks: lint (`ruff check`) and format (`ruff format --check`)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
PATHS = ["tabulate", "tests", "benchmarks"]

pytestmark = pytest.mark.skipif(RUFF is None, reason="ruff is not installed (pip install -e '.[dev]')")


def test_ruff_check_passes():
    result = subprocess.run(
        [RUFF, "check", "--no-cache", *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_flags_a_real_mistake(tmp_path):
    """The configuration is live: an unused import and an undefined name are reported."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "bad.py").write_text("import os\n\n\ndef f():\n    return undefined_name\n", encoding="utf-8")
    result = subprocess.run(
        [RUFF, "check", "--no-cache", "bad.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 1
    assert "F401" in result.stdout and "F821" in result.stdout


def test_ruff_format_check_passes():
    """Every file is as `ruff format` writes it (`ruff format tabulate tests benchmarks` fixes it)."""
    result = subprocess.run(
        [RUFF, "format", "--check", "--no-cache", *PATHS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr
