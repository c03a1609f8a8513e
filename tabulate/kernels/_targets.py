"""numba kernel: score every target of a page in one call (see `tabulate.kernels.score_targets`).

Each sample point (page inches) is mapped through the page's affine transform
to the nearest image pixel; no page warp is made. A point outside the image,
or in a column flagged in ``skip`` (a scanner streak), is not read: it counts
as paper. Grey levels go through two 256-entry tables (normalised
darkness; dark / residue / paper) so no division happens per pixel. The
oracle twin is `tabulate.kernels.reference.score_targets`.

A bitonal page may be read as the decoder gave it, one byte 0 or 1 a pixel,
with ``levels`` the grey level of each (``levels[v]`` for a byte ``v``): the
tables then hold one entry a byte value, worked out from its level (two,
not 256), and the two places that use a pixel's grey level itself (the local
paper's mean, the interior's histogram) look it up, so every number is the
one the same page converted to grey (0/255) gives, without converting the
page (docs/perf.md, "This round (branch g4direct)"). An empty ``levels``: the
bytes are grey levels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import _areas, _interior, _stamp
from ._areas import DARK, PAPER, RESIDUE, cell_max, crossings, dark_fraction, sector_ink
from ._interior import interior

# Before the decorators below run: numba's cache of this file's kernel does not see edits to the helpers.
_stamp.refresh(__file__, _areas.__file__, _interior.__file__)

N_FEATURES = 12
#: A local-search position must beat the best so far by this much to be taken.
MATCH_EPS = 1e-9
#: A marking-area cell with fewer unprinted points than this (mostly print) is not judged.
MIN_CELL_POINTS = 20
#: The "marking" feature of a target whose marking area was not read (its interior decided it, or it is not wanted).
AREA_NOT_READ = -1.0


@njit(cache=True, nogil=True)
def _tables(paper, ink, split_v, residue_v, levels):
    """Both tables by byte value: every grey level, or (a bitonal page's bytes) each byte's level in ``levels``
    (the other entries, bytes such a page cannot hold, read as paper: never outside the tables)."""
    n = 256 if levels.shape[0] == 0 else levels.shape[0]
    dark_n = np.zeros(256, np.float64)
    state = np.zeros(256, np.int8)  # PAPER
    for i in range(n):
        v = i if levels.shape[0] == 0 else levels[i]
        d = (paper - v) / (paper - ink)
        dark_n[i] = min(max(d, 0.0), 1.0)
        if v < split_v:
            state[i] = DARK
        elif v < residue_v:
            state[i] = RESIDUE
        else:
            state[i] = PAPER
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
def _max_points(ptrs):
    m = 0
    for p in ptrs:
        for t in range(p.shape[0] - 1):
            m = max(m, p[t + 1] - p[t])
    return m


@njit(cache=True, nogil=True)
def _local_paper(image, skip, pos, n, w, lo, dc, dr, paper, split_v, levels):
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
            v = v if v >= levels.shape[0] else levels[v]  # a bitonal page's byte: its grey level
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
    area_wanted,
    area_score_min,
    area_dark_min,
    levels,
    out,
):
    """Fill ``out[t, :]`` (the columns of `tabulate.kernels.points.FEATURES`) for every target ``t``.

    Levels are re-based per target on the paper right beside it (a scanner's
    uneven lighting shifts the paper grey across a page). A target's marking
    area is read only if ``area_wanted[t]`` and its interior's score is below
    ``area_score_min`` and its dark fraction below ``area_dark_min``;
    otherwise its "marking" feature is `AREA_NOT_READ`.
    """
    g_dark_n, _g_state = _tables(paper, ink, paper - split * (paper - ink), paper - residue * (paper - ink), levels)
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
        lp = _local_paper(image, skip, pos, hi - lo, outline_w, lo, dc, dr, paper, g_split_v, levels)
        if lp <= ink:
            lp = paper
        dark_n, state = _tables(lp, ink, lp - split * (lp - ink), lp - residue * (lp - ink), levels)
        interior(
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
            levels,
            out[t],
        )
        ring = sector_ink(
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
        near = sector_ink(
            image, skip, a, near_xy, near_sector, near_ptr[t], near_ptr[t + 1], dc, dr, state, n_sectors, min_hits
        )
        out[t, 4] = crossings(near, n_sectors)
        if area_wanted[t] and out[t, 0] < area_score_min and out[t, 1] < area_dark_min:
            out[t, 5] = cell_max(
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
        else:
            out[t, 5] = AREA_NOT_READ
        out[t, 6] = dark_fraction(
            image, skip, a, write_in_xy, write_in_dist, area_margin, write_in_ptr[t], write_in_ptr[t + 1], dc, dr, state
        )
        out[t, 7] = dc
        out[t, 8] = dr
        out[t, 9] = match
        out[t, 10] = lp


# numba keys the cache on this file's content alone: key it on the helpers' too (`_stamp.bind`).
_stamp.bind(score_targets_kernel, __file__, _areas.__file__, _interior.__file__)
