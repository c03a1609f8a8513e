"""Central count: list and pair scanned pages, read sheets on every core, record each exactly once.

`ScanPlan` turns PATHS into sheets (pairing rules in docs/scanning.md);
`run_batch` reads them into a store and returns a `RunSummary`.
"""

from .hotfolder import HotFolder
from .interpret import Interpretation, Interpreter, interpret_sheet
from .pages import PageLoadError, load_page
from .pipeline import READER_CRASHED, READER_TIMED_OUT, RunSummary, run_batch
from .sources import MISSING_BACK, MISSING_FRONT, PageSource, ScanPlan, SheetSource, SourceError
from .worker import READER_FAILED

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
