"""A sample ballot's grey watermark, left out of a blank page: the voted scans never show it.

Counties publish their ballots as "SAMPLE BALLOT" PDFs before an election, and
those are often the blanks a template set is imported from. The sample
carries a watermark the printed ballot does not: large grey letters across
the page, over contests and targets. Left in the blank, its strokes join the
ovals' outlines (the import then misses targets: `'president' has 3 targets`
with a watermark at grey 110), its edges become anchors the scans do not
have, and the reader would take the scans' paper under it for "less print
than the blank".

A watermark is told from the ballot's own print by three things together:

* its grey: between the print's black and the paper (`GREY_BAND`), where
  a printed ballot puts only the anti-aliased edges of its strokes and
  tints (a shaded heading at grey 225 is lighter than the band);
* its strokes are thick (survive an opening `STROKE_IN` wide): a
  drop-out red oval's outline (0.02 in, dark grey in the darkest
  channel) and the grey edges of black text are thin;
* its pieces are letters, not shading: each fills at most `FILL_MAX` of its
  upright bounding box (a tinted band or box behind text fills nearly all
  of it, and is kept: the scans show it too).

What is removed is painted paper, and the import says how much, per page.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Grey levels a watermark is printed at (a clean rasterized PDF: print 0, paper 255).
GREY_BAND = (40, 215)
#: A watermark's strokes are at least this wide (inches): thicker than any outline or text stroke.
STROKE_IN = 0.04
#: A piece of watermark fills at most this share of its upright bounding box (letters, often turned).
FILL_MAX = 0.7
#: Near the pieces, pixels within this of the watermark's grey are watermark (thin bits cut off by print).
GREY_MATCH = 20
#: Thick grey this near is one piece (a letter cut by a rule or a line of text printed over it).
JOIN_IN = 0.06
#: Pieces smaller than this (square inches) are left alone.
MIN_AREA_IN2 = 0.02


def watermark_mask(img: np.ndarray, dpi: float) -> np.ndarray:
    """Where ``img`` (a blank page, grey ``uint8``) shows a grey watermark: a boolean mask, all False if none."""
    lo, hi = GREY_BAND
    band = ((img >= lo) & (img <= hi)).astype(np.uint8)
    if not band.any():
        return np.zeros(img.shape, bool)
    k = max(3, round(STROKE_IN * dpi) | 1)
    thick = cv2.morphologyEx(band, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    if not thick.any():  # no thick grey at all: every ballot printed in black (and light tints)
        return np.zeros(img.shape, bool)
    # A letter cut into slices by the ballot's rules and text (black over it) is one piece: group the
    # thick grey across gaps of `JOIN_IN`, then judge each group's area and fill.
    j = max(3, round(JOIN_IN * dpi) | 1)
    joined = cv2.dilate(thick, np.ones((j, j), np.uint8))  # square: separable, and fast
    n, groups, stats, _c = cv2.connectedComponentsWithStats(joined, connectivity=8)
    area = np.bincount(groups[thick > 0], minlength=n)
    keep = np.zeros(n, bool)
    for i in range(1, n):
        x, y, w, h, _a = stats[i]
        keep[i] = area[i] >= MIN_AREA_IN2 * dpi * dpi and area[i] <= FILL_MAX * w * h
    if not keep.any():
        return np.zeros(img.shape, bool)
    pieces = (keep[groups] & (thick > 0)).astype(np.uint8)
    # Bits of a letter cut off by print (inside an oval, between a heading's words) are too thin to survive
    # the opening: near the pieces, the watermark's own grey is watermark too.
    grey = int(np.median(img[pieces > 0]))
    near = cv2.dilate(pieces, np.ones((5 * k, 5 * k), np.uint8))
    pieces[(near > 0) & (cv2.inRange(img, grey - GREY_MATCH, grey + GREY_MATCH) > 0)] = 1
    # The opening took the strokes' grey edges (lighter than the band's middle): widen back over them.
    grown = cv2.dilate(pieces, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    return (grown > 0) & (img >= lo)


def strip_watermark(img: np.ndarray, dpi: float) -> tuple[np.ndarray, float]:
    """``img`` with its watermark painted paper, and the area removed (square inches; 0: ``img`` itself)."""
    mask = watermark_mask(img, dpi)
    area = float(mask.sum()) / (dpi * dpi)
    if area == 0:
        return img, 0.0
    out = img.copy()
    out[mask] = 255
    return out, area
