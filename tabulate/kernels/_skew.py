"""numba kernel: the two sums a page's print skew is read from, in one pass over every other pixel.

For each pixel on the even rows and columns, Scharr's gradient (gx, gy) (OpenCV's
``cv2.Scharr`` kernels, the border reflected as OpenCV's default
``BORDER_REFLECT_101``) gives ``|g|^4 cos(4 theta)`` and ``|g|^4 sin(4 theta)``
without a trigonometric call: with ``d = gx^2 - gy^2``, ``d^2 - 4 (gx gy)^2``
and ``4 gx gy d``. The gradients are whole numbers and the sums float64, so
the result does not depend on the order of summation beyond rounding.
Replaces two ``cv2.Scharr`` calls and a dozen numpy passes over the
gradients (mostly allocation). The oracle twin is
`tabulate.kernels.reference.skew_sums`.
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True, inline="always")
def _reflect(i, n):
    if i < 0:
        return 1 if n > 1 else 0
    if i >= n:
        return n - 2 if n > 1 else 0
    return i


@njit(cache=True, nogil=True)
def skew_sums_kernel(image):
    """``(sum |g|^4 cos 4 theta, sum |g|^4 sin 4 theta)`` over the even rows and columns of ``image``."""
    h, w = image.shape
    c_sum = 0.0
    s_sum = 0.0
    for r in range(0, h, 2):
        r0, r2 = _reflect(r - 1, h), _reflect(r + 1, h)
        for c in range(0, w, 2):
            c0, c2 = _reflect(c - 1, w), _reflect(c + 1, w)
            a00, a01, a02 = float(image[r0, c0]), float(image[r0, c]), float(image[r0, c2])
            a10, a12 = float(image[r, c0]), float(image[r, c2])
            a20, a21, a22 = float(image[r2, c0]), float(image[r2, c]), float(image[r2, c2])
            gx = 3.0 * (a02 - a00) + 10.0 * (a12 - a10) + 3.0 * (a22 - a20)
            gy = 3.0 * (a20 - a00) + 10.0 * (a21 - a01) + 3.0 * (a22 - a02)
            xy = gx * gy
            d = gx * gx - gy * gy
            c_sum += d * d - 4.0 * xy * xy
            s_sum += 4.0 * xy * d
    return c_sum, s_sum
