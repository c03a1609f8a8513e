"""A security tint behind a blank's print (thin wavy "pantograph" lines at a mid grey), left out of the blank.

Some counties' ballot stock carries a fine pattern of pale lines behind the contests, against copying. On
a blank page rendered from the PDF (or scanned at grey) the lines are one grey level, and where they are
darker than the Otsu split between paper and print the import took them for print: every oval's outline
joined the lines round it, no target was found, and the import stopped ("fits style 1 page 2 and style 2
page 2 ... equally": a page of no contests). A bitonal scanner drops such lines altogether, and on a grey
scan they are as faint as the paper's grain next to a voter's pen.

Told from the ballot's own print by three things together: one grey level (`LEVEL_SLACK`) holds more of
the page than `MIN_SHARE`; it is darker than the Otsu split, so it would be taken for print; and it is
thin: an opening `OPEN_PX` wide keeps less than `MAX_KEPT` of it (a shaded band or a heading bar is solid
and stays, as do a watermark's thick letters, `watermark.py`). Those pixels are painted paper. A blank
without such a tint is returned as it is (the same object), so every other set keeps its bytes.
"""

from __future__ import annotations

import cv2
import numpy as np

#: The tint's level is looked for between these greys (print is darker, paper lighter).
GREY_RANGE = (60, 235)
#: Pixels within this many grey levels of the tint's level are the tint.
LEVEL_SLACK = 12
#: The tint covers at least this share of the page.
MIN_SHARE = 0.01
#: An opening this many pixels square keeps less than `MAX_KEPT` of a tint's thin lines.
OPEN_PX = 3
MAX_KEPT = 0.2


def strip_security_tint(img: np.ndarray) -> tuple[np.ndarray, float]:
    """``img`` (a grey blank) with a thin security tint painted paper, and the share of the page painted
    (0.0: ``img`` itself, untouched)."""
    lo, hi = GREY_RANGE
    hist = np.bincount(img.ravel(), minlength=256)
    level = lo + int(np.argmax(hist[lo : hi + 1]))
    if hist[level] < MIN_SHARE * img.size:
        return img, 0.0
    split, _ink = cv2.threshold(img, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    if level + LEVEL_SLACK >= split:  # lighter than the split: not taken for print, nothing to mend
        return img, 0.0
    tint = cv2.inRange(img, level - LEVEL_SLACK, level + LEVEL_SLACK)
    kept = cv2.morphologyEx(tint, cv2.MORPH_OPEN, np.ones((OPEN_PX, OPEN_PX), np.uint8))
    if np.count_nonzero(kept) >= MAX_KEPT * np.count_nonzero(tint):
        return img, 0.0  # solid: a shaded band or bar the scans show too
    out = img.copy()
    out[tint > 0] = 255
    return out, float(np.count_nonzero(tint)) / img.size
