"""numba kernels: a template page's affine fit to its anchors, and the trimming that drops wrong anchors.

The fit is least squares by the normal equations, the page points centred on
their mean so the 3 x 3 system stays well conditioned, solved by Gaussian
elimination with partial pivoting (what LAPACK's ``gesv`` does for a 3 x 3).
The trimming keeps the anchors within ``max(3 x median residual, floor)`` of a
starting fit (OpenCV's least-median-of-squares estimate, made by the caller)
and refits them; fewer than ``min_keep`` kept and every anchor is refitted.

Why compiled: a page's 6-18 anchors are fitted two to four times a page, and
the numpy way (a dozen small array calls and ``np.linalg.solve`` each time)
cost 0.2-0.35 ms a call in call overhead alone, for a few hundred flops. The
oracle twins are `tabulate.kernels.reference.affine_fit` and
`tabulate.kernels.reference.trim_refit` (the former numpy code); they agree to
rounding (sums in another order), not bit for bit.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _solve3(m, b, sol):
    """Solve ``m @ sol = b`` for a 3 x 3 ``m`` and 3 x 2 ``b`` in place (both are overwritten)."""
    for col in range(3):
        piv = col
        for r in range(col + 1, 3):
            if abs(m[r, col]) > abs(m[piv, col]):
                piv = r
        if piv != col:
            for c in range(3):
                m[col, c], m[piv, c] = m[piv, c], m[col, c]
            for c in range(2):
                b[col, c], b[piv, c] = b[piv, c], b[col, c]
        for r in range(col + 1, 3):
            f = m[r, col] / m[col, col]
            for c in range(col, 3):
                m[r, c] -= f * m[col, c]
            for c in range(2):
                b[r, c] -= f * b[col, c]
    for c in range(2):
        for r in range(2, -1, -1):
            v = b[r, c]
            for k in range(r + 1, 3):
                v -= m[r, k] * sol[k, c]
            sol[r, c] = v / m[r, r]


@njit(cache=True, nogil=True)
def affine_fit_kernel(p, q, keep, fit):
    """Least-squares affine ``fit`` (2 x 3, filled) of the rows of ``p`` -> ``q`` where ``keep``."""
    n = 0
    cx = 0.0
    cy = 0.0
    for i in range(p.shape[0]):
        if keep[i]:
            cx += p[i, 0]
            cy += p[i, 1]
            n += 1
    cx /= n
    cy /= n
    m = np.zeros((3, 3))
    b = np.zeros((3, 2))
    for i in range(p.shape[0]):
        if not keep[i]:
            continue
        dx, dy = p[i, 0] - cx, p[i, 1] - cy
        m[0, 0] += dx * dx
        m[0, 1] += dx * dy
        m[0, 2] += dx
        m[1, 1] += dy * dy
        m[1, 2] += dy
        for c in range(2):
            b[0, c] += dx * q[i, c]
            b[1, c] += dy * q[i, c]
            b[2, c] += q[i, c]
    m[1, 0], m[2, 0], m[2, 1], m[2, 2] = m[0, 1], m[0, 2], m[1, 2], float(n)
    sol = np.zeros((3, 2))
    _solve3(m, b, sol)
    for c in range(2):  # row c of the fit: image coordinate c
        fit[c, 0] = sol[0, c]
        fit[c, 1] = sol[1, c]
        fit[c, 2] = sol[2, c] - (cx * sol[0, c] + cy * sol[1, c])


@njit(cache=True, nogil=True)
def residuals_kernel(p, q, fit, res):
    """Each point's distance (pixels) from where ``fit`` puts it."""
    for i in range(p.shape[0]):
        ex = fit[0, 0] * p[i, 0] + fit[0, 1] * p[i, 1] + fit[0, 2] - q[i, 0]
        ey = fit[1, 0] * p[i, 0] + fit[1, 1] * p[i, 1] + fit[1, 2] - q[i, 1]
        res[i] = math.hypot(ex, ey)


@njit(cache=True, nogil=True)
def trim_refit_kernel(p, q, start, floor, min_keep, fit, keep, res):
    """Keep the points within ``max(3 x median residual, floor)`` of ``start``, refit them (every point
    when fewer than ``min_keep`` are kept) into ``fit``; ``res[:n]`` the kept points' residuals; returns n."""
    n = p.shape[0]
    all_res = np.empty(n)
    residuals_kernel(p, q, start, all_res)
    s = np.sort(all_res)
    h = n // 2
    med = s[h] if n % 2 else (s[h - 1] + s[h]) / 2
    limit = max(3 * med, floor)
    kept = 0
    for i in range(n):
        keep[i] = all_res[i] <= limit
        kept += keep[i]
    if kept < min_keep:
        keep[:] = True
        kept = n
    affine_fit_kernel(p, q, keep, fit)
    j = 0
    for i in range(n):
        if keep[i]:
            ex = fit[0, 0] * p[i, 0] + fit[0, 1] * p[i, 1] + fit[0, 2] - q[i, 0]
            ey = fit[1, 0] * p[i, 0] + fit[1, 1] * p[i, 1] + fit[1, 2] - q[i, 1]
            res[j] = math.hypot(ex, ey)
            j += 1
    return kept
