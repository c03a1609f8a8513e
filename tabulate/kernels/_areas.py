"""numba: the point sets round and beside a target, each reduced to a count (see `tabulate.kernels.score_targets`).

The bands round the target (ink per angular sector: a circle drawn round it,
strokes crossing its outline), the designated marking area beside it (its
most inked cell: an X or check on the name, 31 KAR 6:030 §3(1)(e)) and the
write-in area (its dark fraction). Every function counts points, so the
order of a target's points does not change what it returns.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Pixel states in the class table.
PAPER, RESIDUE, DARK = 0, 1, 2


@njit(cache=True, nogil=True)
def dark_fraction(image, skip, a, xy, dist, margin, lo, hi, dc, dr, state):
    """Dark fraction of the points at least ``margin`` from print."""
    a00, a01, a02, a10, a11, a12 = a[0, 0], a[0, 1], a[0, 2], a[1, 0], a[1, 1], a[1, 2]
    rows, cols = image.shape
    dark = 0
    n = 0
    for j in range(hi - lo):
        if dist[lo + j] < margin:
            continue
        n += 1
        rf = a10 * xy[lo + j, 0] + a11 * xy[lo + j, 1] + a12 + 0.5
        cf = a00 * xy[lo + j, 0] + a01 * xy[lo + j, 1] + a02 + 0.5
        r = (int(rf) if rf >= 0.0 else -1) + dr
        c = (int(cf) if cf >= 0.0 else -1) + dc
        if r >= 0 and c >= 0 and r < rows and c < cols and not skip[c] and state[image[r, c]] == DARK:
            dark += 1
    return dark / n if n > 0 else 0.0


@njit(cache=True, nogil=True)
def cell_max(image, skip, a, xy, cell, dist, margin, lo, hi, dc, dr, state, n_cells, min_points, min_hits):
    """The largest dark fraction of any cell holding at least ``min_points`` points and ``min_hits`` dark ones."""
    hits = np.zeros(n_cells, np.int64)
    pts = np.zeros(n_cells, np.int64)
    a00, a01, a02, a10, a11, a12 = a[0, 0], a[0, 1], a[0, 2], a[1, 0], a[1, 1], a[1, 2]
    rows, cols = image.shape
    for i in range(lo, hi):
        if dist[i] < margin:
            continue
        k = cell[i]
        pts[k] += 1
        rf = a10 * xy[i, 0] + a11 * xy[i, 1] + a12 + 0.5
        cf = a00 * xy[i, 0] + a01 * xy[i, 1] + a02 + 0.5
        r = (int(rf) if rf >= 0.0 else -1) + dr
        c = (int(cf) if cf >= 0.0 else -1) + dc
        if r >= 0 and c >= 0 and r < rows and c < cols and not skip[c] and state[image[r, c]] == DARK:
            hits[k] += 1
    best = 0.0
    for c in range(n_cells):
        if pts[c] >= min_points and hits[c] >= min_hits:
            best = max(best, hits[c] / pts[c])
    return best


@njit(cache=True, nogil=True)
def sector_ink(image, skip, a, xy, sector, lo, hi, dc, dr, state, n_sectors, min_hits):
    """Per sector: 1 holds ink (>= min_hits dark points), 0 paper, -1 no points."""
    hits = np.zeros(n_sectors, np.int64)
    pts = np.zeros(n_sectors, np.int64)
    a00, a01, a02, a10, a11, a12 = a[0, 0], a[0, 1], a[0, 2], a[1, 0], a[1, 1], a[1, 2]
    rows, cols = image.shape
    for i in range(lo, hi):
        s = sector[i]
        pts[s] += 1
        rf = a10 * xy[i, 0] + a11 * xy[i, 1] + a12 + 0.5
        cf = a00 * xy[i, 0] + a01 * xy[i, 1] + a02 + 0.5
        r = (int(rf) if rf >= 0.0 else -1) + dr
        c = (int(cf) if cf >= 0.0 else -1) + dc
        if r >= 0 and c >= 0 and r < rows and c < cols and not skip[c] and state[image[r, c]] == DARK:
            hits[s] += 1
    out = np.empty(n_sectors, np.int64)
    for s in range(n_sectors):
        if pts[s] == 0:
            out[s] = -1
        elif hits[s] >= min_hits:
            out[s] = 1
        else:
            out[s] = 0
    return out


@njit(cache=True, nogil=True)
def crossings(near, n_sectors):
    """Runs of inked sectors around the band (sectors without points skipped; inked all round = 0)."""
    runs = 0
    prev = -1
    first = -1
    for s in range(n_sectors):
        if near[s] < 0:
            continue
        if first < 0:
            first = near[s]
        if near[s] == 1 and prev != 1:
            runs += 1
        prev = near[s]
    if runs > 0 and first == 1 and prev == 1:
        runs -= 1  # the run wraps around sector 0 (a band inked all round counts 0)
    return runs
