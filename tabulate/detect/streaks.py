"""Scanner streaks: dark columns from dust on the scanner glass, found in the image's top and bottom margins.

A sheet-fed scanner images each column through one sensor element, so dust
on the glass draws a line down the whole image. Nothing is printed in the
first and last ``BAND_IN`` of the paper (the registration marks start
further in), so a column that is dark in both bands is a streak, not ink.
The target kernel is told to skip those columns (`tabulate.kernels.score_targets`).
"""

from __future__ import annotations

import cv2
import numpy as np

#: The image rows checked at the top and at the bottom (inches from the edge).
BAND_IN = (0.03, 0.15)
#: A column this far (fraction of paper-to-ink) darker than the paper in both bands is a streak.
STREAK_DARKNESS = 0.12


def streak_columns(image: np.ndarray, dpi: float, paper: float, ink: float, *, widen: int = 0) -> np.ndarray:
    """A ``bool`` per image column: True where a streak runs (widened by ``widen`` columns each side)."""
    rows = image.shape[0]
    r0, r1 = (max(0, int(v * dpi)) for v in BAND_IN)
    if r1 <= r0 or 2 * r1 >= rows:
        return np.zeros(image.shape[1], np.bool_)
    limit = paper - STREAK_DARKNESS * (paper - ink)
    top = cv2.reduce(image[r0:r1], 0, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[0]
    bottom = cv2.reduce(image[rows - r1 : rows - r0], 0, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[0]
    return widened((top < limit) & (bottom < limit), widen)


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
