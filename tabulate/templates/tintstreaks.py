"""Scanner streaks that only a tinted band shows: dark in every shaded row they cross, white between them.

A dust streak on a sheet-fed scanner's glass darkens one column of the image
a little. On a bitonal scan that column stays white on the paper, so the
streak bands at the paper's top and bottom (`tabulate.detect.streaks`) never
see it; but where the ballot prints a light tint near the scanner's threshold
(every other option row shaded at grey 200, a "vote for" heading band) the
streak's few grey levels push the tint under the threshold, and a black
line exactly as tall as the band appears through the candidate's name.

31 KAR 6:030 Section 3(1)(e) counts "an 'X', a check mark ... or any other mark
indicating the intent of the voter next to the candidate's name": the hand
reading took those lines for marks beside the name (`benchmarks/templates_variants.py`,
"timing, every other row shaded (grey 200)": 4 of 20 clean ballots sent to a
person in 40 sheets, every one a streak through the shaded rows; one streak
through an oval on a shaded row read marginal).

The blank says where its tints are (`tint_bands`). On a bitonal scan, an image
column is such a streak when in at least `MIN_BANDS` of the page's tinted bands it
is black from an edge of the band over much of its height (`BAND_BLACK`) and white on the
paper just above and just below the band. No voter's stroke does that: a pen
line through a shaded row runs on past the band or stops short of its edges,
and two bands are rows apart with white paper between them. Those columns are
skipped as the glass streaks found in the margins are; an X drawn over a
shaded name keeps every other column and is read as before.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import cv2
import numpy as np

from ..detect.streaks import widened
from .model import TemplatePage, TemplateSet
from .pages import prepared

#: Grey levels of a blank's tint: lighter than print, darker than paper.
TINT_GREY = (120, 242)
#: A band: a tinted area at least this wide and this tall (inches), filling most of its box.
BAND_MIN_IN = (0.4, 0.1)
BAND_FILL = 0.85
#: Text printed over a band is bridged over this many inches when the band is found.
BRIDGE_IN = 0.12
#: A streak column is black from the band's top or bottom edge (less `EDGE_IN`) over this share of its rows,
#: and at least `RUN_MIN_IN` inches (a letter's stroke in a name stops short of the band's edges) ...
BAND_BLACK = 0.45
RUN_MIN_IN = 0.08
EDGE_IN = 0.025
#: ... and black on at most this share of the paper `OUTSIDE_IN` tall outside it (past `EDGE_IN`: the fit may
#: place a band a pixel or two off), above and below: a stroke running on past the band is black there all
#: along, where a streak meets at most a piece of print (an oval's outline on the next row).
OUTSIDE_BLACK = 0.6
OUTSIDE_IN = 0.04
#: ... and thin: the band `SIDE_IN` inches to its left and to its right black on less than `SIDE_BLACK` of its
#: rows (a dust streak is a pixel or three wide) ...
SIDE_IN = 0.02
SIDE_BLACK = 0.5
#: ... in at least this many bands of the page.
MIN_BANDS = 2
#: A band where more of its columns than this share look so was printed darker than the scanner's threshold:
#: the whole band, not a streak (its columns are left alone).
MAX_BAND_SHARE = 0.05
#: A page with more streak columns than this share of its width is left alone.
MAX_PAGE_SHARE = 0.01
#: Streak columns widened by this many columns each side (a dust streak's grey edge).
WIDEN = 1

_CACHE: dict[tuple, np.ndarray] = {}
_LOCK = threading.Lock()


def tint_bands(blank: np.ndarray, dpi: float) -> np.ndarray:
    """The blank's tinted bands: an ``(N, 4)`` array of boxes ``x0, y0, x1, y1`` in page inches."""
    grey = ((blank >= TINT_GREY[0]) & (blank <= TINT_GREY[1])).astype(np.uint8)
    k = max(3, int(round(0.02 * dpi)) | 1)  # an anti-aliased text edge is a pixel or two of grey, not a band
    tint = cv2.morphologyEx(grey, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    if not tint.any():
        return np.zeros((0, 4))
    b = max(3, int(round(BRIDGE_IN * dpi)) | 1)  # odd: the box stays where the band is
    filled = cv2.morphologyEx(tint, cv2.MORPH_CLOSE, np.ones((b, b), np.uint8))
    n, _labels, stats, _c = cv2.connectedComponentsWithStats(filled, connectivity=4)
    out = []
    for x, y, w, h, area in stats[1:]:
        if w >= BAND_MIN_IN[0] * dpi and h >= BAND_MIN_IN[1] * dpi and area >= BAND_FILL * w * h:
            out.append((x / dpi, y / dpi, (x + w) / dpi, (y + h) / dpi))
    return np.array(out, np.float64).reshape(-1, 4)


def page_bands(tset: TemplateSet, page: TemplatePage) -> np.ndarray:
    """The page's tinted bands: as the import found them on the blank before a watermark was left out (it
    records them only then), else `tint_bands` of the blank it stored; once per page and process."""
    if page.tint_bands_in:
        return np.array(page.tint_bands_in, np.float64)
    key = (tset.folder, page.key)
    with _LOCK:
        hit = _CACHE.get(key)
    if hit is None:
        hit = tint_bands(prepared(tset, page).blank, page.dpi)
        with _LOCK:
            _CACHE[key] = hit
    return hit


def _bitonal(image: np.ndarray) -> bool:
    """Whether a few of the image's rows hold only black and white (a bitonal scan)."""
    rows = image[:: max(1, image.shape[0] // 8)]
    return np.count_nonzero(rows == 0) + np.count_nonzero(rows == 255) == rows.size


def _band_hits(image: np.ndarray, affine: np.ndarray, box: np.ndarray, dpi: float) -> np.ndarray:
    """The image columns one band shows a streak in (see the module's docstring)."""
    x0, y0, x1, y1 = box
    ends = np.array([[x0, y0, 1.0], [x1, y0, 1.0], [x0, y1, 1.0], [x1, y1, 1.0]]) @ affine.T  # (4, 2) px
    h, w = image.shape
    inset = 0.05 * dpi
    c_lo = max(0, int(np.ceil(ends[:, 0].min() + inset)))
    c_hi = min(w - 1, int(np.floor(ends[:, 0].max() - inset)))
    if c_hi <= c_lo:
        return np.zeros(0, np.int64)
    cols = np.arange(c_lo, c_hi + 1)

    def edge(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # the image row of a band edge at each column
        if abs(b[0] - a[0]) < 1e-9:
            return np.full(len(cols), (a[1] + b[1]) / 2)
        return a[1] + (cols - a[0]) * (b[1] - a[1]) / (b[0] - a[0])

    first, second = edge(ends[0], ends[1]), edge(ends[2], ends[3])
    top, bottom = np.minimum(first, second), np.maximum(first, second)
    e, o = EDGE_IN * dpi, max(2, int(round(OUTSIDE_IN * dpi)))
    n_in = int(np.floor((bottom - top - 2 * e).min()))
    if n_in < 4:
        return np.zeros(0, np.int64)
    start = np.ceil(top + e).astype(np.int64)
    inner = np.clip(start[None, :] + np.arange(n_in)[:, None], 0, h - 1)
    black = image[inner, cols[None, :]] < 128
    # The run of black from the band's top down, and from its bottom up: a streak's darkness varies along the
    # glass, so a band may show it over part of its height only, but always from an edge of the band.
    lead = np.where(black.all(axis=0), n_in, np.argmin(black, axis=0))
    trail = np.where(black.all(axis=0), n_in, np.argmin(black[::-1], axis=0))
    run = np.maximum(lead, trail)
    above = np.clip(np.floor(top - e).astype(np.int64)[None, :] - np.arange(o)[:, None], 0, h - 1)
    below = np.clip(np.ceil(bottom + e).astype(np.int64)[None, :] + np.arange(o)[:, None], 0, h - 1)
    black_above = (image[above, cols[None, :]] < 128).mean(axis=0)
    black_below = (image[below, cols[None, :]] < 128).mean(axis=0)
    tall = run >= max(BAND_BLACK * n_in, RUN_MIN_IN * dpi)
    # Thin: the band beside it, `SIDE_IN` each way, mostly not black (a filled oval is as black a column as a
    # streak, and 0.2 in wide).
    k = max(2, int(round(SIDE_IN * dpi)))
    share = black.mean(axis=0)
    side = np.ones(len(cols), np.float64)
    side[k:-k] = np.maximum(share[: -2 * k], share[2 * k :])
    thin = side < SIDE_BLACK
    hit = tall & thin & (black_above <= OUTSIDE_BLACK) & (black_below <= OUTSIDE_BLACK)
    if np.count_nonzero(hit) > max(3, MAX_BAND_SHARE * len(cols)):
        return np.zeros(0, np.int64)
    return cols[hit]


def tint_streaks(
    image: np.ndarray, affine: np.ndarray, bands: Callable[[], np.ndarray], dpi: float
) -> np.ndarray | None:
    """A ``bool`` per column of the upright ``image``: a streak only the blank's tinted bands (``bands()``,
    asked only of a bitonal scan) show, or None when there is none (not a bitonal scan, fewer than
    `MIN_BANDS` bands, or no column seen in `MIN_BANDS` of them).

    ``affine`` maps page inches to the image's pixels (the scoring registration's)."""
    if not _bitonal(image):
        return None
    boxes = bands()
    if len(boxes) < MIN_BANDS:
        return None
    votes = np.zeros(image.shape[1], np.int32)
    for box in boxes:
        np.add.at(votes, _band_hits(image, affine, box, dpi), 1)
    streak = votes >= MIN_BANDS
    if not streak.any() or np.count_nonzero(streak) > MAX_PAGE_SHARE * len(streak):
        return None  # none; or more than dust makes (the bands printed darker than the scanner's threshold)
    return widened(streak, WIDEN)
