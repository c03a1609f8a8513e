"""How far a scanned page's print reaches past the blank's print: the template set's ``spread_px``.

Our own ballots measure it on the corner squares (`tabulate.detect.register`):
blur and a bitonal scanner's threshold fatten print, and the marking areas
(the name beside a target, 31 KAR 6:030 Section 3(1)(e): "an 'X', a check
mark ... next to the candidate's name") and write-in areas leave out the
points that near to print. A template page has no corner squares, so the
spread is measured on what the template prints away from every target:
headings, rules, timing marks. Around that print, bands one blank pixel
wide are laid out at growing distance (`edge_bands`); on a scan, the share
of each band darker than the reader's split is how much of the band print
covers, and their sum is how far print reached (`measure_spread`). A rough
bitonal scan with fat letters measures two or three pixels where a clean
one measures half a pixel, so the letters of a name are not read as a mark
beside it.

Voters write in the margins and over headings; the bands are cut into
`CHUNKS` runs of the page and the median run is taken, so one run under a
voter's scribble does not move the figure.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..kernels import spread_runs
from .align import median

#: Bands out to this distance (blank pixels) from the blank's print.
MAX_BANDS = 8
#: Points kept per band (spread evenly over the page).
BAND_POINTS = 1200
#: The page's print is split into this many runs (by position); the median run's spread is taken.
CHUNKS = 9
#: Print this near a target (inches) is left out: that is where marks are.
TARGET_CLEARANCE_IN = 0.25
#: A scan's spread is at least this (pixels): what blur leaves on a clean scan (the former fixed value).
MIN_SPREAD_PX = 0.5


def edge_bands(
    ink: np.ndarray, dpi: float, avoid: list[tuple[float, float, float, float]]
) -> tuple[np.ndarray, np.ndarray]:
    """Page points (inches, (N, 2)) around the blank's print ``ink`` (bool, at ``dpi``) and their band
    (1 = the first pixel outside the print, ...), away from the ``avoid`` rectangles (x, y, w, h, inches)."""
    dist = cv2.distanceTransform((~ink).astype(np.uint8), cv2.DIST_L2, 5)
    near = (dist > 0.5) & (dist <= MAX_BANDS + 0.5)
    for x, y, w, h in avoid:
        c = TARGET_CLEARANCE_IN
        r0, r1 = max(0, int((y - c) * dpi)), int((y + h + c) * dpi) + 1
        c0, c1 = max(0, int((x - c) * dpi)), int((x + w + c) * dpi) + 1
        near[r0:r1, c0:c1] = False
    rows, cols = np.nonzero(near)
    band = np.rint(dist[rows, cols]).astype(np.int32)
    keep = np.zeros(len(rows), bool)
    for b in range(1, MAX_BANDS + 1):
        idx = np.flatnonzero(band == b)
        if len(idx):
            keep[idx[np.linspace(0, len(idx) - 1, min(BAND_POINTS, len(idx))).astype(int)]] = True
    xy = np.column_stack([(cols[keep] + 0.5) / dpi, (rows[keep] + 0.5) / dpi])
    return np.ascontiguousarray(xy), np.ascontiguousarray(band[keep])


def band_runs(xy: np.ndarray) -> np.ndarray:
    """Each band point's run (0..`CHUNKS` - 1): the points in reading order (rows of half an inch, then
    across), cut into `CHUNKS` runs as `np.array_split` cuts them. Depends on the blank only, so a
    reader computes it once per template (`measure_spread`'s ``runs``)."""
    order = np.lexsort((xy[:, 0], np.floor(xy[:, 1] * 2)))
    n = len(order)
    sizes = [len(r) for r in np.array_split(np.arange(n), CHUNKS)]
    runs = np.empty(n, np.int64)
    runs[order] = np.repeat(np.arange(CHUNKS), sizes)
    return runs


def measure_spread(
    image: np.ndarray,
    affine: np.ndarray,
    xy: np.ndarray,
    band: np.ndarray,
    blank_dpi: float,
    paper: float,
    ink: float,
    split: float = 0.25,
    runs: np.ndarray | None = None,
) -> float:
    """How far (image pixels) the scan's print reaches past the blank's, at the reader's ``split``.

    Each band's dark share times its width (one blank pixel), summed over the bands, per run of the
    page; the median run. At least `MIN_SPREAD_PX`. ``runs`` is `band_runs` of ``xy`` (made here when
    not given).
    """
    if len(xy) == 0:
        return MIN_SPREAD_PX
    # Runs by position on the page (reading order), so a scribble stays in one or two of them.
    runs = band_runs(xy) if runs is None else runs
    grown, filled = spread_runs(image, affine, xy, band, runs, paper - split * (paper - ink), CHUNKS, MAX_BANDS)
    per_run = grown[filled]  # a run with no points (fewer points than runs) is no run
    scale = _px_per_in(affine) / blank_dpi  # image pixels per blank pixel
    return max(MIN_SPREAD_PX, median(per_run) * scale)


def _px_per_in(affine: np.ndarray) -> float:
    """Image pixels per page inch of ``affine`` (mean of its two axes)."""
    return float((np.hypot(affine[0, 0], affine[1, 0]) + np.hypot(affine[0, 1], affine[1, 1])) / 2)
