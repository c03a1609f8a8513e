"""A package's public names loaded from their modules on first use (PEP 562).

Commands that never read an image (``tabulate verify``, ``results``, ``status``,
exports, the review app's start) used to load numba, OpenCV and SciPy (~0.6
CPU s) only because a package's ``__init__`` imported every module it names:
`tabulate.adjudicate` imported the review source, which imported
`tabulate.templates`, whose importer imported `tabulate.detect` and its
kernels. A package that uses `lazy_names` keeps every public name importable
(``from tabulate.templates import TemplateSet``) but loads a module only when
one of its names is asked for (docs/perf.md, branch cold6).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Mapping


def lazy_names(package: str, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: each name in ``where`` comes from the submodule named beside it.

    A name loaded once is stored in the package's namespace, so the next
    lookup does not come back here. A name not in ``where`` is an
    `AttributeError`, as it would be without this (submodules still import
    as submodules: ``import tabulate.templates.model``).
    """
    names = dict(where)

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(importlib.import_module(package), name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(names) | set(vars(importlib.import_module(package))))

    return __getattr__, __dir__
