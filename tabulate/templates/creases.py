"""Creases: the faint straight line a fold leaves across the whole page (a ballot mailed or carried folded).

A crease through a connect-the-arrow gap darkens it a little, as the residue
of an erased pencil bar does; unlike an erasure it runs on across the page,
through both side margins, where nothing is printed or marked. So a crease is
a row that is darker than the rows around it in both side margins at once
(writing or a speck in one margin is not). Targets a crease crosses are read
without the faint-residue test (`tabulate.detect.classify.arrow_class`).
"""

from __future__ import annotations

import cv2
import numpy as np

#: The side-margin strips looked at (inches in from each side edge of the page).
STRIP_IN = (0.12, 0.4)
#: A row this many grey levels darker than the strip's rows around it (median of `BASE_ROWS`) is creased.
MIN_DIP = 5.0
BASE_ROWS = 21
#: Margin strips closer than this to the top or bottom edge are not looked at (the scanner's edge shadow).
EDGE_IN = 0.3


def _profile(image: np.ndarray, affine: np.ndarray, x_in: float, width_in: float, height_in: float, dpi: float):
    """Mean grey of each page row (at ``dpi``) of the strip ``width_in`` wide from ``x_in``."""
    cols, rows = max(1, int(width_in * dpi)), int(height_in * dpi)
    to_page = np.array([[1 / dpi, 0, x_in], [0, 1 / dpi, 0], [0, 0, 1.0]])
    m = (np.vstack([affine, [0, 0, 1]]) @ to_page)[:2]
    strip = cv2.warpAffine(
        image, m, (cols, rows), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=255
    ).astype(np.float32)
    return strip.mean(axis=1)


def _dips(profile: np.ndarray) -> np.ndarray:
    # As a row, not a column: the same median (the replicated border repeats each value across the
    # square window either way), a third of OpenCV's time.
    base = cv2.medianBlur(np.clip(profile, 0, 255).astype(np.uint8)[None, :], BASE_ROWS)[0].astype(np.float32)
    return base - profile >= MIN_DIP


def crease_rows(image: np.ndarray, affine: np.ndarray, page_in: tuple[float, float]) -> tuple[float, ...]:
    """Page y (inches) of every crease across the page: rows dark in both side margins."""
    w_in, h_in = page_in
    dpi = float(np.hypot(affine[0, 0], affine[1, 0]))
    near, far = STRIP_IN
    left = _dips(_profile(image, affine, near, far - near, h_in, dpi))
    right = _dips(_profile(image, affine, w_in - far, far - near, h_in, dpi))
    # A row either side: the two margins' rows need not fall on the same pixel row.
    both = left & cv2.dilate(right.astype(np.uint8)[:, None], np.ones((3, 1), np.uint8))[:, 0].astype(bool)
    edge = int(EDGE_IN * dpi)
    both[:edge] = both[len(both) - edge :] = False
    rows = np.flatnonzero(both)
    if len(rows) == 0:
        return ()
    groups = np.split(rows, np.flatnonzero(np.diff(rows) > 2) + 1)
    return tuple(float((g.mean() + 0.5) / dpi) for g in groups)
