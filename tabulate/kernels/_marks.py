"""numba kernel: the registration-mark search of one subsampled corner window, in one call.

What `tabulate.detect.register` used to do with five OpenCV calls per corner
(min/max, Otsu threshold, opening, connected components with statistics,
masked mean), each cheap on a ~110 x 110 px window but each paying a call and,
with OpenCV's thread pool, a hand-off to another thread. The arithmetic is
OpenCV's, so the results are the same (tests compare the two):

* Otsu's threshold as OpenCV computes it for 8-bit images (the between-class
  variance in float64, walked from level 0 up, the first maximum kept);
* ink is ``value <= threshold`` (``THRESH_BINARY_INV``);
* the opening is an erosion then a dilation by a ``k x k`` square whose
  out-of-image neighbours are ignored (OpenCV's default border for both);
* components are 8-connected; each one's box and area; their order is the
  raster order of each component's first pixel;
* the paper level is the mean of the pixels outside the opened ink, as
  ``cv2.mean`` computes it (the integer sum times the reciprocal of the count).

The oracle twin is `tabulate.kernels.reference.mark_components`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: ``FLT_EPSILON``: OpenCV's Otsu skips a level where either class holds less than this share.
_FLT_EPSILON = 1.1920928955078125e-07


@njit(cache=True, nogil=True)
def _otsu(img):
    hist = np.zeros(256, np.int64)
    rows, cols = img.shape
    for r in range(rows):
        row = img[r]
        for c in range(cols):
            hist[row[c]] += 1
    scale = 1.0 / (rows * cols)
    mu = 0.0
    for i in range(256):
        mu += i * float(hist[i])
    mu *= scale
    mu1, q1, max_sigma, max_val = 0.0, 0.0, 0.0, 0
    for i in range(256):
        p_i = hist[i] * scale
        mu1 *= q1
        q1 += p_i
        q2 = 1.0 - q1
        if min(q1, q2) < _FLT_EPSILON or max(q1, q2) > 1.0 - _FLT_EPSILON:
            continue
        mu1 = (mu1 + i * p_i) / q1
        mu2 = (mu - q1 * mu1) / q2
        sigma = q1 * q2 * (mu1 - mu2) * (mu1 - mu2)
        if sigma > max_sigma:
            max_sigma = sigma
            max_val = i
    return max_val


@njit(cache=True, nogil=True)
def _erode(src, h):
    """Erosion (AND) of a 0/1 mask by a (2h+1)-square, out-of-image neighbours ignored.

    Separable, one shift at a time, each pass over whole rows taken as 1-D
    views: plain loops the compiler vectorises (a loop over each pixel's
    neighbours, or one test of erode/dilate inside the loop, ran 3-6x slower;
    2-D indexing in the passes, 2x slower than the row views).
    """
    rows, cols = src.shape
    a = src.copy()
    for r in range(rows):
        s, o = src[r], a[r]
        for d in range(1, h + 1):
            for c in range(cols - d):
                o[c + d] &= s[c]
            for c in range(cols - d):
                o[c] &= s[c + d]
    b = a.copy()
    for d in range(1, h + 1):
        for r in range(d, rows):
            o, s = b[r], a[r - d]
            for c in range(cols):
                o[c] &= s[c]
        for r in range(rows - d):
            o, s = b[r], a[r + d]
            for c in range(cols):
                o[c] &= s[c]
    return b


@njit(cache=True, nogil=True)
def _dilate(src, h):
    """Dilation (OR) of a 0/1 mask by a (2h+1)-square, out-of-image neighbours ignored (as `_erode`)."""
    rows, cols = src.shape
    a = src.copy()
    for r in range(rows):
        s, o = src[r], a[r]
        for d in range(1, h + 1):
            for c in range(cols - d):
                o[c + d] |= s[c]
            for c in range(cols - d):
                o[c] |= s[c + d]
    b = a.copy()
    for d in range(1, h + 1):
        for r in range(d, rows):
            o, s = b[r], a[r - d]
            for c in range(cols):
                o[c] |= s[c]
        for r in range(rows - d):
            o, s = b[r], a[r + d]
            for c in range(cols):
                o[c] |= s[c]
    return b


@njit(cache=True, nogil=True)
def _open(ink, k):
    """Opening of a 0/1 mask by a k x k square (OpenCV's ``MORPH_OPEN`` with its default border)."""
    return _dilate(_erode(ink, k // 2), k // 2)


@njit(cache=True, nogil=True)
def _root(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True, nogil=True)
def _components(ink):
    """(x, y, width, height, area) of each 8-connected component of nonzero pixels, in raster order."""
    rows, cols = ink.shape
    labels = np.zeros((rows, cols), np.int32)
    parent = np.empty(rows * cols // 2 + 2, np.int32)  # a new label needs a gap before the next one
    parent[0] = 0
    n = 1
    inked = np.zeros(rows, np.bool_)  # rows holding ink: the only ones the statistics pass visits
    for r in range(rows):
        row, row_labels = ink[r], labels[r]
        for c in range(cols):
            if row[c] == 0:
                continue
            inked[r] = True
            best = 0
            for dr, dc in ((-1, -1), (-1, 0), (-1, 1), (0, -1)):
                rr, cc = r + dr, c + dc
                if rr < 0 or cc < 0 or cc >= cols or labels[rr, cc] == 0:
                    continue
                lab = _root(parent, labels[rr, cc])
                if best == 0:
                    best = lab
                elif lab < best:
                    parent[best] = lab
                    best = lab
                elif lab > best:
                    parent[lab] = best
            if best == 0:
                parent[n] = n
                best = n
                n += 1
            row_labels[c] = best
    final = np.zeros(n, np.int32)
    k = 0
    for i in range(1, n):  # roots are the smallest label of their component: first-pixel order
        if _root(parent, i) == i:
            k += 1
            final[i] = k
    stats = np.zeros((k, 5), np.int64)
    stats[:, 0] = cols
    stats[:, 1] = rows
    stats[:, 2] = -1
    stats[:, 3] = -1
    for r in range(rows):
        if not inked[r]:
            continue
        row_labels = labels[r]
        for c in range(cols):
            if row_labels[c] == 0:
                continue
            j = final[_root(parent, row_labels[c])] - 1
            stats[j, 0] = min(stats[j, 0], c)
            stats[j, 1] = min(stats[j, 1], r)
            stats[j, 2] = max(stats[j, 2], c)
            stats[j, 3] = max(stats[j, 3], r)
            stats[j, 4] += 1
    for j in range(k):
        stats[j, 2] -= stats[j, 0] - 1
        stats[j, 3] -= stats[j, 1] - 1
    return stats


@njit(cache=True, nogil=True)
def mark_components_kernel(small, k):
    """(lowest, highest, threshold, paper, stats) of one subsampled corner window."""
    lo, hi = 255, 0
    rows, cols = small.shape
    for r in range(rows):
        row = small[r]
        for c in range(cols):
            v = row[c]
            lo = min(lo, v)
            hi = max(hi, v)
    t = _otsu(small)
    ink = np.empty((rows, cols), np.uint8)
    for r in range(rows):
        row, out = small[r], ink[r]
        for c in range(cols):
            out[c] = 1 if row[c] <= t else 0
    ink = _open(ink, k)
    total, count = 0, 0
    for r in range(rows):
        row, opened = small[r], ink[r]
        for c in range(cols):
            if opened[c] == 0:
                total += row[c]
                count += 1
    paper = total * (1.0 / count) if count else 0.0
    return int(lo), int(hi), t, paper, _components(ink)


@njit(cache=True, nogil=True)
def refine_mark_kernel(box, t, k, core, paper):
    """The full-resolution measures of one mark candidate (see `tabulate.kernels.refine_mark`)."""
    rows, cols = box.shape
    dark = np.empty((rows, cols), np.uint8)
    for r in range(rows):
        row, out = box[r], dark[r]
        for c in range(cols):
            out[c] = 1 if row[c] <= t else 0
    dark = _open(dark, k)
    m00, m10, m01 = 0, 0, 0
    top, left, bottom, right = rows, cols, -1, -1
    for r in range(rows):
        opened = dark[r]
        for c in range(cols):
            if opened[c]:
                m00 += 1
                m10 += c
                m01 += r
                top = min(top, r)
                bottom = max(bottom, r)
                left = min(left, c)
                right = max(right, c)
    total = 0
    for r in range(core.shape[0]):
        for c in range(core.shape[1]):
            total += core[r, c]
    ink = total / core.size if core.size else np.nan
    lvl25 = paper - 0.25 * (paper - ink)
    lvl75 = paper - 0.75 * (paper - ink)
    n25, n75 = 0, 0
    for r in range(rows):
        row = box[r]
        for c in range(cols):
            v = row[c]
            n25 += v <= lvl25
            n75 += v <= lvl75
    return m00, m10, m01, left, top, right - left + 1, bottom - top + 1, ink, n25, n75
