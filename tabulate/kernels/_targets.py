"""numba kernel: score every target of a page in one call (see `tabulate.kernels.score_targets`).

Each sample point (page inches) is mapped through the page's affine transform
to the nearest image pixel; no page warp is made. A point outside the image,
or in a column flagged in ``skip`` (a scanner streak), is not read: it counts
as paper. Grey levels go through two 256-entry tables (normalised
darkness; dark / residue / paper) so no division happens per pixel. The
oracle twin is `tabulate.kernels.reference.score_targets`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

N_FEATURES = 12
#: Column of the "deep" feature (the darkening of the interior's darkest tenth, as a share of print's).
DEEP = 11
#: A local-search position must beat the best so far by this much to be taken.
MATCH_EPS = 1e-9
#: A marking-area cell with fewer unprinted points than this (mostly print) is not judged.
MIN_CELL_POINTS = 20
#: Pixel states in the class table.
PAPER, RESIDUE, DARK = 0, 1, 2


@njit(cache=True, nogil=True)
def _tables(paper, ink, split_v, residue_v):
    dark_n = np.empty(256, np.float64)
    state = np.empty(256, np.int8)
    for v in range(256):
        n = (paper - v) / (paper - ink)
        dark_n[v] = min(max(n, 0.0), 1.0)
        if v < split_v:
            state[v] = DARK
        elif v < residue_v:
            state[v] = RESIDUE
        else:
            state[v] = PAPER
    return dark_n, state


@njit(cache=True, nogil=True)
def _locate(a, xy, lo, hi, rows, cols, pos):
    """Nearest pixel (row, col) of points lo..hi into pos[0:hi-lo]."""
    # floor(v + 0.5) without math.floor: truncation equals floor for v + 0.5 >= 0, and any
    # negative position is outside the image whatever its value (-1 here).
    a00, a01, a02, a10, a11, a12 = a[0, 0], a[0, 1], a[0, 2], a[1, 0], a[1, 1], a[1, 2]
    for i in range(lo, hi):
        r = a10 * xy[i, 0] + a11 * xy[i, 1] + a12 + 0.5
        c = a00 * xy[i, 0] + a01 * xy[i, 1] + a02 + 0.5
        pos[i - lo, 0] = int(r) if r >= 0.0 else -1
        pos[i - lo, 1] = int(c) if c >= 0.0 else -1


@njit(cache=True, nogil=True)
def _best_offset(image, skip, pos, n, w, lo, offsets, dark_n, m):
    """The first offset whose outline match beats every earlier one by `MATCH_EPS`, and its match.

    Point by point, every offset (one small neighbourhood of the image at a
    time); each offset's sum still runs over the points in order, so the sums
    are those of an offset-by-offset loop.
    """
    rows, cols = image.shape
    nk = offsets.shape[0]
    reach = 0
    for k in range(nk):
        reach = max(reach, abs(offsets[k, 0]), abs(offsets[k, 1]))
    m[:nk] = 0.0
    for j in range(n):
        r0 = pos[j, 0]
        c0 = pos[j, 1]
        wj = w[lo + j]
        if r0 >= reach and c0 >= reach and r0 + reach < rows and c0 + reach < cols:
            for k in range(nk):
                c = c0 + offsets[k, 0]
                if not skip[c]:
                    m[k] += wj * dark_n[image[r0 + offsets[k, 1], c]]
        else:
            for k in range(nk):
                r = r0 + offsets[k, 1]
                c = c0 + offsets[k, 0]
                if r >= 0 and c >= 0 and r < rows and c < cols and not skip[c]:
                    m[k] += wj * dark_n[image[r, c]]
    best = -np.inf
    bi = 0
    for k in range(nk):
        if m[k] > best + MATCH_EPS:
            best = m[k]
            bi = k
    if n == 0:
        best = 0.0
    return bi, best


@njit(cache=True, nogil=True)
def _dark_fraction(image, skip, a, xy, dist, margin, lo, hi, dc, dr, state):
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
def _cell_max(image, skip, a, xy, cell, dist, margin, lo, hi, dc, dr, state, n_cells, min_points, min_hits):
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
def _sector_ink(image, skip, a, xy, sector, lo, hi, dc, dr, state, n_sectors, min_hits):
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
def _widest_span(is_dark, col, col_read, ncols, min_hits):
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
def _interior(image, skip, a, xy, col, ncols, lo, hi, dc, dr, dark_n, state, min_hits, lp, print_dark, hist, out):
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
        hist[v] += 1
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
        out[0] = _widest_span(is_dark, col[lo:hi], col_read, ncols, min_hits) / max(read, 1)
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


@njit(cache=True, nogil=True)
def _crossings(near, n_sectors):
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


@njit(cache=True, nogil=True)
def _max_points(ptrs):
    m = 0
    for p in ptrs:
        for t in range(p.shape[0] - 1):
            m = max(m, p[t + 1] - p[t])
    return m


@njit(cache=True, nogil=True)
def _local_paper(image, skip, pos, n, w, lo, dc, dr, paper, split_v):
    """Mean of the paper points beside the outline that are not ink, or ``paper`` if too few are."""
    total = 0.0
    count = 0
    m = 0
    rows, cols = image.shape
    for j in range(n):
        if w[lo + j] >= 0.0:
            continue
        m += 1
        r = pos[j, 0] + dr
        c = pos[j, 1] + dc
        if r >= 0 and c >= 0 and r < rows and c < cols and not skip[c]:
            v = image[r, c]
            if v >= split_v:
                total += v
                count += 1
    if count == 0 or count * 4 < m:
        return paper
    return total / count


@njit(cache=True, nogil=True)
def score_targets_kernel(
    image,
    skip,
    a,
    offsets,
    paper,
    ink,
    split,
    residue,
    min_hits,
    n_sectors,
    area_margin,
    outline_xy,
    outline_w,
    outline_ptr,
    interior_xy,
    interior_col,
    interior_ncols,
    interior_ptr,
    outer_xy,
    outer_sector,
    outer_ptr,
    near_xy,
    near_sector,
    near_ptr,
    mark_xy,
    mark_cell,
    mark_dist,
    n_cells,
    mark_ptr,
    write_in_xy,
    write_in_dist,
    write_in_ptr,
    out,
):
    """Fill ``out[t, :]`` (the columns of `tabulate.kernels.points.FEATURES`) for every target ``t``.

    Levels are re-based per target on the paper right beside it (a scanner's
    uneven lighting shifts the paper grey across a page).
    """
    g_dark_n, _g_state = _tables(paper, ink, paper - split * (paper - ink), paper - residue * (paper - ink))
    g_split_v = paper - split * (paper - ink)
    size = _max_points((outline_ptr,))  # only the outline's positions are kept (visited per offset)
    pos = np.empty((max(size, 1), 2), np.int64)
    hist = np.zeros(256, np.int64)
    match_k = np.zeros(offsets.shape[0], np.float64)
    for t in range(outline_ptr.shape[0] - 1):
        lo, hi = outline_ptr[t], outline_ptr[t + 1]
        _locate(a, outline_xy, lo, hi, image.shape[0], image.shape[1], pos)
        k, match = _best_offset(image, skip, pos, hi - lo, outline_w, lo, offsets, g_dark_n, match_k)
        dc = offsets[k, 0]
        dr = offsets[k, 1]
        lp = _local_paper(image, skip, pos, hi - lo, outline_w, lo, dc, dr, paper, g_split_v)
        if lp <= ink:
            lp = paper
        dark_n, state = _tables(lp, ink, lp - split * (lp - ink), lp - residue * (lp - ink))
        _interior(
            image,
            skip,
            a,
            interior_xy,
            interior_col,
            interior_ncols[t],
            interior_ptr[t],
            interior_ptr[t + 1],
            dc,
            dr,
            dark_n,
            state,
            min_hits,
            lp,
            1.0 - ink / paper,
            hist,
            out[t],
        )
        ring = _sector_ink(
            image, skip, a, outer_xy, outer_sector, outer_ptr[t], outer_ptr[t + 1], dc, dr, state, n_sectors, min_hits
        )
        have = 0
        inked = 0
        for s in range(n_sectors):
            if ring[s] >= 0:
                have += 1
                if ring[s] == 1:
                    inked += 1
        out[t, 3] = inked / have if have > 0 else 0.0
        near = _sector_ink(
            image, skip, a, near_xy, near_sector, near_ptr[t], near_ptr[t + 1], dc, dr, state, n_sectors, min_hits
        )
        out[t, 4] = _crossings(near, n_sectors)
        out[t, 5] = _cell_max(
            image,
            skip,
            a,
            mark_xy,
            mark_cell,
            mark_dist,
            area_margin,
            mark_ptr[t],
            mark_ptr[t + 1],
            dc,
            dr,
            state,
            n_cells,
            MIN_CELL_POINTS,
            min_hits,
        )
        out[t, 6] = _dark_fraction(
            image, skip, a, write_in_xy, write_in_dist, area_margin, write_in_ptr[t], write_in_ptr[t + 1], dc, dr, state
        )
        out[t, 7] = dc
        out[t, 8] = dr
        out[t, 9] = match
        out[t, 10] = lp
