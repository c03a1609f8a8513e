"""Scanner streaks: dark columns from dust on the scanner glass, found in the paper's top and bottom margins.

A sheet-fed scanner images each column through one sensor element, so dust
on the glass draws a line down the whole image. Nothing is printed in the
first and last ``BAND_IN`` of the paper (the registration marks start
further in), so a column that is dark in both bands is a streak, not ink.
The target kernel is told to skip those columns (`tabulate.kernels.score_targets`).
The bands are measured from the paper's edges, not the image's: a scanner
whose scan area is larger than the page images its black background above
and below the paper, and every column would read as a streak there.
A column is compared with the paper *beside it* in its band (the median of
its block of columns, `LOCAL_IN` wide), not with the page's paper level: under
uneven light a bright corner's streak is lighter than the page's paper
level allows, and was left in to read as "a mark beside the name" on every
row it crossed (`benchmarks/templates_variants.py`, "arrows, uneven
illumination"); a dark corner's clean columns are darker than it.
"""

from __future__ import annotations

import cv2
import numpy as np

from .decode import grey

#: The image rows checked at the top and at the bottom (inches from the edge).
BAND_IN = (0.03, 0.15)
#: A column this far (fraction of paper-to-ink) darker than the paper beside it in both bands is a streak.
STREAK_DARKNESS = 0.12
#: The paper beside a column: the median of the band's columns in blocks this wide (inches) (streaks are a
#: few pixels wide; the light across a page changes over inches).
LOCAL_IN = 0.5


def streak_columns(
    image: np.ndarray, dpi: float, paper: float, ink: float, *, widen: int = 0, levels: np.ndarray | None = None
) -> np.ndarray:
    """A ``bool`` per image column: True where a streak runs (widened by ``widen`` columns each side).

    ``levels``: ``image`` is a bitonal page's bytes (`tabulate.detect.decode.BitonalPage`); the rows read are
    converted to grey first, so the means are those of the grey page.
    """
    r0, r1 = (max(0, int(v * dpi)) for v in BAND_IN)
    first, last = _paper_rows(image, dpi, paper, ink, levels)
    if r1 <= r0 or first + r1 >= last - r1:
        return np.zeros(image.shape[1], np.bool_)
    top = cv2.reduce(grey(image[first + r0 : first + r1], levels), 0, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[0]
    dark_top = _darker(top, dpi, ink)
    if not dark_top.any():  # a streak is dark in both bands: the bottom band cannot add one
        return dark_top
    bottom = cv2.reduce(grey(image[last - r1 : last - r0], levels), 0, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[0]
    return widened(dark_top & _darker(bottom, dpi, ink), widen)


#: Grey levels of slack in `_darker`'s test that no column can be darker (float32 rounding is ~1e-5 here).
_BOUND_SLACK = 1.0


def _darker(band: np.ndarray, dpi: float, ink: float) -> np.ndarray:
    """Columns of a band (its column means) darker than the paper beside them by `STREAK_DARKNESS`.

    The paper beside a column is never lighter than the band's lightest column (it is drawn
    between medians of the band's own columns), and the test's level grows with it; so when
    even the darkest column reaches the level the lightest would set, no column is darker and
    the paper beside each (a partition and an interpolation) is not worked out. A bitonal band
    of plain paper (every mean 255) and most grey ones end there.
    """
    lightest, darkest = float(band.max()), float(band.min())
    if darkest >= lightest - STREAK_DARKNESS * (lightest - ink) + _BOUND_SLACK:
        return np.zeros(len(band), np.bool_)
    beside = _beside(band, dpi)
    return band < beside - STREAK_DARKNESS * (beside - ink)


def _beside(band: np.ndarray, dpi: float) -> np.ndarray:
    """The paper beside each column of a band: the median of each `LOCAL_IN` block of columns, drawn
    straight between the blocks' middles (a sliding median cost 0.7-1.5 ms a band; this about 0.025 ms)."""
    n = max(8, int(LOCAL_IN * dpi))
    m = len(band) // n
    if m < 2:
        return np.full(len(band), float(np.median(band)), np.float32)
    blocks = np.partition(band[: m * n].reshape(m, n), n // 2, axis=1)[:, n // 2]  # each block's (upper) median
    middles = np.arange(m) * n + (n - 1) / 2
    return np.interp(np.arange(len(band)), middles, blocks).astype(np.float32)


#: How far into the image (inches) the paper's top and bottom edges are looked for.
EDGE_SEARCH_IN = 1.0


def _paper_rows(
    image: np.ndarray, dpi: float, paper: float, ink: float, levels: np.ndarray | None = None
) -> tuple[int, int]:
    """The first image row and the row after the last that show the paper (mean nearer paper than ink),
    looked for within `EDGE_SEARCH_IN` of the image's top and bottom: (0, rows) on a scan cut to the page."""
    rows = image.shape[0]
    n = min(rows // 2, int(EDGE_SEARCH_IN * dpi))
    if n < 1:
        return 0, rows
    half = (paper + ink) / 2
    first = _first_paper_row(image[:n], half, levels)
    last = rows - _first_paper_row(image[rows - n :][::-1], half, levels)
    return first, last


#: Rows averaged at a time while looking for the paper's edge (nearly every scan shows paper in its first).
_EDGE_CHUNK = 16


def _first_paper_row(band: np.ndarray, half: float, levels: np.ndarray | None = None) -> int:
    """The index of the first row of ``band`` whose mean is above ``half``, or 0 if none is.

    A few rows at a time, stopping at the first that shows paper: each row's mean is
    OpenCV's own (a row is reduced alone, so the chunk does not change it). The first row
    is looked at alone (a scan cut to the page shows paper there: one row, not a chunk,
    to copy and reduce), then `_EDGE_CHUNK` rows at a time, not an inch of rows.
    """
    start, size = 0, 1
    while start < band.shape[0]:
        chunk = band[start : start + size]
        means = cv2.reduce(grey(np.ascontiguousarray(chunk), levels), 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[:, 0] > half
        if means.any():
            return start + int(np.argmax(means))
        start, size = start + size, _EDGE_CHUNK
    return 0


def widened(streak: np.ndarray, widen: int) -> np.ndarray:
    """``streak`` grown by ``widen`` columns each side."""
    if not widen or not streak.any():
        return streak
    return cv2.dilate(streak.astype(np.uint8)[None, :], np.ones((1, 2 * widen + 1), np.uint8))[0].astype(np.bool_)


def repair(crop: np.ndarray, streak: np.ndarray) -> np.ndarray:
    """A copy of ``crop`` with its streak columns (``streak`` per crop column) replaced by the
    nearest clean column to their left (or right, at the crop's left edge)."""
    cols = np.nonzero(streak)[0]
    if len(cols) == 0:
        return crop
    out = crop.copy()
    clean = np.nonzero(~streak)[0]
    if len(clean) == 0:
        return crop
    for c in cols:
        left = clean[clean < c]
        out[:, c] = crop[:, left[-1] if len(left) else clean[0]]
    return out
