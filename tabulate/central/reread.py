"""A recount from the evidence: re-read every stored sheet's images and compare with the store.

`tabulate verify --images` runs this after the journal and the rules check.
Each live sheet's page files are loaded again, their SHA-256 compared with
the ones the store sealed (a replaced or edited image is named), and the
sheet is interpreted again with the same reader (`interpret_sheet`): its
marks and votes must be the ones the store holds. Reading is deterministic
(same bytes, same election -> the same reading), so any difference is a
changed image, a changed store, or a changed reader.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Mapping

from ..election import PAPER_SIZES_IN
from ..store.base import LIVE_STATUSES, Store
from .interpret import Interpreter, interpret_sheet
from .pages import PageLoadError, load_page
from .sources import PageSource

_FRAME = re.compile(r"^(.*)#(\d+)$")


def page_source(source: str, base_dir: Path) -> PageSource:
    """The recorded ``source`` (a path, or ``path#N`` for a TIFF page) as a `PageSource`."""
    m = _FRAME.match(source)
    path, frame = (m.group(1), int(m.group(2))) if m else (source, None)
    p = Path(path)
    if not p.is_absolute() and not p.exists():
        p = base_dir / p  # recorded relative to where `tabulate scan` ran
    return PageSource(str(p), frame)


def reread_problem(
    store: Store,
    *,
    interpreter: Interpreter = interpret_sheet,
    progress: Callable[[int], None] | None = None,
    interpreters: Mapping[int, Interpreter] | None = None,
) -> tuple[str | None, int]:
    """Re-read every live sheet; the first that differs from the store (one line), and how many were read.

    ``interpreters`` gives a sheet (by id) its own: the template set it was scanned with
    (`tabulate.central.recorded.template_interpreters`).
    """
    election = store.election()
    paper_in = PAPER_SIZES_IN[election.paper_size]
    base_dir = Path(store.path).resolve().parent
    n = 0
    for sheet in store.sheets():
        if sheet.status not in LIVE_STATUSES:
            continue
        data = []
        for side, page in enumerate(sheet.pages, 1):
            try:
                content, digest = load_page(page_source(page.source, base_dir), paper_in)
            except (PageLoadError, ValueError, OSError) as e:
                return f"sheet {sheet.id} ({sheet.label}) page {side}: the image cannot be read: {e}", n
            if digest != page.sha256:
                return (
                    f"sheet {sheet.id} ({sheet.label}) page {side}: the image {page.source} is not the one "
                    f"scanned (SHA-256 {digest[:12]}, the store sealed {page.sha256[:12]})"
                ), n
            data.append(content)
        again = (interpreters or {}).get(sheet.id, interpreter)(election, data)
        n += 1
        if progress is not None:
            progress(n)
        if again.marks != sheet.marks:
            return f"sheet {sheet.id} ({sheet.label}): re-reading its images gives other marks than the store's", n
        if again.votes is None or tuple(again.votes.contests) != tuple(sheet.interpreted.contests):
            return f"sheet {sheet.id} ({sheet.label}): re-reading its images gives other votes than the store's", n
    return None, n
