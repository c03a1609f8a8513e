"""Commands that read no image start without numba, OpenCV or SciPy; every package's public name still imports.

``tabulate verify``, ``results``, ``status`` and the other store commands used
to load numba, OpenCV and SciPy (~0.6 CPU s) only because package
``__init__`` files imported every module they name (`tabulate.adjudicate` ->
its review source -> `tabulate.templates` -> its importer -> `tabulate.detect`
-> the kernels). The packages now load their names on first use
(`lazy_loader`); ``verify --images`` still loads the reader when it
re-reads. Each check runs in a fresh interpreter and looks at ``sys.modules``.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from test_adjudicate_support import template_store  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
#: What reading an image needs and a command that reads none must not load.
HEAVY = ("numba", "cv2", "scipy", "llvmlite", "tabulate.kernels", "tabulate.detect")
LAZY_PACKAGES = ("tabulate.adjudicate", "tabulate.audit", "tabulate.detect", "tabulate.templates")

_RUN = """
import contextlib, io, sys
from tabulate.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        code = main(sys.argv[1:])
    except SystemExit as e:
        code = e.code
print(code, *sorted(m for m in {heavy!r} if m in sys.modules))
"""


def _loaded_by(*argv: str) -> list[str]:
    """The exit status of ``tabulate ARGV`` in a fresh interpreter, then which of `HEAVY` it loaded."""
    out = subprocess.run(
        [sys.executable, "-c", _RUN.format(heavy=HEAVY), *argv],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        timeout=120,
    )
    return out.stdout.split()


@pytest.fixture(scope="module")
def db(template_store, tmp_path_factory) -> str:
    copy = tmp_path_factory.mktemp("lazy") / "store.db"
    shutil.copy(template_store, copy)
    return str(copy)


@pytest.mark.parametrize(
    "argv",
    [
        ("verify", "--db", "{db}"),
        ("verify", "--db", "{db}", "--fast"),
        ("results", "--db", "{db}", "--format", "csv"),
        ("status", "--db", "{db}"),
        ("verify", "--help"),
    ],
    ids=lambda a: " ".join(a).replace("{db}", "DB"),
)
def test_a_command_that_reads_no_image_loads_no_reader(db, argv):
    assert _loaded_by(*(a.format(db=db) for a in argv)) == ["0"]


def test_asking_for_a_reader_name_loads_the_reader():
    """The check above can fail: the first use of `tabulate.detect.read_sheet` loads numba and the kernels."""
    code = (
        "import sys, tabulate.detect\n"
        "before = 'numba' in sys.modules\n"
        "tabulate.detect.read_sheet\n"
        "print(before, 'numba' in sys.modules, 'tabulate.kernels' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["False", "True", "True"]


def _declared(package: str) -> tuple[dict[str, str], dict[str, str]]:
    """(lazy, eager): name -> submodule, from the ``__init__``'s ``if TYPE_CHECKING:`` block and its own imports."""
    init = Path(importlib.import_module(package).__file__ or "")
    lazy: dict[str, str] = {}
    eager: dict[str, str] = {}
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.level == 1 and imp.module
                lazy.update({a.name: imp.module for a in imp.names})
        elif isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            eager.update({a.name: node.module for a in node.names})
    return lazy, eager


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_public_name_imports_from_the_module_mypy_sees(package):
    module = importlib.import_module(package)
    lazy, eager = _declared(package)
    assert lazy == {name: sub for sub, names in module._WHERE.items() for name in names}
    assert sorted(module.__all__) == sorted(lazy | eager)
    # A lazy name must not be a submodule's name too: importing the submodule would rebind it to the module.
    assert not set(lazy) & {m.name for m in pkgutil.iter_modules(module.__path__)}
    for name, sub in (lazy | eager).items():
        importlib.import_module(f"{package}.{sub}")  # every submodule loaded first, as a long-running process may
        assert getattr(module, name) is getattr(importlib.import_module(f"{package}.{sub}"), name), name
    assert set(lazy) <= set(dir(module))
    with pytest.raises(AttributeError, match="not_a_name"):
        module.not_a_name  # noqa: B018
