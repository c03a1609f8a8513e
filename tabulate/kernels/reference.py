"""Plain numpy twins of the kernels: slow, obviously correct, the oracle in tests.

Each function takes the same arguments as its public kernel wrapper in
`tabulate.kernels` and returns the same array; tests assert they agree.
"""

from __future__ import annotations

import cv2
import numpy as np

from .points import FEATURES, TargetPoints

MATCH_EPS = 1e-9
#: As `tabulate.kernels._targets.MIN_CELL_POINTS`.
MIN_CELL_POINTS = 20
#: As `tabulate.kernels._targets.AREA_NOT_READ`.
AREA_NOT_READ = -1.0


def sample_nearest(
    image: np.ndarray,
    affine: np.ndarray,
    xy: np.ndarray,
    dc: int = 0,
    dr: int = 0,
    *,
    paper: float,
    skip_cols: np.ndarray | None = None,
) -> np.ndarray:
    """Image values (float64) at page points ``xy`` (inches): nearest pixel; ``paper`` outside the
    image and in skipped columns."""
    col = affine[0, 0] * xy[:, 0] + affine[0, 1] * xy[:, 1] + affine[0, 2]
    row = affine[1, 0] * xy[:, 0] + affine[1, 1] * xy[:, 1] + affine[1, 2]
    c = np.floor(col + 0.5).astype(np.int64) + dc
    r = np.floor(row + 0.5).astype(np.int64) + dr
    inside = (r >= 0) & (c >= 0) & (r < image.shape[0]) & (c < image.shape[1])
    if skip_cols is not None:
        inside[inside] &= ~skip_cols[c[inside]]
    v = np.full(len(xy), float(paper))
    v[inside] = image[r[inside], c[inside]]
    return v


def darkness(v: np.ndarray, paper: float, ink: float) -> np.ndarray:
    """0 at the paper level, 1 at the ink level, clipped."""
    return np.clip((paper - v) / (paper - ink), 0.0, 1.0)


def _sector_state(dark: np.ndarray, sector: np.ndarray, n_sectors: int, min_hits: int) -> np.ndarray:
    pts = np.bincount(sector, minlength=n_sectors)
    hits = np.bincount(sector, weights=dark.astype(np.float64), minlength=n_sectors)
    return np.where(pts == 0, -1, np.where(hits >= min_hits, 1, 0))


def _runs(state: np.ndarray) -> int:
    s = state[state >= 0]
    if len(s) == 0 or s.all():
        return 0
    inked = s == 1
    starts = inked & ~np.roll(inked, 1)
    return int(starts.sum())


def local_paper(values: np.ndarray, weights: np.ndarray, paper: float, split_v: float) -> float:
    """Mean of the outline's paper points (weight < 0) lighter than the split, if a quarter or more are."""
    v = values[weights < 0]
    light = v[v >= split_v]
    if len(light) == 0 or len(light) * 4 < len(v):
        return paper
    return float(light.mean())


def _widest_span(dark: np.ndarray, col: np.ndarray, read: np.ndarray, min_hits: int) -> int:
    """Reference for the kernel's ``_widest_span``: the widest 8-connected piece of the gap grid's dark
    points (columns read whole only, so a streak's columns join the ink either side), in read columns."""
    ncols = len(read)
    if len(dark) % ncols:  # not a grid: the inked columns, as if joined
        hits = np.bincount(col[dark], minlength=ncols)
        return int(np.count_nonzero((hits >= min_hits) & read))
    grid = dark.reshape(-1, ncols)[:, read].astype(np.uint8)
    if grid.size == 0:
        return 0
    n, _labels, stats, _c = cv2.connectedComponentsWithStats(grid, connectivity=8)  # type: ignore[call-overload]
    pieces = [int(stats[j, cv2.CC_STAT_WIDTH]) for j in range(1, n) if stats[j, cv2.CC_STAT_AREA] >= min_hits]
    return max(pieces, default=0)


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
    min_hits: int,
    skip_cols: np.ndarray | None = None,
    area_margin: float = 0.0,
    area_wanted: np.ndarray | None = None,
    area_decided: tuple[float, float] = (np.inf, np.inf),
) -> np.ndarray:
    """Reference for `tabulate.kernels.score_targets` (same arguments, same result)."""
    skip = np.zeros(image.shape[1], bool) if skip_cols is None else np.asarray(skip_cols, bool)
    wanted = np.ones(points.n_targets, bool) if area_wanted is None else np.asarray(area_wanted, bool)
    out = np.zeros((points.n_targets, len(FEATURES)))

    def rows(name, t):
        ptr = getattr(points, f"{name}_ptr")
        return slice(ptr[t], ptr[t + 1])

    for t in range(points.n_targets):
        o = rows("outline", t)
        best, k = -np.inf, 0
        for i, (dc, dr) in enumerate(offsets):
            v = sample_nearest(image, affine, points.outline_xy[o], dc, dr, paper=paper, skip_cols=skip)
            d = darkness(v, paper, ink)
            m = float(np.sum(points.outline_w[o] * d)) if o.stop > o.start else 0.0
            if m > best + MATCH_EPS:
                best, k = m, i
        if o.stop == o.start:
            best = 0.0
        dc, dr = int(offsets[k, 0]), int(offsets[k, 1])
        # Out-of-image points read as paper; they are left out of the local paper level.
        vals = sample_nearest(image, affine, points.outline_xy[o], dc, dr, paper=-1.0, skip_cols=skip)
        lp = local_paper(vals, points.outline_w[o], paper, paper - split * (paper - ink))
        lp = paper if lp <= ink else lp
        split_v = lp - split * (lp - ink)
        residue_v = lp - residue * (lp - ink)

        def sample(name):
            r = rows(name, t)
            return sample_nearest(image, affine, getattr(points, f"{name}_xy")[r], dc, dr, paper=lp, skip_cols=skip)

        i = rows("interior", t)
        if i.stop > i.start:
            v = sample("interior")
            dark = v < split_v
            ncols = int(points.interior_ncols[t])
            if ncols > 0:
                # Columns a streak hid any point of are left out, not counted open.
                seen = sample_nearest(image, affine, points.interior_xy[i], dc, dr, paper=-1.0, skip_cols=skip) >= 0
                col = points.interior_col[i]
                read = (np.bincount(col[seen], minlength=ncols) == np.bincount(col, minlength=ncols)) & (
                    np.bincount(col, minlength=ncols) > 0
                )
                span = _widest_span(dark & seen, points.interior_col[i], read, min_hits)
                out[t, 0] = span / max(1, int(np.count_nonzero(read)))
            else:
                out[t, 0] = darkness(v, lp, ink).mean()
            out[t, 1] = dark.mean()
            out[t, 2] = np.mean(~dark & (v < residue_v))
            g = np.sort(v)[(len(v) + 9) // 10 - 1]  # the darkest tenth; unread points are paper (lp)
            out[t, 11] = max(0.0, 1.0 - g / lp) / (1.0 - ink / paper)
        ring = _sector_state(
            sample("outer") < split_v, points.outer_sector[rows("outer", t)], points.n_sectors, min_hits
        )
        have = ring >= 0
        out[t, 3] = (ring == 1).sum() / have.sum() if have.any() else 0.0
        near = _sector_state(sample("near") < split_v, points.near_sector[rows("near", t)], points.n_sectors, min_hits)
        out[t, 4] = _runs(near)
        keep = points.mark_dist[rows("mark", t)] >= area_margin
        d = (sample("mark") < split_v)[keep]
        cells = points.mark_cell[rows("mark", t)][keep]
        pts = np.bincount(cells, minlength=points.n_cells)
        hits = np.bincount(cells, weights=d.astype(np.float64), minlength=points.n_cells)
        judged = (pts >= MIN_CELL_POINTS) & (hits >= min_hits)
        out[t, 5] = float((hits[judged] / pts[judged]).max()) if judged.any() else 0.0
        if not wanted[t] or out[t, 0] >= area_decided[0] or out[t, 1] >= area_decided[1]:
            out[t, 5] = AREA_NOT_READ  # decided by the target alone, or of no use: not read
        keep = points.write_in_dist[rows("write_in", t)] >= area_margin
        d = (sample("write_in") < split_v)[keep]
        out[t, 6] = d.mean() if len(d) else 0.0
        out[t, 7:11] = dc, dr, best, lp
    return out


def black_shares(
    image: np.ndarray, affine: np.ndarray, points: TargetPoints, at: np.ndarray, skip_cols: np.ndarray | None = None
) -> np.ndarray:
    """On a bitonal page (0 ink, 255 paper): each target's share of interior points whose pixel is black.

    ``at`` is each target's ``(dx_px, dy_px)`` (the offset the local search chose). Points
    outside the image or in a skipped column are not black. A count, with no grey level in
    it: on such a page `score_targets`'s fill score and dark fraction of an oval or box are
    exactly this share (tests/test_kernel_bitonal.py), so a bitonal reader counting black
    pixels would read what the reader reads.
    """
    out = np.zeros(points.n_targets)
    for t in range(points.n_targets):
        xy = points.interior_xy[points.interior_ptr[t] : points.interior_ptr[t + 1]]
        if len(xy):
            v = sample_nearest(image, affine, xy, int(at[t, 0]), int(at[t, 1]), paper=255.0, skip_cols=skip_cols)
            out[t] = np.count_nonzero(v == 0) / len(xy)
    return out


def mark_components(small: np.ndarray, open_size: int):
    """Twin of `tabulate.kernels.mark_components`: the same steps written plainly (a flood fill for
    the components). Returns ``(lowest, highest, threshold, paper, stats)``."""
    hist = np.bincount(small.ravel(), minlength=256).astype(np.float64)
    scale = 1.0 / small.size
    mu = float(sum(i * hist[i] for i in range(256))) * scale
    mu1 = q1 = best = 0.0
    t = 0
    eps = float(np.finfo(np.float32).eps)
    for i in range(256):  # OpenCV's Otsu, step by step (its order of operations decides ties)
        p_i = hist[i] * scale
        mu1 *= q1
        q1 += p_i
        q2 = 1.0 - q1
        if min(q1, q2) < eps or max(q1, q2) > 1.0 - eps:
            continue
        mu1 = (mu1 + i * p_i) / q1
        mu2 = (mu - q1 * mu1) / q2
        sigma = q1 * q2 * (mu1 - mu2) ** 2
        if sigma > best:
            best, t = sigma, i
    ink = small <= t
    h = open_size // 2

    def square(a: np.ndarray, reduce) -> np.ndarray:
        rows, cols = a.shape
        return np.array(
            [
                [reduce(a[max(0, r - h) : r + h + 1, max(0, c - h) : c + h + 1]) for c in range(cols)]
                for r in range(rows)
            ],
            dtype=bool,
        )

    ink = square(square(ink, np.all), np.any)
    outside = small[~ink]
    paper = int(outside.sum(dtype=np.int64)) * (1.0 / outside.size) if outside.size else 0.0
    seen = np.zeros_like(ink)
    stats = []
    rows, cols = ink.shape
    for r0, c0 in zip(*np.nonzero(ink)):  # raster order: each component met at its first pixel
        if seen[r0, c0]:
            continue
        seen[r0, c0] = True
        todo, pixels = [(r0, c0)], []
        while todo:
            r, c = todo.pop()
            pixels.append((r, c))
            for rr in range(max(0, r - 1), min(rows, r + 2)):
                for cc in range(max(0, c - 1), min(cols, c + 2)):
                    if ink[rr, cc] and not seen[rr, cc]:
                        seen[rr, cc] = True
                        todo.append((rr, cc))
        rs, cs = [p[0] for p in pixels], [p[1] for p in pixels]
        stats.append((min(cs), min(rs), max(cs) - min(cs) + 1, max(rs) - min(rs) + 1, len(pixels)))
    return int(small.min()), int(small.max()), t, paper, np.array(stats, dtype=np.int64).reshape(-1, 5)


def refine_mark(box: np.ndarray, threshold: int, open_size: int, core: np.ndarray, paper: float) -> tuple:
    """Twin of `tabulate.kernels.refine_mark`, as a tuple in `MarkMeasures`' field order."""
    h = open_size // 2
    rows, cols = box.shape

    def square(a: np.ndarray, reduce) -> np.ndarray:
        return np.array(
            [
                [reduce(a[max(0, r - h) : r + h + 1, max(0, c - h) : c + h + 1]) for c in range(cols)]
                for r in range(rows)
            ],
            dtype=bool,
        ).reshape(rows, cols)

    dark = square(square(box <= threshold, np.all), np.any)
    rs, cs = np.nonzero(dark)
    if len(rs):
        left, top, width, height = cs.min(), rs.min(), cs.max() - cs.min() + 1, rs.max() - rs.min() + 1
    else:
        left, top, width, height = cols, rows, -cols, -rows
    ink = float(core.mean()) if core.size else float("nan")
    n25 = int(np.count_nonzero(box <= paper - 0.25 * (paper - ink)))
    n75 = int(np.count_nonzero(box <= paper - 0.75 * (paper - ink)))
    return (len(rs), int(cs.sum()), int(rs.sum()), int(left), int(top), int(width), int(height), ink, n25, n75)


#: As `tabulate.kernels._new_ink.NEW_DARK`.
NEW_DARK = 0.5


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
    reach: int,
) -> np.ndarray:
    """Reference for `tabulate.kernels.new_ink` (same arguments, same result)."""
    page_d = darkness(sample_nearest(image, affine, xy, paper=paper), paper, ink)
    printed = np.zeros(len(xy))
    for dr in range(-reach, reach + 1):
        for dc in range(-reach, reach + 1):
            v = sample_nearest(blank, blank_affine, xy, dc, dr, paper=blank_paper)
            # A window pixel off the blank is paper.
            printed = np.maximum(printed, darkness(v, blank_paper, blank_ink))
    printed[sample_nearest(blank, blank_affine, xy, paper=-1.0) < 0] = 0.0  # a point off the blank: unprinted
    extra = np.maximum(page_d - printed, 0.0)
    out = np.zeros((len(ptr) - 1, 2))
    for a in range(len(ptr) - 1):
        e = extra[ptr[a] : ptr[a + 1]]
        if len(e):
            out[a] = e.mean(), np.mean(e >= NEW_DARK)
    return out


def _bilinear(image: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``image`` sampled at continuous (x = column, y = row), 255 off the image."""
    padded = np.pad(image.astype(np.float64), 1, constant_values=255.0)
    c0, r0 = np.floor(x), np.floor(y)
    fx, fy = x - c0, y - r0
    # Index into the padded image; anything further off than one pixel is paper too.
    c = np.clip(c0.astype(np.int64) + 1, 0, padded.shape[1] - 2)
    r = np.clip(r0.astype(np.int64) + 1, 0, padded.shape[0] - 2)
    far = (c0 < -1) | (r0 < -1) | (c0 > image.shape[1] - 1) | (r0 > image.shape[0] - 1)
    v = (padded[r, c] * (1 - fx) + padded[r, c + 1] * fx) * (1 - fy) + (
        padded[r + 1, c] * (1 - fx) + padded[r + 1, c + 1] * fx
    ) * fy
    return np.where(far, 255.0, v)


def _climb(corr: np.ndarray) -> tuple[int, int]:
    """Uphill from the centre of ``corr``, each step to the best of the 3 x 3 around the current shift."""
    n = corr.shape[0]
    by = bx = n // 2
    while True:
        cy, cx = by, bx
        for dy in range(max(0, cy - 1), min(n, cy + 2)):
            for dx in range(max(0, cx - 1), min(n, cx + 2)):
                if corr[dy, dx] > corr[by, bx]:
                    by, bx = dy, dx
        if (by, bx) == (cy, cx):
            return by, bx


def match_anchors(
    image: np.ndarray, lin: np.ndarray, shifts: np.ndarray, patches: np.ndarray, m: int, *, climb: bool = False
) -> np.ndarray:
    """Reference for `tabulate.kernels.match_anchors` (same arguments, same result)."""
    n, p = patches.shape[0], patches.shape[1]
    size = p + 2 * m
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64)
    out = np.zeros((n, 3))
    for i in range(n):
        win = _bilinear(
            image, lin[0, 0] * xx + lin[0, 1] * yy + shifts[i, 0], lin[1, 0] * xx + lin[1, 1] * yy + shifts[i, 1]
        )
        tz = patches[i].astype(np.float64) - patches[i].mean()
        views = np.lib.stride_tricks.sliding_window_view(win, (p, p))  # (2m+1, 2m+1, p, p)
        num = np.einsum("abrc,rc->ab", views, tz)
        s, s2 = views.sum(axis=(2, 3)), (views * views).sum(axis=(2, 3))
        var = np.maximum(s2 - s * s / (p * p), 0.0)
        t_norm = float(np.sqrt((tz * tz).sum()))
        flat = (var <= np.minimum(0.5, 10.0 * 1.1920929e-07 * s2)) | (t_norm <= 0.0)
        corr = np.where(flat, 0.0, np.clip(num / (np.sqrt(np.where(flat, 1.0, var)) * max(t_norm, 1e-300)), -1, 1))
        by, bx = _climb(corr) if climb else np.unravel_index(int(np.argmax(corr)), corr.shape)
        fx = fy = 0.0
        if 0 < bx < corr.shape[1] - 1:
            a, b, c = corr[by, bx - 1], corr[by, bx], corr[by, bx + 1]
            fx = 0.5 * (a - c) / (a - 2 * b + c) if (a - 2 * b + c) else 0.0
        if 0 < by < corr.shape[0] - 1:
            a, b, c = corr[by - 1, bx], corr[by, bx], corr[by + 1, bx]
            fy = 0.5 * (a - c) / (a - 2 * b + c) if (a - 2 * b + c) else 0.0
        out[i] = bx + fx + p // 2, by + fy + p // 2, corr[by, bx]
    return out


def skew_sums(image: np.ndarray) -> tuple[float, float]:
    """Oracle of `tabulate.kernels.skew_sums`: OpenCV's Scharr gradients (float64) on every other pixel."""
    gx = cv2.Scharr(image, cv2.CV_64F, 1, 0)[::2, ::2]
    gy = cv2.Scharr(image, cv2.CV_64F, 0, 1)[::2, ::2]
    xy, d = gx * gy, gx * gx - gy * gy
    return float(np.sum(d * d - 4.0 * xy * xy)), float(np.sum(4.0 * xy * d))


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
    """Oracle of `tabulate.kernels.spread_runs`: a matrix product, a gather and two ``bincount`` passes."""
    px = xy @ affine[:, :2].T + affine[:, 2]
    c = np.clip(px[:, 0].astype(np.int64), 0, image.shape[1] - 1)
    r = np.clip(px[:, 1].astype(np.int64), 0, image.shape[0] - 1)
    dark = image[r, c] < threshold
    key = runs * (n_bands + 1) + band
    size = n_runs * (n_bands + 1)
    counts = np.bincount(key, minlength=size).reshape(n_runs, n_bands + 1)
    darks = np.bincount(key, weights=dark, minlength=size).reshape(n_runs, n_bands + 1)
    grown = np.zeros(n_runs)
    for b in range(1, n_bands + 1):
        n = counts[:, b]
        grown += np.where(n > 0, darks[:, b] / np.maximum(n, 1), 0.0)
    return grown, counts.sum(axis=1) > 0


def affine_fit(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Oracle of `tabulate.kernels.affine_fit`: the normal equations about the points' centre, by
    ``np.linalg.solve``; each point's residual by ``np.hypot``."""
    centre = p.mean(axis=0)
    a = np.column_stack([p - centre, np.ones(len(p))])
    sol = np.linalg.solve(a.T @ a, a.T @ q)  # (3, 2)
    fit = np.column_stack([sol[:2].T, sol[2] - centre @ sol[:2]])
    return fit, np.hypot(*(p @ fit[:, :2].T + fit[:, 2] - q).T)


def trim_refit(
    p: np.ndarray, q: np.ndarray, start: np.ndarray, floor: float, min_keep: int
) -> tuple[np.ndarray, np.ndarray]:
    """Oracle of `tabulate.kernels.trim_refit`: the points within ``max(3 x median, floor)`` of
    ``start`` refitted (all of them when fewer than ``min_keep``); the fit and the kept residuals."""
    res = np.hypot(*(p @ start[:, :2].T + start[:, 2] - q).T)
    keep = res <= max(3 * float(np.median(res)), floor)
    if keep.sum() < min_keep:
        keep[:] = True
    fit, kept = affine_fit(p[keep], q[keep])
    return fit, kept
