"""numba kernel: new ink against a template's blank, area by area (see `tabulate.kernels.new_ink`).

Each sample point (page inches) is read twice: on the scanned page, at the
nearest pixel through the page's affine map, and on the template's blank, as
the darkest pixel within ``reach`` of where the blank's own map puts it (the
printed ink widened by the registration's and the blur's slack). Both are
normalised between their own paper (0) and ink (1) levels; what the page has
beyond the blank is new ink. The oracle twin is
`tabulate.kernels.reference.new_ink`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

N_NEW_INK = 2
#: A point holds new ink when its page darkness exceeds the blank's by at least this much.
NEW_DARK = 0.5


@njit(cache=True, nogil=True)
def _levels(paper, ink):
    out = np.empty(256, np.float64)
    for v in range(256):
        out[v] = min(max((paper - v) / (paper - ink), 0.0), 1.0)
    return out


@njit(cache=True, nogil=True)
def _nearest(a, x, y):
    # floor(v + 0.5) without math.floor: any negative position is outside the image (-1).
    r = a[1, 0] * x + a[1, 1] * y + a[1, 2] + 0.5
    c = a[0, 0] * x + a[0, 1] * y + a[0, 2] + 0.5
    return (int(r) if r >= 0.0 else -1), (int(c) if c >= 0.0 else -1)


@njit(cache=True, nogil=True)
def _printed(blank, r0, c0, reach, levels):
    """The darkest normalised level of the blank within ``reach`` pixels of (r0, c0); 0 when (r0, c0)
    is off the blank (nothing printed there to discount)."""
    rows, cols = blank.shape
    if r0 < 0 or c0 < 0 or r0 >= rows or c0 >= cols:
        return 0.0
    best = 0.0
    for r in range(max(0, r0 - reach), min(rows, r0 + reach + 1)):
        for c in range(max(0, c0 - reach), min(cols, c0 + reach + 1)):
            best = max(best, levels[blank[r, c]])
    return best


@njit(cache=True, nogil=True)
def new_ink_kernel(image, affine, paper, ink, blank, blank_affine, blank_paper, blank_ink, reach, xy, ptr, out):
    """Fill ``out[a] = (mean new darkness, share of points with new ink)`` for every area ``a``."""
    page_n = _levels(paper, ink)
    blank_n = _levels(blank_paper, blank_ink)
    rows, cols = image.shape
    for a in range(ptr.shape[0] - 1):
        lo, hi = ptr[a], ptr[a + 1]
        total = 0.0
        dark = 0
        for i in range(lo, hi):
            r, c = _nearest(affine, xy[i, 0], xy[i, 1])
            d = page_n[image[r, c]] if r >= 0 and c >= 0 and r < rows and c < cols else 0.0
            br, bc = _nearest(blank_affine, xy[i, 0], xy[i, 1])
            extra = d - _printed(blank, br, bc, reach, blank_n)
            if extra > 0.0:
                total += extra
                if extra >= NEW_DARK:
                    dark += 1
        if hi > lo:
            out[a, 0] = total / (hi - lo)
            out[a, 1] = dark / (hi - lo)
