"""Read scanned ballot pages: decode, register, identify the style, score every target, classify.

``read_sheet(election, sources)`` reads one sheet (front and back) and never
raises on bad input: a page that cannot be read comes back with a
``reason_code`` (one of `REASON_CODES`) and a ``reason``. ``sheet_marks``
turns a sheet that was read into the `tabulate.core.BallotMarks` the
rules read. See docs/detect.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..core.lazy import lazy_names

if TYPE_CHECKING:
    from .decode import check_size, decode_page, headers
    from .errors import REASON_CODES, ReadError
    from .read import identify_from_other_side, pair_pages, read_image, read_page, read_pages, read_sheet, sheet_marks
    from .reading import PageReading, SheetReading, TargetReading
    from .settings import DEFAULT_SETTINGS, ReadSettings

#: Where each public name lives: loaded on first use (`tabulate.core.lazy`).
_WHERE = {
    "check_size": "decode",
    "decode_page": "decode",
    "headers": "decode",
    "REASON_CODES": "errors",
    "ReadError": "errors",
    "identify_from_other_side": "read",
    "pair_pages": "read",
    "read_image": "read",
    "read_page": "read",
    "read_pages": "read",
    "read_sheet": "read",
    "sheet_marks": "read",
    "PageReading": "reading",
    "SheetReading": "reading",
    "TargetReading": "reading",
    "DEFAULT_SETTINGS": "settings",
    "ReadSettings": "settings",
}
__getattr__, __dir__ = lazy_names(__name__, _WHERE)

__all__ = [
    "DEFAULT_SETTINGS",
    "PageReading",
    "REASON_CODES",
    "ReadError",
    "ReadSettings",
    "SheetReading",
    "TargetReading",
    "check_size",
    "decode_page",
    "headers",
    "identify_from_other_side",
    "pair_pages",
    "read_image",
    "read_page",
    "read_pages",
    "read_sheet",
    "sheet_marks",
]
