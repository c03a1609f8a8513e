"""CSV cells a spreadsheet will not run: the OWASP rule for formula injection.

A batch name, a reason or a note can begin with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return; a spreadsheet opening the CSV would take such a
cell for a formula (``=HYPERLINK(...)``, ``@SUM(...)``) and run it on the
clerk's machine. Following OWASP's "CSV Injection" guidance, such a text
cell is written with a leading single quote, which spreadsheets show as text
and which a reader of the CSV can strip. Numbers (``-3``, ``1.5``) are left
alone: they are data, not formulas. Every CSV tabulate writes goes through
`writer`.
"""

from __future__ import annotations

import csv
import re
from typing import Any, Iterable

#: The characters OWASP lists as starting a formula in Excel, LibreOffice and Google Sheets.
FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def neutralise(value: Any) -> Any:
    """``value`` with a leading ``'`` if it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_LEAD) and not _NUMBER.match(value):
        return "'" + value
    return value


class _SafeWriter:
    def __init__(self, inner):
        self._inner = inner

    def writerow(self, row: Iterable[Any]):
        return self._inner.writerow([neutralise(v) for v in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def writer(out, **kwargs) -> _SafeWriter:
    """`csv.writer` whose every text cell is neutralised (`neutralise`)."""
    return _SafeWriter(csv.writer(out, **kwargs))
