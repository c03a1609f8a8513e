"""Wrappers of the kernels that fit a template-set page: anchors, print skew, print spread, new ink.

Each checks shapes and dtypes, allocates the output and calls its compiled
kernel; the numpy twins in `tabulate.kernels.reference` are the oracle.
"""

from __future__ import annotations

import numpy as np

from ._anchors import N_ANCHOR_OUT, match_anchors_kernel
from ._fit import affine_fit_kernel, residuals_kernel, trim_refit_kernel
from ._new_ink import N_NEW_INK, new_ink_kernel
from ._skew import skew_sums_kernel
from ._spread import spread_runs_kernel


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


def _points(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.ascontiguousarray(p, dtype=np.float64)
    q = np.ascontiguousarray(q, dtype=np.float64)
    if p.ndim != 2 or p.shape[1] != 2 or q.shape != p.shape or len(p) < 3:
        raise ValueError(f"p and q must be the same (N, 2), N >= 3, got {p.shape} and {q.shape}")
    return p, q


def affine_fit(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The least-squares affine map ``p`` -> ``q`` (``(N, 2)`` float64 each, N >= 3) as ``(2, 3)``,
    and each point's residual (``(N,)``, in ``q``'s units). `tabulate.kernels.reference.affine_fit`
    is the oracle (the same to rounding)."""
    p, q = _points(p, q)
    fit = np.empty((2, 3))
    affine_fit_kernel(p, q, np.ones(len(p), np.bool_), fit)
    res = np.empty(len(p))
    residuals_kernel(p, q, fit, res)
    return fit, res


def trim_refit(
    p: np.ndarray, q: np.ndarray, start: np.ndarray, floor: float, min_keep: int
) -> tuple[np.ndarray, np.ndarray]:
    """The points of ``p`` -> ``q`` within ``max(3 x median residual, floor)`` of the map ``start``
    (``(2, 3)``), refitted by least squares (every point when fewer than ``min_keep`` are kept): the
    fit and the kept points' residuals, in their order. `tabulate.kernels.reference.trim_refit` is
    the oracle."""
    p, q = _points(p, q)
    fit = np.empty((2, 3))
    keep = np.empty(len(p), np.bool_)
    res = np.empty(len(p))
    n = trim_refit_kernel(p, q, _affine(start, "start"), float(floor), max(3, int(min_keep)), fit, keep, res)
    return fit, res[:n]
