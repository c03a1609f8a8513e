"""The scanner's page transform by forward splatting, and its finishing pass (numba kernels).

A 200-dpi page is ~4 M pixels, and only ~6 % of a ballot page is anything but
blank paper (print and the voter's ink). Sampling every output pixel through
the inverse transform (``cv2.warpAffine``, bilinear) costs ~15 ms of CPU a
page whatever is on it; `splat_darkness` instead walks the page once and
spreads each non-paper pixel's *darkness* (255 - gray) over the image pixels
round where the transform puts it, with tent weights as wide as a page pixel
is in the image (bilinear splatting, the adjoint of bilinear sampling, with
the tent scaled so that a solid region keeps its tone at any scale). Paper
stays paper, and the image beyond the page (the scanner's backing) is paper
too.

`finish` then does in one pass what four full-page OpenCV calls did: the
paper's tone, dust streaks, sensor noise and a bitonal threshold.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def splat_darkness(page: np.ndarray, m: np.ndarray, gain: float, out: np.ndarray) -> None:  # pragma: no cover
    """Add ``gain * (255 - page)`` of every non-paper page pixel into ``out`` (float32) round ``m @ (col, row, 1)``.

    ``m`` maps page pixel centres to image pixel centres (OpenCV's
    convention: centres at integers). The darkness is spread with a tent
    ``(1 - |dx| / s) (1 - |dy| / s)`` whose half-width ``s`` is the page pixel's
    size in the image (the transform's scale): tents that wide, one page
    pixel apart, add up to exactly one, so a solid region keeps its tone at
    any scale (a unit-width tent would leave a 2 % ripple, 50 px long, at a
    scale of 1.02). ``out`` has a margin of two pixels on every side (image
    pixel (0, 0) is ``out[2, 2]``), so the writes need one bounds check.
    """
    h, w = out.shape[0] - 4, out.shape[1] - 4
    rows, cols = page.shape
    m00, m01, m02, m10, m11, m12 = m[0, 0], m[0, 1], m[0, 2], m[1, 0], m[1, 1], m[1, 2]
    s = np.sqrt(abs(m00 * m11 - m01 * m10))
    inv = 1.0 / s
    for r in range(rows):
        bx = m01 * r + m02 + 2.0
        by = m11 * r + m12 + 2.0
        row = page[r]
        for c in range(cols):
            v = row[c]
            if v == 255:
                continue
            x = m00 * c + bx
            y = m10 * c + by
            # The nearest pixel, without a call (|x| stays far below 4096 px): with s < 1.5 the tent
            # reaches only it and its two neighbours on each axis.
            xi = int(x + 4096.5) - 4096
            yi = int(y + 4096.5) - 4096
            if xi < 1 or yi < 1 or xi > w + 2 or yi > h + 2:
                continue
            fx = x - xi
            fy = y - yi
            x0 = np.float32(max(0.0, 1.0 - (1.0 + fx) * inv))
            x1 = np.float32(1.0 - abs(fx) * inv)
            x2 = np.float32(max(0.0, 1.0 - (1.0 - fx) * inv))
            d = gain * (255 - v)
            for j in range(3):
                dj = np.float32(d * max(0.0, 1.0 - abs(fy + 1.0 - j) * inv))
                orow = out[yi - 1 + j]
                orow[xi - 1] += dj * x0
                orow[xi] += dj * x1
                orow[xi + 1] += dj * x2


@njit(cache=True, nogil=True)
def to_uint8(dark: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """``out = min(255, round(dark[2:-2, 2:-2]))`` (darkness is never negative; the margin is dropped)."""
    h, w = out.shape
    for r in range(h):
        drow = dark[r + 2]
        orow = out[r]
        for c in range(w):
            orow[c] = np.uint8(min(drow[c + 2] + np.float32(0.5), np.float32(255.0)))


@njit(cache=True, nogil=True)
def finish(
    dark: np.ndarray, tone: np.ndarray, streak: np.ndarray, noise: np.ndarray, offset: int, out: np.ndarray
) -> None:  # pragma: no cover
    """``out = clip(round((255 - dark) * tone / 255) + streak[col] + noise[offset + i], 0, 255)``.

    ``tone`` is the paper's gray at each pixel (uint8), ``streak`` a gray
    change per column (int16), ``noise`` rounded sensor noise (int8), read
    from ``offset`` in raster order. All in int32, with no branch, so the
    loop vectorizes (a branchy version cost three times as much).
    """
    h, w = dark.shape
    for r in range(h):
        drow = dark[r]
        trow = tone[r]
        orow = out[r]
        nrow = noise[offset + r * w : offset + r * w + w]
        for c in range(w):
            x = (np.int32(255) - np.int32(drow[c])) * np.int32(trow[c]) + np.int32(128)
            v = ((x + (x >> np.int32(8))) >> np.int32(8)) + np.int32(streak[c]) + np.int32(nrow[c])  # round(x/255)
            orow[c] = np.uint8(min(max(v, np.int32(0)), np.int32(255)))
