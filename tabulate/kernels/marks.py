"""Wrappers of the registration-mark kernels: a corner window's components, and one mark measured.

Each checks shapes and dtypes and calls the compiled kernel in `_marks.py`;
the numpy twins in `tabulate.kernels.reference` are the oracle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._marks import mark_components_kernel, refine_mark_kernel


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
