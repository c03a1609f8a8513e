"""Compiled image kernels: pure functions over numpy arrays (numba), each with a numpy twin.

The kernels import nothing else of ours. Public wrappers check shapes and
dtypes, allocate the output and call the private ``_*.py`` kernel; the slow
twins in `tabulate.kernels.reference` are the test oracle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._anchors import N_ANCHOR_OUT, match_anchors_kernel
from ._marks import mark_components_kernel, refine_mark_kernel
from ._new_ink import N_NEW_INK, new_ink_kernel
from ._skew import skew_sums_kernel
from ._spread import spread_runs_kernel
from ._targets import N_FEATURES, score_targets_kernel
from .points import FEATURES, F, TargetPoints, offsets_by_distance

__all__ = [
    "F",
    "FEATURES",
    "MarkMeasures",
    "MarkWindow",
    "TargetPoints",
    "mark_components",
    "match_anchors",
    "new_ink",
    "offsets_by_distance",
    "refine_mark",
    "score_targets",
    "skew_sums",
    "spread_runs",
    "warm",
]

assert len(FEATURES) == N_FEATURES


@dataclass(frozen=True)
class MarkWindow:
    """What the registration-mark search learns from one subsampled corner window (`mark_components`).

    ``threshold`` is Otsu's (ink is ``value <= threshold``); ``paper`` the mean
    grey level outside the opened ink; ``stats`` one row ``(x, y, width,
    height, area)`` per 8-connected component of the opened ink, in the raster
    order of each component's first pixel.
    """

    lowest: int
    highest: int
    threshold: int
    paper: float
    stats: np.ndarray


def mark_components(small: np.ndarray, open_size: int) -> MarkWindow:
    """Otsu threshold, ``open_size`` square opening and connected components of one corner window.

    The same results as OpenCV's ``minMaxLoc``, ``threshold(THRESH_BINARY_INV |
    THRESH_OTSU)``, ``morphologyEx(MORPH_OPEN)``, ``connectedComponentsWithStats``
    (8-connected) and ``mean(mask=not ink)`` in one compiled call
    (`tabulate.kernels._marks`); the twin is `reference.mark_components`.
    """
    if small.dtype != np.uint8 or small.ndim != 2 or small.size == 0:
        raise ValueError(f"window must be a non-empty 2-D uint8 array, got {small.dtype} with shape {small.shape}")
    if open_size < 1 or open_size % 2 == 0:
        raise ValueError(f"open_size must be odd and positive, got {open_size}")
    lo, hi, t, paper, stats = mark_components_kernel(np.ascontiguousarray(small), int(open_size))
    return MarkWindow(lo, hi, int(t), float(paper), stats)


@dataclass(frozen=True)
class MarkMeasures:
    """A mark candidate measured at full resolution (`refine_mark`).

    ``area``, ``sum_col`` and ``sum_row`` are the moments of the opened ink
    (``value <= threshold``) in the box; ``left``, ``top``, ``width``,
    ``height`` its bounding box (box pixels); ``ink`` the mean grey level of
    the mark's core (NaN if the core is empty); ``n25`` and ``n75`` how many
    box pixels are at least 25 % and 75 % of the way from ``paper`` to ``ink``.
    """

    area: int
    sum_col: int
    sum_row: int
    left: int
    top: int
    width: int
    height: int
    ink: float
    n25: int
    n75: int


def refine_mark(box: np.ndarray, threshold: int, open_size: int, core: np.ndarray, paper: float) -> MarkMeasures:
    """Measure a mark candidate at full resolution, in one compiled call.

    The same numbers as ``morphologyEx(box <= threshold, MORPH_OPEN)``, then
    ``cv2.moments(binaryImage=True)``, ``cv2.boundingRect``, ``core.mean()``
    and ``np.count_nonzero(box <= level)`` at the two levels; the twin is
    `reference.refine_mark`.
    """
    for name, a in (("box", box), ("core", core)):
        if a.dtype != np.uint8 or a.ndim != 2:
            raise ValueError(f"{name} must be a 2-D uint8 array, got {a.dtype} with shape {a.shape}")
    if open_size < 1 or open_size % 2 == 0:
        raise ValueError(f"open_size must be odd and positive, got {open_size}")
    out = refine_mark_kernel(
        np.ascontiguousarray(box), int(threshold), int(open_size), np.ascontiguousarray(core), float(paper)
    )
    m00, m10, m01, left, top, width, height, ink, n25, n75 = out
    return MarkMeasures(
        int(m00), int(m10), int(m01), int(left), int(top), int(width), int(height), float(ink), int(n25), int(n75)
    )


def score_targets(
    image: np.ndarray,
    affine: np.ndarray,
    points: TargetPoints,
    *,
    paper: float,
    ink: float,
    split: float,
    residue: float,
    offsets: np.ndarray,
    min_hits: int = 2,
    skip_cols: np.ndarray | None = None,
    area_margin: float = 0.0,
) -> np.ndarray:
    """Score every target of a page: fill score and features, one row per target.

    Parameters
    ----------
    image
        The page, ``uint8`` (rows, cols), C-contiguous.
    affine
        ``(2, 3)`` float64 map from page inches ``(x_in, y_in, 1)`` to image ``(col, row)``.
    points
        The page's sample points (`TargetPoints`).
    paper, ink
        The page's own paper and ink grey levels (``paper > ink``). Each target
        re-bases the paper level on the mean of the paper points beside its
        outline that are lighter than the page's split (uneven lighting), when
        at least a quarter of them are.
    split
        Where "dark" starts, as a fraction of the way from paper to ink.
    residue
        Where light residue (an erasure) starts, as a fraction from paper to ink (``< split``).
    offsets
        ``(K, 2)`` int64 local-search offsets (image col, row), nearest first
        (`offsets_by_distance`); the target takes the first offset whose outline
        match is best, so the printed outline is matched, never scored.
    min_hits
        Dark points that make a sector (or an arrow's column) count as inked.
    skip_cols
        Optional ``bool`` per image column: columns not to read (a scanner
        streak); their points count as paper, like points outside the image.
    area_margin
        Marking- and write-in-area points nearer than this (inches) to
        printed ink are not read (blur or a bitonal threshold widens print).

    Returns
    -------
    ndarray
        ``(T, len(FEATURES))`` float64; columns named by `FEATURES`.
    """
    if image.dtype != np.uint8 or image.ndim != 2:
        raise ValueError(f"image must be 2-D uint8, got {image.dtype} with shape {image.shape}")
    affine = np.ascontiguousarray(affine, dtype=np.float64)
    if affine.shape != (2, 3):
        raise ValueError(f"affine must be (2, 3), got {affine.shape}")
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if offsets.ndim != 2 or offsets.shape[1] != 2 or len(offsets) == 0:
        raise ValueError(f"offsets must be (K, 2) with K >= 1, got {offsets.shape}")
    if not paper > ink:
        raise ValueError(f"paper level {paper} must be lighter than ink level {ink}")
    if not 0.0 < residue < split < 1.0:
        raise ValueError(f"need 0 < residue ({residue}) < split ({split}) < 1")
    image = np.ascontiguousarray(image)
    if skip_cols is None:
        skip_cols = np.zeros(image.shape[1], np.bool_)
    skip_cols = np.ascontiguousarray(skip_cols, dtype=np.bool_)
    if skip_cols.shape != (image.shape[1],):
        raise ValueError(f"skip_cols must have one entry per image column ({image.shape[1]}), got {skip_cols.shape}")
    out = np.zeros((points.n_targets, N_FEATURES), dtype=np.float64)
    p = points
    score_targets_kernel(
        image,
        skip_cols,
        affine,
        offsets,
        float(paper),
        float(ink),
        float(split),
        float(residue),
        int(min_hits),
        int(p.n_sectors),
        float(area_margin),
        p.outline_xy,
        p.outline_w,
        p.outline_ptr,
        p.interior_xy,
        p.interior_col,
        p.interior_ncols,
        p.interior_ptr,
        p.outer_xy,
        p.outer_sector,
        p.outer_ptr,
        p.near_xy,
        p.near_sector,
        p.near_ptr,
        p.mark_xy,
        p.mark_cell,
        p.mark_dist,
        int(p.n_cells),
        p.mark_ptr,
        p.write_in_xy,
        p.write_in_dist,
        p.write_in_ptr,
        out,
    )
    return out


def warm() -> None:
    """Load every kernel's compiled code (numba's on-disk cache, or compile it once) before any page is read.

    Loading the cached machine code of the three kernels costs ~0.9 s of CPU
    the first time each is called in a process. `tabulate scan`'s forkserver
    calls this once, so the workers it forks inherit the loaded code instead
    of each paying for it on its first sheet (docs/perf.md, start-up).
    The arguments have the real calls' types, so the same compiled
    signatures are loaded.
    """
    win = np.full((8, 8), 255, np.uint8)
    mark_components(win, 3)
    refine_mark(win, 128, 5, win, 255.0)
    xy, f64 = np.zeros((0, 2)), np.zeros(0)
    i32, ptr = np.zeros(0, np.int32), np.zeros(1, np.int64)
    nothing = TargetPoints(
        xy, f64, ptr, xy, i32, i32, ptr, xy, i32, ptr, xy, i32, ptr, xy, i32, f64, ptr, xy, f64, ptr, 8, 4
    )
    score_targets(win, np.eye(2, 3), nothing, paper=255.0, ink=0.0, split=0.25, residue=0.08, offsets=np.zeros((1, 2)))
    match_anchors(win, np.eye(2), np.zeros((1, 2)), np.zeros((1, 3, 3), np.uint8), 1)
    match_anchors(win, np.eye(2), np.zeros((1, 2)), np.zeros((1, 3, 3), np.uint8), 1, climb=True)
    skew_sums(win)
    spread_runs(win, np.eye(2, 3), np.zeros((1, 2)), np.zeros(1, np.int64), np.zeros(1, np.int64), 128.0, 1, 1)


def skew_sums(image: np.ndarray) -> tuple[float, float]:
    """The sums a page's print skew is read from (`tabulate.templates.align.print_angle`), in one pass.

    Over the even rows and columns of ``image`` (``uint8``, or ``float32`` for a template's blank; at least 2 x 2): Scharr's gradient
    ``g`` (as ``cv2.Scharr``, border reflected) gives ``(sum |g|^4 cos 4 theta, sum |g|^4 sin 4 theta)``,
    theta the gradient's direction. `tabulate.kernels.reference.skew_sums` is the oracle.
    """
    if image.dtype not in (np.uint8, np.float32) or image.ndim != 2 or image.shape[0] < 2 or image.shape[1] < 2:
        raise ValueError(f"image must be 2-D uint8 or float32, at least 2 x 2, got {image.dtype} {image.shape}")
    c, s = skew_sums_kernel(np.ascontiguousarray(image))
    return float(c), float(s)


def spread_runs(
    image: np.ndarray,
    affine: np.ndarray,
    xy: np.ndarray,
    band: np.ndarray,
    runs: np.ndarray,
    threshold: float,
    n_runs: int,
    n_bands: int,
) -> tuple[np.ndarray, np.ndarray]:
    """How much of each band around a template's print the scan darkens, per run of the page, in one pass.

    Point ``i`` (``xy[i]`` page inches, ``affine`` page inches -> image px) lies in band ``band[i]``
    (``0..n_bands``) of run ``runs[i]`` (``0..n_runs - 1``); it is dark when the image pixel it falls
    on (truncated, clipped to the image) is below ``threshold``. Returns ``grown`` (``n_runs``,
    float64: each run's dark shares of bands ``1..n_bands``, summed) and ``filled`` (``n_runs``, bool:
    the run has any points). `tabulate.kernels.reference.spread_runs` is the oracle.
    """
    image = _grey(image, "image")
    xy = np.ascontiguousarray(xy, dtype=np.float64).reshape(-1, 2)
    band = np.ascontiguousarray(band, dtype=np.int64)
    runs = np.ascontiguousarray(runs, dtype=np.int64)
    if band.shape != (len(xy),) or runs.shape != (len(xy),):
        raise ValueError(f"band and runs must be ({len(xy)},), got {band.shape} and {runs.shape}")
    if len(xy) and not (band.min() >= 0 and band.max() <= n_bands and runs.min() >= 0 and runs.max() < n_runs):
        raise ValueError(f"bands must lie in 0..{n_bands} and runs in 0..{n_runs - 1}")
    grown, filled = np.zeros(n_runs), np.zeros(n_runs, np.bool_)
    spread_runs_kernel(
        image, _affine(affine, "affine"), xy, band, runs, float(threshold), n_runs, n_bands, grown, filled
    )
    return grown, filled


def _affine(a: np.ndarray, name: str) -> np.ndarray:
    a = np.ascontiguousarray(a, dtype=np.float64)
    if a.shape != (2, 3):
        raise ValueError(f"{name} must be (2, 3), got {a.shape}")
    return a


def _grey(a: np.ndarray, name: str) -> np.ndarray:
    if a.dtype != np.uint8 or a.ndim != 2:
        raise ValueError(f"{name} must be 2-D uint8, got {a.dtype} with shape {a.shape}")
    return np.ascontiguousarray(a)


def new_ink(
    image: np.ndarray,
    affine: np.ndarray,
    blank: np.ndarray,
    blank_affine: np.ndarray,
    xy: np.ndarray,
    ptr: np.ndarray,
    *,
    paper: float,
    ink: float,
    blank_paper: float,
    blank_ink: float,
    reach: int = 1,
) -> np.ndarray:
    """Ink on a scanned page beyond what its template's blank prints, area by area.

    Parameters
    ----------
    image, affine
        The scanned page (``uint8``) and its ``(2, 3)`` map page inches -> image (col, row).
    blank, blank_affine
        The template's blank page (``uint8``) and its map page inches -> blank (col, row)
        (for a blank scanned upright at ``dpi``: ``[[dpi, 0, 0], [0, dpi, 0]]``).
    xy, ptr
        Sample points (``(N, 2)`` float64 page inches) in compressed-sparse-row form: area ``a``
        owns rows ``ptr[a]:ptr[a + 1]`` (``ptr`` int64, length ``A + 1``).
    paper, ink, blank_paper, blank_ink
        Grey levels of each image's paper and print (``paper > ink``): darkness is 0 at the
        paper and 1 at the ink, clipped.
    reach
        Blank pixels each way a point's printed darkness is the darkest of (``>= 0``): the print
        widened by the registration's and the scan's blur slack, so a printed outline seen
        a pixel off is still discounted.

    Returns
    -------
    ndarray
        ``(A, 2)`` float64: per area, the mean of ``max(0, page darkness - printed darkness)``
        over its points, and the share of its points where that is at least 0.5 (0 for an
        area without points). Points off the image read as paper, off the blank as unprinted.
    """
    image, blank = _grey(image, "image"), _grey(blank, "blank")
    affine, blank_affine = _affine(affine, "affine"), _affine(blank_affine, "blank_affine")
    xy = np.ascontiguousarray(xy, dtype=np.float64)
    ptr = np.ascontiguousarray(ptr, dtype=np.int64)
    if xy.ndim != 2 or xy.shape[1] != 2:
        raise ValueError(f"xy must be (N, 2), got {xy.shape}")
    if ptr.ndim != 1 or len(ptr) < 1 or ptr[0] != 0 or ptr[-1] != len(xy) or np.any(np.diff(ptr) < 0):
        raise ValueError(f"ptr must rise from 0 to len(xy) = {len(xy)}")
    if not (paper > ink and blank_paper > blank_ink):
        raise ValueError(f"paper levels ({paper}, {blank_paper}) must be lighter than ink ({ink}, {blank_ink})")
    if reach < 0:
        raise ValueError(f"reach must be >= 0, got {reach}")
    out = np.zeros((len(ptr) - 1, N_NEW_INK), dtype=np.float64)
    new_ink_kernel(
        image,
        affine,
        float(paper),
        float(ink),
        blank,
        blank_affine,
        float(blank_paper),
        float(blank_ink),
        int(reach),
        xy,
        ptr,
        out,
    )
    return out


def match_anchors(
    image: np.ndarray, lin: np.ndarray, shifts: np.ndarray, patches: np.ndarray, m: int, *, climb: bool = False
) -> np.ndarray:
    """Find each of ``N`` small patches within ``m`` pixels of where a map puts it, in one call.

    Parameters
    ----------
    image
        The page (``uint8``).
    lin, shifts
        Patch ``i``'s search window (``P + 2 m`` pixels a side) is the image sampled at
        ``lin @ (x, y) + shifts[i]`` for window pixel ``(x, y)`` (bilinear; 255 off the image):
        ``lin`` is ``(2, 2)``, ``shifts`` ``(N, 2)`` float64.
    patches
        ``(N, P, P)`` ``uint8``, ``P`` odd: the patches as printed.
    m
        Search radius in window pixels (``>= 1``).
    climb
        Instead of every shift, climb from the window's centre: each step to the best shift of the
        3 x 3 around the current one, until that is the current one. For a search an earlier one
        has placed within a pixel or two: the same peak for a single-peaked correlation, at a
        fraction of the work.

    Returns
    -------
    ndarray
        ``(N, 3)`` float64: the patch centre's ``x, y`` in its window at the best normalised
        cross-correlation (OpenCV's ``TM_CCOEFF_NORMED``; the first maximum in raster order, or
        where the climb stops),
        refined by a parabola through its neighbours, and that correlation (-1..1; 0 where the
        window is flat). The same as ``cv2.warpAffine`` + ``cv2.matchTemplate`` per patch
        (`tabulate.kernels.reference.match_anchors` is the oracle).
    """
    image = _grey(image, "image")
    lin = np.ascontiguousarray(lin, dtype=np.float64)
    shifts = np.ascontiguousarray(shifts, dtype=np.float64)
    if lin.shape != (2, 2):
        raise ValueError(f"lin must be (2, 2), got {lin.shape}")
    if (
        patches.dtype != np.uint8
        or patches.ndim != 3
        or patches.shape[1] != patches.shape[2]
        or patches.shape[1] % 2 != 1
    ):
        raise ValueError(f"patches must be (N, P, P) uint8 with P odd, got {patches.dtype} {patches.shape}")
    if shifts.shape != (len(patches), 2):
        raise ValueError(f"shifts must be ({len(patches)}, 2), got {shifts.shape}")
    if m < 1:
        raise ValueError(f"m must be >= 1, got {m}")
    out = np.zeros((len(patches), N_ANCHOR_OUT), dtype=np.float64)
    match_anchors_kernel(image, lin, shifts, np.ascontiguousarray(patches), int(m), bool(climb), out)
    return out
