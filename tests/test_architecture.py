"""The layers are enforced: the import contracts pass, and an import against the flow fails them.

The contracts live in pyproject.toml (``[tool.importlinter]``); docs/architecture.md
draws them. These tests run `lint-imports` on the real tree, and on a copy of it with
one deliberately wrong import added.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")

pytestmark = pytest.mark.skipif(LINT_IMPORTS is None, reason="import-linter is not installed (pip install -e '.[dev]')")


def _lint_imports(root: Path) -> subprocess.CompletedProcess:
    # The package under test must be the one in `root`, not the installed one.
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [LINT_IMPORTS, "--no-cache", "--config", str(root / "pyproject.toml")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _skip(folder: str, names: list[str]) -> set[str]:
    """Caches, and the review app's HTML and static files (not the `tabulate.templates` package)."""
    skip = {n for n in names if n == "__pycache__" or n.endswith(".pyc")}
    if Path(folder).name == "web":
        skip |= {n for n in names if n in ("static", "templates")}
    return skip


def _copy_tree(dest: Path) -> None:
    shutil.copytree(ROOT / "tabulate", dest / "tabulate", ignore=_skip)
    shutil.copy(ROOT / "pyproject.toml", dest / "pyproject.toml")


def test_the_import_contracts_hold():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.mark.parametrize(
    "module, line, contract",
    [
        # detection reaching for the simulator (the shortcut issue 15 removed)
        ("detect/template.py", "from ..ballots import simulate", "Detection and templates never load"),
        # the store importing the reports, against the flow
        ("store/records.py", "from ..report import tally", "Data flows one way"),
        # the rules looking at images
        ("rules/_apply.py", "from ..kernels import points", "The rules read no images"),
        # the kernels importing anything of ours
        ("kernels/points.py", "from ..core import canonical", "The kernels import nothing of ours"),
    ],
)
def test_a_deliberately_wrong_import_breaks_a_contract(tmp_path, module, line, contract):
    _copy_tree(tmp_path)
    target = tmp_path / "tabulate" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # deliberately wrong\n", encoding="utf-8")
    result = _lint_imports(tmp_path)
    assert result.returncode != 0, result.stdout
    assert contract in result.stdout
    assert "BROKEN" in result.stdout


def test_importing_detection_loads_nothing_from_the_simulator():
    """Issue 15: ``import tabulate.detect`` must not load any `tabulate.ballots` module."""
    code = "import sys, tabulate.detect; print(sorted(m for m in sys.modules if m.startswith('tabulate.ballots')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_the_cli_and_the_scan_pipeline_load_the_reader_only_when_they_read():
    """The CLI's start-up and the scan's parent process stay free of numba, OpenCV and the reader (docs/perf.md)."""
    code = (
        "import sys, tabulate.cli, tabulate.central.pipeline, tabulate.central.interpret\n"
        "print(sorted(m for m in sys.modules if m in ('numba', 'cv2', 'tabulate.detect', 'tabulate.kernels')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_building_the_cli_parser_loads_neither_the_simulator_nor_the_reader():
    """Every command builds the whole parser first: it must not pay for the simulator (numpy, OpenCV,
    Pillow) or the reader before it runs (docs/perf.md, start-up: ~0.35 CPU s when `samples` listed the
    simulator's names by importing it)."""
    heavy = ("numba", "cv2", "PIL", "tabulate.ballots", "tabulate.detect", "tabulate.kernels")
    code = f"import sys, tabulate.cli\ntabulate.cli.build_parser()\nprint(sorted(m for m in sys.modules if m in {heavy!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_the_picture_in_docs_architecture_is_the_layers_contract():
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = doc.split("<!-- layers -->", 1)[1].split("```", 2)[1]
    assert block.strip().splitlines() == contract["layers"]


def test_every_package_is_in_a_layer_and_in_the_readme_map():
    packages = sorted(p.name for p in (ROOT / "tabulate").iterdir() if (p / "__init__.py").exists())
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    layered = {
        name.strip().strip("()").removeprefix("tabulate.")
        for layer in contract["layers"]
        for name in layer.replace(":", "|").split("|")
    }
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert [p for p in packages if p not in layered] == []
    assert [p for p in packages if f"`tabulate/{p}/`" not in readme] == []


def _only_reexports(path: Path) -> bool:
    """A module whose whole body is its docstring, imports and ``__all__``: a thin re-export."""
    body = [n for n in ast.parse(path.read_text(encoding="utf-8")).body if not _is_docstring(n)]
    return bool(body) and all(
        isinstance(n, (ast.Import, ast.ImportFrom))
        or (isinstance(n, ast.Assign) and [getattr(t, "id", None) for t in n.targets] == ["__all__"])
        for n in body
    )


def _is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def test_no_module_only_re_exports_another_modules_names():
    """A module holds a concept or does not exist; a package's public face is its ``__init__``."""
    shims = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "tabulate").rglob("*.py"))
        if p.name != "__init__.py" and _only_reexports(p)
    ]
    assert shims == []


def test_a_thin_re_export_module_is_recognised(tmp_path):
    shim = tmp_path / "types.py"
    shim.write_text(
        '"""Kept for older imports."""\n\nfrom ..core.votes import BallotVotes\n\n__all__ = ["BallotVotes"]\n'
    )
    real = tmp_path / "real.py"
    real.write_text(
        '"""A concept."""\n\nfrom ..core.votes import BallotVotes\n\n\ndef first(v: BallotVotes):\n    return v\n'
    )
    assert _only_reexports(shim) and not _only_reexports(real)


def test_every_module_in_the_architecture_module_map_exists():
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    table = doc.split("## One concept per module", 1)[1].split("\n## ", 1)[0]
    package, named = "", []
    for row in table.splitlines():
        cells = [c.strip().strip("`") for c in row.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1].endswith(".py"):
            package = cells[0] or package
            named.append(f"tabulate/{package}{cells[1]}")
    assert len(named) >= 10
    assert [m for m in named if not (ROOT / m).is_file()] == []
