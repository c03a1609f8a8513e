"""How a scanned page compares with blank template pages: printed alike, bare, nearer one blank than another.

Used by `tabulate.templates.read` when a page is identified by matching rather than by its code.
"""

from __future__ import annotations

import numpy as np

from ..detect.read import STYLE_FROM_OTHER_SIDE
from .align import ncc
from .model import TemplatePage

#: A page reading's flag: identified by matching among templates printed alike (`same_targets`).
TWIN_FLAG = STYLE_FROM_OTHER_SIDE
#: Targets of two templates this close (inches) are at the same place.
SAME_PLACE_IN = 0.03


def same_targets(a: TemplatePage, b: TemplatePage) -> bool:
    """Whether two template pages have the same contests' options at the same places (or both none)."""
    ta = sorted(a.layout.targets, key=lambda t: (t.contest_id, t.option_id))
    tb = sorted(b.layout.targets, key=lambda t: (t.contest_id, t.option_id))
    return len(ta) == len(tb) and all(
        (x.contest_id, x.option_id) == (y.contest_id, y.option_id)
        and abs(x.bounds.x - y.bounds.x) < SAME_PLACE_IN
        and abs(x.bounds.y - y.bounds.y) < SAME_PLACE_IN
        for x, y in zip(ta, tb)
    )


#: A page taken for a template with no targets may print at most this share of its area more than the blank.
BARE_EXTRA = 0.01


def bare_as(fine: np.ndarray, paper: float, blank: np.ndarray) -> bool:
    """Whether a scanned page (``uint8`` at `FINE_DPI`, paper level ``paper``) carries hardly more print
    than a blank page (its own resolution, paper 255): the share of pixels 80 levels darker than paper."""
    page = float(np.count_nonzero(fine < paper - 80)) / fine.size
    printed = float(np.count_nonzero(blank < 175)) / blank.size
    return page <= 2 * printed + BARE_EXTRA


def differs_toward(frame: np.ndarray, a: np.ndarray, b: np.ndarray, min_diff: float = 80.0) -> float:
    """On the pixels where blanks ``a`` and ``b`` differ (a contest, a name), the page's correlation with
    ``a`` less its correlation with ``b`` (-2..2; 0 when they nowhere differ).

    Pixel by pixel "nearer" (`closer_share`) is diluted by a rough scan's blur and grain at the edges of
    thin text; the correlation over the same pixels follows the whole shape of what differs.
    """
    where = np.abs(a - b) >= min_diff
    if np.count_nonzero(where) < 10:
        return 0.0
    return ncc(frame[where], a[where]) - ncc(frame[where], b[where])
