"""The scanner's background round the paper, painted over with paper before the page is registered.

A scanner whose scan area is larger than the page images its own background
(most often black) round the paper, and a page fed off-centre shows it along
one side with the other side cut. Registration compares the page with the
blank, which is paper to its edges: a black frame is the strongest edge on
the image and pulls the coarse fit and the anchors off the print. The
background is what is dark, joined to the image's edge: it is set to the
paper's grey. A page with no dark frame (a scan cut to the paper, a white
background) is returned as it is, at the cost of one look at its edges.
"""

from __future__ import annotations

import cv2
import numpy as np

#: The image's outermost pixels looked at (each side) for a dark frame.
FRAME_PX = 2
#: A frame at least this share dark has a background to paint over.
FRAME_DARK = 0.25
#: A dark piece joined to the edge and at least this share of the image is background (a printed mark cut by
#: the edge is smaller; painting it over too would cost an anchor, not a target: targets keep off the edges).
MIN_AREA_SHARE = 0.002


def paint_background(image: np.ndarray) -> np.ndarray:
    """``image`` with the dark background joined to its edges set to the paper's grey (see the module)."""
    f = FRAME_PX
    sample = image[::32, ::32].ravel()  # the paper's grey: 1 pixel in 1,024 is plenty, and costs nothing
    paper = float(np.partition(sample, int(0.75 * (len(sample) - 1)))[int(0.75 * (len(sample) - 1))])
    dark_at = paper / 2  # halfway to black: a grey scanner lid is no background to fight
    if _frame_dark(image, f, dark_at) < FRAME_DARK * 2 * f * (image.shape[0] + image.shape[1]):
        return image
    dark = (image < dark_at).astype(np.uint8)
    n, labels, stats, _c = cv2.connectedComponentsWithStats(dark, 4, cv2.CV_32S)  # type: ignore[call-overload]
    edge = np.unique(
        np.concatenate([labels[:f].ravel(), labels[-f:].ravel(), labels[:, :f].ravel(), labels[:, -f:].ravel()])
    )
    big = [int(k) for k in edge if k and stats[k, cv2.CC_STAT_AREA] >= MIN_AREA_SHARE * image.size]
    if not big:
        return image
    out = image.copy()
    out[np.isin(labels, big)] = int(paper)
    return out


def _frame_dark(image: np.ndarray, f: int, dark_at: float) -> int:
    """How many pixels of the image's outermost ``f`` rows and columns each side are darker than ``dark_at``
    (the corners twice, as the strips are taken): counted on views, not on a copy of the strips."""
    # A strip of two columns is one pixel pair in each of thousands of rows: the copy a ravel makes was
    # most of this check's cost (0.1 ms of 0.23 on a 300 DPI page).
    strips = (image[:f], image[-f:], image[:, :f], image[:, -f:])
    return sum(int(np.count_nonzero(s < dark_at)) for s in strips)
