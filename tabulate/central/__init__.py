"""Central count: list and pair scanned pages, read sheets on every core, record each exactly once.

`ScanPlan` turns PATHS into sheets (pairing rules in docs/scanning.md);
`run_batch` reads them into a store and returns a `RunSummary`.

The names load their modules on first use (PEP 562): `tabulate scan` starts
its readers' forkserver from `tabulate.central.readers_start` before the
pipeline (numpy, the store) is imported (docs/perf.md, branch cold).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .hotfolder import HotFolder
    from .interpret import Interpretation, Interpreter, interpret_sheet
    from .pages import PageLoadError, load_page
    from .pipeline import READER_CRASHED, READER_TIMED_OUT, RunSummary, run_batch
    from .sources import MISSING_BACK, MISSING_FRONT, PageSource, ScanPlan, SheetSource, SourceError
    from .worker import READER_FAILED

#: Where each public name lives.
_WHERE = {
    "HotFolder": "hotfolder",
    "Interpretation": "interpret",
    "Interpreter": "interpret",
    "interpret_sheet": "interpret",
    "PageLoadError": "pages",
    "load_page": "pages",
    "READER_CRASHED": "pipeline",
    "READER_TIMED_OUT": "pipeline",
    "RunSummary": "pipeline",
    "run_batch": "pipeline",
    "MISSING_BACK": "sources",
    "MISSING_FRONT": "sources",
    "PageSource": "sources",
    "ScanPlan": "sources",
    "SheetSource": "sources",
    "SourceError": "sources",
    "READER_FAILED": "worker",
}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "HotFolder",
    "MISSING_BACK",
    "MISSING_FRONT",
    "READER_CRASHED",
    "READER_FAILED",
    "READER_TIMED_OUT",
    "Interpretation",
    "Interpreter",
    "PageLoadError",
    "PageSource",
    "RunSummary",
    "ScanPlan",
    "SheetSource",
    "SourceError",
    "interpret_sheet",
    "load_page",
    "run_batch",
]
