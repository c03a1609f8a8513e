"""numba kernel: find every anchor patch near where an affine map puts it, in one call.

For each anchor a window of ``patch + 2 m`` pixels a side is sampled from the
image through the map (bilinear, paper-white 255 off the image, as
``cv2.warpAffine(..., INTER_LINEAR | WARP_INVERSE_MAP, BORDER_CONSTANT, 255)``
samples it), the patch's normalised cross-correlation is taken at every one of
the ``(2 m + 1)^2`` shifts (OpenCV's ``TM_CCOEFF_NORMED``), and the best shift
is refined to a fraction of a pixel by a parabola through its neighbours.
With ``climb`` only the shifts uphill from the window's centre are tried
(each step to the best of the 3 x 3 around it): for a search that an earlier,
coarser one has already placed within a pixel or two, a fraction of the work.
Replaces one ``warpAffine`` and one ``matchTemplate`` call per anchor (each
mostly call overhead at this size). The oracle twin is
`tabulate.kernels.reference.match_anchors`.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

N_ANCHOR_OUT = 3  # x, y of the patch centre in the window (pixels), correlation


@njit(cache=True, nogil=True)
def _pixel(image, r, c):
    if r < 0 or c < 0 or r >= image.shape[0] or c >= image.shape[1]:
        return 255.0
    return float(image[r, c])


@njit(cache=True, nogil=True)
def _bilinear(image, x, y):
    c0 = math.floor(x)
    r0 = math.floor(y)
    fx, fy = x - c0, y - r0
    c, r = int(c0), int(r0)
    top = _pixel(image, r, c) * (1.0 - fx) + _pixel(image, r, c + 1) * fx
    bottom = _pixel(image, r + 1, c) * (1.0 - fx) + _pixel(image, r + 1, c + 1) * fx
    return top * (1.0 - fy) + bottom * fy


@njit(cache=True, nogil=True)
def _inside(image, lin, sx, sy, size):
    """Whether every bilinear neighbour of the window lies on the image (no border to handle)."""
    last = size - 1.0
    for yy in (0.0, last):
        for xx in (0.0, last):
            x = lin[0, 0] * xx + lin[0, 1] * yy + sx
            y = lin[1, 0] * xx + lin[1, 1] * yy + sy
            if not (0.0 <= x < image.shape[1] - 1 and 0.0 <= y < image.shape[0] - 1):
                return False
    return True


@njit(cache=True, nogil=True)
def _window(image, lin, sx, sy, win):
    size = win.shape[0]
    if not _inside(image, lin, sx, sy, size):
        for yy in range(size):
            for xx in range(size):
                x = lin[0, 0] * xx + lin[0, 1] * yy + sx
                y = lin[1, 0] * xx + lin[1, 1] * yy + sy
                win[yy, xx] = _bilinear(image, x, y)
        return
    for yy in range(size):  # the common case: no bounds to check
        for xx in range(size):
            x = lin[0, 0] * xx + lin[0, 1] * yy + sx
            y = lin[1, 0] * xx + lin[1, 1] * yy + sy
            c, r = int(x), int(y)
            fx, fy = x - c, y - r
            top = image[r, c] * (1.0 - fx) + image[r, c + 1] * fx
            bottom = image[r + 1, c] * (1.0 - fx) + image[r + 1, c + 1] * fx
            win[yy, xx] = top * (1.0 - fy) + bottom * fy


@njit(cache=True, nogil=True)
def _dot_sums(win, tz, dy, dx):
    """The patch ``tz`` dotted with the window under it at (dy, dx), and the sum of those window values
    and of their squares, in one pass (the climb visits a dozen of the shifts: no integral images)."""
    num = 0.0
    s = 0.0
    s2 = 0.0
    for r in range(tz.shape[0]):
        for c in range(tz.shape[1]):
            w = win[dy + r, dx + c]
            num += tz[r, c] * w
            s += w
            s2 += w * w
    return num, s, s2


@njit(cache=True, nogil=True)
def _corr_at(win, tz, t_norm, dy, dx):
    """The zero-mean patch ``tz`` (norm ``t_norm``) correlated with ``win`` at shift (dy, dx)."""
    count = float(tz.shape[0] * tz.shape[1])
    num, s, s2 = _dot_sums(win, tz, dy, dx)
    var = max(s2 - s * s / count, 0.0)
    # OpenCV's guard: a flat window (rounding noise only) correlates 0.
    if var <= min(0.5, 10.0 * 1.1920929e-07 * s2) or t_norm <= 0.0:
        return 0.0
    return min(max(num / (math.sqrt(var) * t_norm), -1.0), 1.0)


@njit(cache=True, nogil=True)
def _fill(win, tz, t_norm, corr, dy, dx):
    if math.isnan(corr[dy, dx]):
        corr[dy, dx] = _corr_at(win, tz, t_norm, dy, dx)


@njit(cache=True, nogil=True)
def _best(win, tz, t_norm, corr, climb):
    """The (dy, dx) of the best correlation: over every shift, or (``climb``) uphill from the centre,
    each step to the best of the 3 x 3 around it, until the centre of that is best."""
    n = corr.shape[0]
    if not climb:
        for dy in range(n):
            for dx in range(n):
                _fill(win, tz, t_norm, corr, dy, dx)
        by, bx = 0, 0
        for dy in range(n):  # the first maximum in raster order, as cv2.minMaxLoc
            for dx in range(n):
                if corr[dy, dx] > corr[by, bx]:
                    by, bx = dy, dx
        return by, bx
    by = bx = n // 2
    for _step in range(n * n):
        cy, cx = by, bx
        for dy in range(max(0, cy - 1), min(n, cy + 2)):
            for dx in range(max(0, cx - 1), min(n, cx + 2)):
                _fill(win, tz, t_norm, corr, dy, dx)
        for dy in range(max(0, cy - 1), min(n, cy + 2)):
            for dx in range(max(0, cx - 1), min(n, cx + 2)):
                if corr[dy, dx] > corr[by, bx]:
                    by, bx = dy, dx
        if by == cy and bx == cx:
            break
    return by, bx


@njit(cache=True, nogil=True)
def _vertex(a, b, c):
    d = a - 2.0 * b + c
    return 0.5 * (a - c) / d if d != 0.0 else 0.0


@njit(cache=True, nogil=True)
def match_anchors_kernel(image, lin, shifts, patches, m, climb, out):
    """Fill ``out[i] = (x, y, correlation)`` of anchor ``i``'s best match in its window (see the module)."""
    n, p = patches.shape[0], patches.shape[1]
    half = p // 2
    win = np.empty((p + 2 * m, p + 2 * m), np.float64)
    corr = np.empty((2 * m + 1, 2 * m + 1), np.float64)
    tz = np.empty((p, p), np.float64)
    for i in range(n):
        mean = 0.0
        for r in range(p):
            for c in range(p):
                mean += float(patches[i, r, c])
        mean /= p * p
        t2 = 0.0
        for r in range(p):
            for c in range(p):
                tz[r, c] = float(patches[i, r, c]) - mean
                t2 += tz[r, c] * tz[r, c]
        _window(image, lin, shifts[i, 0], shifts[i, 1], win)
        corr[:] = np.nan
        by, bx = _best(win, tz, math.sqrt(t2), corr, climb)
        fx = fy = 0.0
        if 0 < bx < corr.shape[1] - 1:
            fx = _vertex(corr[by, bx - 1], corr[by, bx], corr[by, bx + 1])
        if 0 < by < corr.shape[0] - 1:
            fy = _vertex(corr[by - 1, bx], corr[by, bx], corr[by + 1, bx])
        out[i, 0] = bx + fx + half
        out[i, 1] = by + fy + half
        out[i, 2] = corr[by, bx]
