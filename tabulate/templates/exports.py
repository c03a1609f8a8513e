"""How vendors' scanners export a page: where the paper is in an image that is not the paper's shape.

A template page is fitted at the scan's resolution (the coarse fit does not
search scale), so the resolution must be known before the fit. Our own
reader takes it from the image's size and the paper's (`image_dpi`), which
holds while the image is the page (with a margin). Vendors' exports are not
always:

* **A strip appended below the page**: Dominion's images carry the machine's
  interpretation ("AuditMark") as text under the ballot, in the same image.
* **A scan area longer than the paper**: a scanner set to 8.5 x 14 in (or to
  its longest ballot) scanning letter pages leaves black or white beyond the
  paper's bottom edge.
* **Front and back side by side** in one image.

Scanners write each line across the feed at once, so the image's *width*
is the feed's width: the paper fills it (with a margin) whatever follows in
the rows below. An image longer than the paper's shape is read by its
width. An image that is exactly two pages side by side is refused, with
what the clerk should do: a reading of half a sheet could take the other
half for the back and lose nothing only by luck. ``tabulate templates
split-sides`` (`split_sides`) writes each half as an image of its own, which
then pair and read as any sheet's two images do.
"""

from __future__ import annotations

import math

import numpy as np

from ..detect.errors import ReadError
from ..detect.register import DPI_SNAP_DOWN, DPI_SNAP_UP, STANDARD_DPI, image_dpi

#: An image whose length over width is within this share of the paper's (either way up) is the page with a
#: margin (a black background 0.3 in all round changes a letter page's by 1.5 %): `image_dpi` as for our ballots.
SHAPE_TOLERANCE = 0.04
#: Two pages side by side: both of the image's sides within this share of two pages' at one resolution.
SIDE_BY_SIDE_TOLERANCE = 0.03


def _snap(raw: float) -> float:
    """The largest standard scanner resolution a width estimate allows (a margin makes it high), as `image_dpi`."""
    fits = [d for d in STANDARD_DPI if raw / DPI_SNAP_DOWN <= d <= raw * DPI_SNAP_UP]
    return max(fits) if fits else raw


def _side_by_side(rows: int, cols: int, w_in: float, h_in: float) -> bool:
    """Whether the image is two upright pages side by side (front and back): both sides agree on one resolution."""
    by_width, by_height = cols / (2 * w_in), rows / h_in
    return abs(by_width / by_height - 1) <= SIDE_BY_SIDE_TOLERANCE


def page_dpi(shape: tuple[int, int], w_in: float, h_in: float) -> tuple[float, bool]:
    """(DPI, turned a quarter): the scan's resolution, for an image that holds the page with whatever a
    vendor's export adds below it.

    Raises
    ------
    ReadError
        ``two_pages_in_image`` for front and back side by side in one image.
    """
    rows, cols = shape
    page, across = h_in / w_in, w_in / h_in  # the image's length over width, upright and turned a quarter
    ratio = rows / cols
    if abs(ratio / page - 1) <= SHAPE_TOLERANCE or abs(ratio / across - 1) <= SHAPE_TOLERANCE:
        return image_dpi(shape, w_in, h_in)
    if _side_by_side(rows, cols, w_in, h_in):
        raise ReadError(
            "two_pages_in_image",
            f"the image ({cols} x {rows} px) holds two {w_in:g} x {h_in:g} in pages side by side: split the "
            "images in two with `tabulate templates split-sides` (or set the scanner to write each side as an "
            "image of its own) and scan the halves",
        )
    if ratio > page:  # longer than an upright page: the page across the image's width, more below it
        return _snap(cols / w_in), False
    if ratio > across:  # a page fed sideways, something below it
        return _snap(cols / h_in), True
    return image_dpi(shape, w_in, h_in)  # wider than the page: as our own reader takes it


def split_sides(image: np.ndarray, papers: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray] | None:
    """The left and right halves of an image holding two upright pages of one of ``papers`` side by side
    (front and back, as some scanners export a sheet), or None when it is not such an image.

    The halves are cut at the middle column: a scanner writing both sides into one image gives each the
    same width. Each half is then an ordinary page image: its registration finds the paper in it, and a
    half that is not a page is refused by the reader as any image would be (never read as the other)."""
    rows, cols = image.shape
    if not any(_side_by_side(rows, cols, w, h) for w, h in papers):
        return None
    mid = cols // 2
    return np.ascontiguousarray(image[:, :mid]), np.ascontiguousarray(image[:, mid:])


def paper_of(shape: tuple[int, int], papers: list[tuple[float, float]]) -> tuple[float, float]:
    """The paper (of a set's ``papers``, shortest first) whose shape the image has, either way up; the shortest
    when none has (an image longer than its page is then read by its width, `page_dpi`).

    A set may mix paper lengths by style (letter for short styles, legal or 17 in for long ones). Taken as
    the set's first page's paper, a letter page read with a legal set's paper looked like a page fed
    sideways with something below it, got a resolution 21 % low, and was refused (`registration_residual`)."""
    rows, cols = shape
    ratio = rows / cols
    for w, h in papers:
        if abs(ratio / (h / w) - 1) <= SHAPE_TOLERANCE or abs(ratio / (w / h) - 1) <= SHAPE_TOLERANCE:
            return w, h
    return papers[0]


#: Image rows beyond the placed paper (inches) past which `paper_rows` trims them.
BEYOND_IN = 0.25


def paper_rows(shape: tuple[int, int], affine: np.ndarray, w_in: float, h_in: float, dpi: float) -> tuple[int, int]:
    """The image rows the registered paper covers (with 0.05 in to spare), or every row when the paper fills
    the image: the scanner-streak bands are the paper's first and last rows, not an appended strip's.

    A dust streak on the glass draws down the paper, never down an "AuditMark" strip the export appends:
    measured in the strip, no streak was found, and a streak through a name read as a mark beside it."""
    rows = shape[0]
    ys = np.array([[0.0, 0.0, 1.0], [w_in, 0.0, 1.0], [0.0, h_in, 1.0], [w_in, h_in, 1.0]]) @ affine[1]
    pad = 0.05 * dpi
    lo, hi = max(0, math.floor(ys.min() - pad)), min(rows, math.ceil(ys.max() + pad))
    if lo <= BEYOND_IN * dpi and hi >= rows - BEYOND_IN * dpi:
        return 0, rows
    return lo, hi
