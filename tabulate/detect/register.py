"""Registration: find the four corner marks and fit the page-inch to image-pixel affine map.

The marks are looked for only in the four corner windows of the image
(`CORNER_WINDOW_IN` square, see `tabulate.election.geometry`), never over the
whole page. The corner holding the large mark is the page's top-left, which
recovers 0/90/180/270 degree rotation (a sheet fed upside down included).
The fit is least squares over the four centroids; its RMS residual is
reported and a page whose residual, scale or skew is out of range is
rejected with the reason. A missing mark is never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..election.geometry import CORNER_WINDOW_IN, MARK_BIG_IN, MARK_SMALL_IN, registration_marks
from ..kernels import mark_components, refine_mark
from .decode import grey
from .errors import ReadError

#: Image corners, clockwise from the top-left.
IMAGE_CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")
#: Page mark roles in the same clockwise order.
PAGE_ROLES = ("top_left", "top_right", "bottom_right", "bottom_left")
#: A window darker than its paper by less than this (grey levels) holds no mark.
MIN_CONTRAST = 60
#: Limits a page must meet (documented in docs/detect.md).
MAX_RESIDUAL_IN = 0.02
SCALE_RANGE = (0.95, 1.05)
MAX_SKEW_DEG = 5.0
MAX_SHEAR_DEG = 1.5


@dataclass(frozen=True)
class Registration:
    """Where the page sits in the image.

    ``affine`` maps page inches ``(x_in, y_in, 1)`` to image ``(col, row)``.
    ``rotation`` is 0, 90, 180 or 270 (degrees clockwise the page is turned in
    the image); ``skew_deg`` the small angle beyond it. ``scale`` is the
    printed page's size relative to the paper the image shows (1.0 = full
    size), per axis. ``dpi`` is estimated from the image and paper sizes.
    ``paper`` and ``ink`` are the page's own grey levels, from the marks;
    ``spread_px`` how far print reaches past its edges (blur, a bitonal
    threshold), measured on the marks too.
    """

    affine: np.ndarray
    rotation: int
    skew_deg: float
    scale: tuple[float, float]
    dpi: float
    residual_in: float
    paper: float
    ink: float
    spread_px: float
    marks_px: tuple[tuple[float, float], ...]

    @property
    def px_per_in(self) -> float:
        return float(self.dpi * (self.scale[0] + self.scale[1]) / 2)

    def evidence(self) -> dict:
        """The fields a `PageReading` keeps as evidence of where the page sat (native and template pages alike)."""
        return dict(
            dpi=self.dpi,
            rotation=self.rotation,
            skew_deg=self.skew_deg,
            scale=self.scale,
            residual_in=self.residual_in,
            transform=tuple(float(v) for v in self.affine.ravel()),
            paper=self.paper,
            ink=self.ink,
        )


@dataclass(frozen=True)
class _Mark:
    col: float
    row: float
    side_in: float
    ink: float
    paper: float
    edge_px: float = 0.0  # width of the mark's edge between 25 % and 75 % darkness
    side_px: float = 0.0  # side measured at the mid-level threshold (uncut marks; 0 if cut)


#: Scanner resolutions an image-size estimate snaps to: the largest one at most `DPI_SNAP_UP`
#: above the estimate and at least ``estimate / DPI_SNAP_DOWN`` (an image may show a margin
#: round the paper, never much less than the paper).
STANDARD_DPI = (150.0, 200.0, 240.0, 300.0, 400.0, 600.0)
DPI_SNAP_UP = 1.02
DPI_SNAP_DOWN = 1.15
#: The corner windows are searched this much larger than ``CORNER_WINDOW_IN`` (skewed pages
#: scanned with a margin put their marks further in); printed text and lines there fail the
#: solid-square test.
WINDOW_GROWTH = 1.4


def image_dpi(shape: tuple[int, int], width_in: float, height_in: float) -> tuple[float, bool]:
    """(DPI, turned): the resolution implied by the image and paper sizes, and whether the
    image is turned a quarter (landscape image of a portrait page, or the reverse).

    The estimate snaps down to a standard scanner resolution (see
    `DPI_SNAP_DOWN`): a page skewed by 5 degrees and scanned with a margin
    makes the image up to 11 % larger than the paper, and must not read as
    an enlarged copy.
    """
    rows, cols = shape
    turned = (cols > rows) != (width_in > height_in)
    w_in, h_in = (height_in, width_in) if turned else (width_in, height_in)
    raw = (cols / w_in + rows / h_in) / 2
    fits = [d for d in STANDARD_DPI if raw / DPI_SNAP_DOWN <= d <= raw * DPI_SNAP_UP]
    return (max(fits) if fits else raw), turned


def _middle(values: list[float]) -> float:
    """The median of a few numbers, without numpy's overhead."""
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def _candidate(stat, edges: tuple[bool, bool, bool, bool], shape, side_range) -> tuple[float, float] | None:
    """(side, error) of a component that can be a mark, else None.

    ``edges`` says which window sides (left, top, right, bottom) are the
    image's own edges: a mark cut by one of those (the scanner clipped the
    page's corner) is kept, its side taken from the uncut direction; a mark
    cut by the window's inner sides is not.
    """
    x, y, bw, bh, area = stat
    h, w = shape
    touch = (x == 0, y == 0, x + bw >= w, y + bh >= h)
    if any(t and not e for t, e in zip(touch, edges)):
        return None
    cut_x, cut_y = touch[0] or touch[2], touch[1] or touch[3]
    if cut_x and cut_y:
        return None
    side = bh if cut_x else bw if cut_y else math.sqrt(area)
    if not cut_x and not cut_y and max(bw, bh) > 1.35 * min(bw, bh):
        return None
    if area < 0.7 * bw * bh or ((cut_x or cut_y) and min(bw, bh) < 0.4 * side):
        return None  # not solid, or too little of it left to place it
    lo, hi = side_range
    if not lo * 0.7 <= side <= hi * 1.3:
        return None
    return side, min(abs(math.log(side / lo)), abs(math.log(side / hi)))


@lru_cache(maxsize=64)
def _nearest_index(src: int, dst: int, step: int) -> np.ndarray | None:
    """The source index of each of ``dst`` samples as OpenCV's ``INTER_NEAREST`` picks them; None if every ``step``-th.

    OpenCV's ``resizeNN``: ``min(floor(x * (1 / (dst / src))), src - 1)``, in float64.
    """
    idx = np.minimum(np.floor(np.arange(dst) * (1.0 / (dst / src))).astype(np.int64), src - 1)
    return None if np.array_equal(idx, np.arange(dst) * step) else idx


def _subsample(window: np.ndarray, step: int) -> np.ndarray:
    """``cv2.resize(window, (w // step, h // step), interpolation=INTER_NEAREST)``, pixel for pixel.

    A strided view when the picks are every ``step``-th pixel (always, for the
    usual window sizes), else the same picks by index: no OpenCV call, which
    cost a corner window more than picking the pixels.
    """
    h, w = window.shape
    dh, dw = h // step, w // step
    rows, cols = _nearest_index(h, dh, step), _nearest_index(w, dw, step)
    if rows is None and cols is None:
        return window[: dh * step : step, : dw * step : step]
    r = np.arange(dh) * step if rows is None else rows
    c = np.arange(dw) * step if cols is None else cols
    return window[np.ix_(r, c)]


def _find_mark(
    window: np.ndarray, dpi: float, edges: tuple[bool, bool, bool, bool], levels: np.ndarray | None = None
) -> _Mark | None:
    """The solid square in a corner window, or None.

    Components are found on a subsampled copy (3x at 200 DPI), after an
    opening that removes scanner streaks and specks; the centre is refined at
    full resolution. A mark cut by the image's edge is placed from its uncut
    sides (see `_candidate`). ``levels``: the window is a bitonal page's bytes
    (`tabulate.detect.decode.BitonalPage`); the pixels read are converted to grey.
    """
    step = max(1, int(round(dpi / 70)))
    small = grey(_subsample(window, step), levels)
    # Otsu, the opening that removes scanner streaks and specks, the components and the paper level
    # in one compiled call (`tabulate.kernels.mark_components`: OpenCV's arithmetic, one call not five).
    found = mark_components(small, 3 if step >= 2 else 5)
    if found.highest - found.lowest < MIN_CONTRAST:
        return None
    t = found.threshold
    sides = (MARK_SMALL_IN * dpi / step, MARK_BIG_IN * dpi / step)
    best, best_err = None, np.inf
    table = found.stats.tolist()  # plain ints: numpy scalars cost more than the test itself
    for j, stat in enumerate(table):
        c = _candidate(stat, edges, small.shape, sides)
        if c is not None and c[1] < best_err:
            best, best_err = j, c[1]
    if best is None:
        return None
    x, y, bw, bh, _area = (v * step for v in table[best])
    pad = 2 * step
    r0, c0 = max(0, y - pad), max(0, x - pad)
    box = grey(window[r0 : y + bh + pad, c0 : x + bw + pad], levels)
    core = grey(window[y + bh // 4 : y + bh - bh // 4, x + bw // 4 : x + bw - bw // 4], levels)
    paper = found.paper
    m = refine_mark(box, t, 5, core, paper)
    if m.area == 0:
        return None
    col, row = m.sum_col / m.area + c0, m.sum_row / m.area + r0
    top, left, bottom, right = m.top + r0, m.left + c0, m.top + r0 + m.height - 1, m.left + c0 + m.width - 1
    wid, hgt = m.width, m.height
    wh, ww = window.shape
    cut = True
    if (left == 0 and edges[0]) or (right == ww - 1 and edges[2]):  # cut left/right: side from the height
        col = right + 0.5 - hgt / 2 if left == 0 else left - 0.5 + hgt / 2
        side = hgt
    elif (top == 0 and edges[1]) or (bottom == wh - 1 and edges[3]):
        row = bottom + 0.5 - wid / 2 if top == 0 else top - 0.5 + wid / 2
        side = wid
    else:
        side, cut = math.sqrt(m.area), False
    ink = m.ink
    # Blur spreads the edge: the band between 25 % and 75 % darkness is 1.35 sigma wide all round.
    edge = 0.0 if cut else max(0.0, (m.n25 - m.n75) / (4.0 * side))
    return _Mark(float(col), float(row), side / dpi, ink, paper, edge, 0.0 if cut else side)


def _spread(marks: list[_Mark], sx: float, sy: float) -> float:
    """How far (px) printed ink reaches past its true edge at the reader's split: blur (a quarter-dark
    edge lies 0.67 sigma out, sigma = edge width / 1.35) plus any growth at mid level (a bitonal
    scanner's threshold fattens or thins print), from the uncut marks."""
    px_per_in = (sx + sy) / 2
    vals = []
    for m, size in zip(marks, (MARK_BIG_IN, MARK_SMALL_IN, MARK_SMALL_IN, MARK_SMALL_IN)):
        if m.side_px:
            vals.append(0.67 * m.edge_px / 1.35 + (m.side_px - size * px_per_in) / 2)
    return float(min(4.0, max(0.0, _middle(vals)))) if vals else 0.0


@lru_cache(maxsize=8)
def _projector(page_xy: tuple[tuple[float, float], ...]) -> tuple[tuple[float, ...], ...]:
    """The least-squares projector ``(A^T A)^-1 A^T`` (3 x n) of the marks' page positions, ``A = [x y 1]``.

    The marks sit where the paper size puts them, so the normal equations'
    matrix is the same for every page: solved once per paper size, not per page.
    """
    a = np.column_stack([np.asarray(page_xy, dtype=np.float64), np.ones(len(page_xy))])
    return tuple(tuple(row) for row in np.linalg.solve(a.T @ a, a.T).tolist())


def _fit(page_xy, image_xy) -> tuple[np.ndarray, float]:
    """Least-squares affine page -> image; returns (2x3, RMS residual in px).

    ``page_xy`` and ``image_xy``: (x, y) and (col, row) pairs of the same
    marks. Four points and six numbers in plain floats: numpy's per-call
    overhead on 3 x 3 normal equations was a third of a bitonal page's
    registration. The same least-squares solution as solving the normal
    equations, to within rounding (~1e-13 px).
    """
    pts = tuple((float(x), float(y)) for x, y in page_xy)
    (p0, p1, p2) = _projector(pts)
    us = [float(c) for c, _ in image_xy]
    vs = [float(r) for _, r in image_xy]
    a, b, c = (sum(w * u for w, u in zip(row, us)) for row in (p0, p1, p2))
    d, e, f = (sum(w * v for w, v in zip(row, vs)) for row in (p0, p1, p2))
    sq = 0.0
    for (x, y), u, v in zip(pts, us, vs):
        sq += (a * x + b * y + c - u) ** 2 + (d * x + e * y + f - v) ** 2
    return np.array([[a, b, c], [d, e, f]], dtype=np.float64), math.sqrt(sq / len(pts))


def register_page(
    image: np.ndarray, width_in: float, height_in: float, *, levels: np.ndarray | None = None
) -> Registration:
    """Find the registration marks of one page image and fit its transform.

    ``levels``: ``image`` is a bitonal page's bytes and ``levels`` their grey levels
    (`tabulate.detect.decode.BitonalPage`); only the corner windows' pixels read are converted.

    Raises
    ------
    ReadError
        ``no_registration_marks``, ``registration_marks_missing`` (naming the
        marks), ``orientation_unknown``, ``registration_residual``,
        ``scale_out_of_range`` or ``skew_out_of_range``.
    """
    dpi, turned = image_dpi(image.shape, width_in, height_in)
    rows, cols = image.shape
    win = max(8, min(int(round(CORNER_WINDOW_IN * WINDOW_GROWTH * dpi)), rows // 3, cols // 3))
    origins = ((0, 0), (0, cols - win), (rows - win, cols - win), (rows - win, 0))
    found: list[_Mark | None] = []
    # Which window sides (left, top, right, bottom) are the image's edges, per corner.
    edges = (
        (True, True, False, False),
        (False, True, True, False),
        (False, False, True, True),
        (True, False, False, True),
    )
    for (r0, c0), e in zip(origins, edges):
        m = _find_mark(image[r0 : r0 + win, c0 : c0 + win], dpi, e, levels)
        found.append(
            None if m is None else _Mark(m.col + c0, m.row + r0, m.side_in, m.ink, m.paper, m.edge_px, m.side_px)
        )
    split = math.sqrt(MARK_BIG_IN * MARK_SMALL_IN)
    bigs = [i for i, m in enumerate(found) if m is not None and m.side_in >= split]
    missing = [i for i, m in enumerate(found) if m is None]
    if len(missing) == 4:
        raise ReadError(
            "no_registration_marks",
            "no registration marks found in any corner of the image "
            "(a blank sheet, the wrong side of the paper, or not a ballot)",
        )
    if missing:
        if len(bigs) == 1:
            names = [
                f"{PAGE_ROLES[(i - bigs[0]) % 4].replace('_', '-')} (image {IMAGE_CORNERS[i]} corner)" for i in missing
            ]
        else:
            names = [f"image {IMAGE_CORNERS[i]} corner" for i in missing]
        raise ReadError(
            "registration_marks_missing",
            f"registration mark{'s' if len(missing) > 1 else ''} not found: " + ", ".join(names),
        )
    if len(bigs) != 1:
        raise ReadError(
            "orientation_unknown",
            f"found {len(bigs)} large registration marks, expected exactly 1 "
            "(the page's top-left); cannot tell which way up the page is",
        )
    i0 = bigs[0]
    if (i0 % 2 == 1) != turned:
        raise ReadError(
            "orientation_unknown",
            f"the large mark is in the image's {IMAGE_CORNERS[i0]} corner, "
            "which does not fit the image's shape for this paper size",
        )
    marks = {m.role: m for m in registration_marks(width_in, height_in)}
    page_xy = tuple((float(marks[PAGE_ROLES[j]].x), float(marks[PAGE_ROLES[j]].y)) for j in range(4))
    image_marks = [found[(i0 + j) % 4] for j in range(4)]
    image_xy = [(float(m.col), float(m.row)) for m in image_marks]
    affine, rms_px = _fit(page_xy, image_xy)
    return _check(affine, rms_px, dpi, i0, image_marks)


def _check(affine: np.ndarray, rms_px: float, dpi: float, i0: int, image_marks: list[_Mark]) -> Registration:
    sx = math.hypot(affine[0, 0], affine[1, 0])
    sy = math.hypot(affine[0, 1], affine[1, 1])
    rotation = 90 * i0
    angle = math.degrees(math.atan2(affine[1, 0], affine[0, 0]))
    skew = (angle - rotation + 180.0) % 360.0 - 180.0
    axes = math.degrees(math.atan2(affine[1, 1], affine[0, 1])) - angle
    shear = (axes + 180.0) % 360.0 - 180.0 - 90.0  # a mirrored image gives -180
    residual_in = rms_px / ((sx + sy) / 2)
    if residual_in > MAX_RESIDUAL_IN or abs(shear) > MAX_SHEAR_DEG:
        raise ReadError(
            "registration_residual",
            f"the four marks do not fit one page transform: RMS residual "
            f"{residual_in:.3f} in, shear {shear:.1f} deg (limits {MAX_RESIDUAL_IN} in, "
            f"{MAX_SHEAR_DEG} deg)",
        )
    scale = (sx / dpi, sy / dpi)
    lo, hi = SCALE_RANGE
    if not all(lo <= s <= hi for s in scale):
        raise ReadError(
            "scale_out_of_range",
            f"the printed page is {scale[0]:.1%} x {scale[1]:.1%} of the "
            f"paper's size in the image (allowed {lo:.0%}-{hi:.0%}): a reduced or enlarged "
            "photocopy, or the wrong paper size",
        )
    if abs(skew) > MAX_SKEW_DEG:
        raise ReadError("skew_out_of_range", f"the page is skewed {skew:.1f} deg (limit {MAX_SKEW_DEG:g} deg)")
    paper = _middle([m.paper for m in image_marks])
    ink = _middle([m.ink for m in image_marks])
    return Registration(
        affine,
        rotation,
        skew,
        scale,
        dpi,
        residual_in,
        paper,
        ink,
        _spread(image_marks, sx, sy),
        tuple((m.col, m.row) for m in image_marks),
    )
