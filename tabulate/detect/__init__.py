"""Read scanned ballot pages: decode, register, identify the style, score every target, classify.

``read_sheet(election, sources)`` reads one sheet (front and back) and never
raises on bad input: a page that cannot be read comes back with a
``reason_code`` (one of `REASON_CODES`) and a ``reason``. ``sheet_marks``
turns a sheet that was read into the `tabulate.core.BallotMarks` the
rules read. See docs/detect.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import lazy_loader

if TYPE_CHECKING:
    from .decode import check_size, decode_page, headers
    from .errors import REASON_CODES, ReadError
    from .read import identify_from_other_side, pair_pages, read_image, read_page, read_pages, read_sheet, sheet_marks
    from .reading import PageReading, SheetReading, TargetReading
    from .settings import DEFAULT_SETTINGS, ReadSettings

#: Each submodule's public names, loaded on first use (`lazy_loader`, PEP 562).
_WHERE = {
    "decode": ["check_size", "decode_page", "headers"],
    "errors": ["REASON_CODES", "ReadError"],
    "read": [
        "identify_from_other_side",
        "pair_pages",
        "read_image",
        "read_page",
        "read_pages",
        "read_sheet",
        "sheet_marks",
    ],
    "reading": ["PageReading", "SheetReading", "TargetReading"],
    "settings": ["DEFAULT_SETTINGS", "ReadSettings"],
}
__getattr__, __dir__, _ = lazy_loader.attach(__name__, submod_attrs=_WHERE)

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
