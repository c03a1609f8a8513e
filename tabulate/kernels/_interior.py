"""numba: a target's interior: fill score, dark and residue fractions, darkest tenth; an arrow's joined columns.

The fill score is a float64 sum in the order of the interior's points, and an
arrow's gap grid is indexed by point: these points are read in their order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._areas import DARK, RESIDUE

#: Column of the "deep" feature (the darkening of the interior's darkest tenth, as a share of print's).
DEEP = 11


@njit(cache=True, nogil=True)
def widest_span(is_dark, col, col_read, ncols, min_hits):
    """The read columns spanned by the widest 8-connected piece of dark points of an arrow's gap grid.

    The gap's points are a full grid, row by row (``col`` gives each point's column); columns not
    read whole (``col_read`` 0: a streak hid some of their points) are left out, so ink either side
    of them joins. A piece of fewer than
    ``min_hits`` points (a speck) spans nothing. Not a grid (a caller's own points): the number of
    columns holding ``min_hits`` dark points, as if every inked column were joined.
    """
    n = is_dark.shape[0]
    nrows = n // ncols
    rank = np.full(ncols, -1, np.int64)  # each read column's place among the read columns
    k = 0
    for c in range(ncols):
        if col_read[c] > 0:
            rank[c] = k
            k += 1
    if nrows * ncols != n:
        hits = np.zeros(ncols, np.int64)
        for j in range(n):
            if is_dark[j]:
                hits[col[j]] += 1
        joined = 0
        for c in range(ncols):
            if hits[c] >= min_hits and rank[c] >= 0:
                joined += 1
        return joined
    at = np.full(nrows * k, -1, np.int64)  # (row, read column) -> point index, -1: paper
    for j in range(n):
        if is_dark[j] and rank[col[j]] >= 0:
            at[(j // ncols) * k + rank[col[j]]] = j
    seen = np.zeros(nrows * k, np.bool_)
    stack = np.empty(nrows * k, np.int64)
    best = 0
    for start in range(nrows * k):
        if at[start] < 0 or seen[start]:
            continue
        seen[start] = True
        stack[0] = start
        top = 1
        size = 0
        left = k
        right = -1
        while top > 0:
            top -= 1
            cell = stack[top]
            r, c = cell // k, cell % k
            size += 1
            left = min(left, c)
            right = max(right, c)
            for rr in range(max(0, r - 1), min(nrows, r + 2)):
                for cc in range(max(0, c - 1), min(k, c + 2)):
                    q = rr * k + cc
                    if at[q] >= 0 and not seen[q]:
                        seen[q] = True
                        stack[top] = q
                        top += 1
        if size >= min_hits:
            best = max(best, right - left + 1)
    return best


@njit(cache=True, nogil=True)
def interior(
    image, skip, a, xy, col, ncols, lo, hi, dc, dr, dark_n, state, min_hits, lp, print_dark, hist, levels, out
):
    n = hi - lo
    if n == 0:
        return
    hist[:] = 0
    a00, a01, a02, a10, a11, a12 = a[0, 0], a[0, 1], a[0, 2], a[1, 0], a[1, 1], a[1, 2]
    dark = 0
    residue = 0
    total = 0.0
    col_hits = np.zeros(max(ncols, 1), np.int64)
    col_read = np.zeros(max(ncols, 1), np.int64)
    col_pts = np.zeros(max(ncols, 1), np.int64)
    is_dark = np.zeros(n if ncols > 0 else 0, np.bool_)
    rows, cols = image.shape
    for j in range(n):
        rf = a10 * xy[lo + j, 0] + a11 * xy[lo + j, 1] + a12 + 0.5
        cf = a00 * xy[lo + j, 0] + a01 * xy[lo + j, 1] + a02 + 0.5
        r = (int(rf) if rf >= 0.0 else -1) + dr
        c = (int(cf) if cf >= 0.0 else -1) + dc
        if ncols > 0:
            col_pts[col[lo + j]] += 1
        if r < 0 or c < 0 or r >= rows or c >= cols or skip[c]:
            continue
        v = image[r, c]
        if ncols > 0:
            col_read[col[lo + j]] += 1
        hist[v if v >= levels.shape[0] else levels[v]] += 1  # by grey level (a bitonal page's byte: its level)
        total += dark_n[v]
        st = state[v]
        if st == DARK:
            dark += 1
            if ncols > 0:
                col_hits[col[lo + j]] += 1
                is_dark[j] = True
        elif st == RESIDUE:
            residue += 1
    if ncols > 0:
        # A column a scanner's streak hid any of (on a skewed page a streak wanders across the gap's
        # columns) is left out, not counted open: the ink either side of it joins.
        read = 0
        for c in range(ncols):
            if col_read[c] < col_pts[c]:
                col_read[c] = 0
            if col_read[c] > 0:
                read += 1
        out[0] = widest_span(is_dark, col[lo:hi], col_read, ncols, min_hits) / max(read, 1)
    else:
        out[0] = total / n
    out[1] = dark / n
    out[2] = residue / n
    # The grey of the darkest tenth (the ceil(n / 10)-th darkest point read; points not read count as paper):
    # its darkening of the local paper (1 - grey / paper) as a share of the print's (1 - ink / paper). The
    # scanner maps reflectance to grey as black + (paper - black) x reflectance, so this is the ink's own
    # darkness, whatever the paper's tone or the scanner's black level.
    need = (n + 9) // 10
    seen = 0
    deep = 0.0
    for g in range(256):
        seen += hist[g]
        if seen >= need:
            deep = max(0.0, 1.0 - g / lp) / print_dark
            break
    out[DEEP] = deep
