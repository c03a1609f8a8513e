"""The scanner's page transform and lens blur, done only where the page has something on it.

A 200-dpi page is ~4 M pixels, and most of a ballot is blank paper: a full
``warpAffine`` costs ~13 ms of CPU per page and the blur after it ~5 ms, most
of it spent moving white to white. `warp_and_blur` finds, from a min-map of
the page in small tiles, which output tiles can see any non-paper pixel
(through the inverse transform, widened by the interpolation's and the blur's
reach), and warps and blurs only runs of those tiles; every other output pixel
is paper (255), which is exactly what the full warp and blur give there.
Inside a processed run the result is the full warp's (the same matrix, shifted
to the run's origin), blurred with the same kernel.
"""

from __future__ import annotations

import cv2
import numpy as np

#: Granularity of the page's min-map (pixels of the page as printed).
_SRC_TILE = 16
#: Size of the output tiles whose runs are warped together.
_OUT_TILE = 64


def blur_kernel(sigma: float) -> int:
    """The odd Gaussian kernel size the scanner model uses for ``sigma`` (0: no blur)."""
    return 2 * int(np.ceil(2.5 * sigma)) + 1 if sigma > 0.05 else 0


def _ink_map(page: np.ndarray) -> np.ndarray:
    """Summed-area table of 'this source tile holds a pixel darker than paper'; ragged edges count as inked."""
    s = _SRC_TILE
    h, w = page.shape
    ny, nx = -(-h // s), -(-w // s)
    full = np.ones((ny, nx), np.uint8)
    hh, ww = h // s * s, w // s * s
    rows = page[:hh].reshape(hh // s, s, w).min(axis=1)[:, :ww]
    full[: hh // s, : ww // s] = rows.reshape(hh // s, ww // s, s).min(axis=2) < 255
    return cv2.integral(full)


def _needed_tiles(page: np.ndarray, inverse: np.ndarray, size: tuple[int, int], reach: float) -> np.ndarray:
    """(rows, cols) booleans: output tiles whose source footprint, widened by ``reach`` pixels, holds ink."""
    w, h = size
    t = _OUT_TILE
    ys, xs = np.arange(0, h, t, dtype=np.float64), np.arange(0, w, t, dtype=np.float64)
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    corners = []
    for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):
        cx = np.minimum(gx + dx * t, w)
        cy = np.minimum(gy + dy * t, h)
        corners.append((inverse[0, 0] * cx + inverse[0, 1] * cy + inverse[0, 2],
                        inverse[1, 0] * cx + inverse[1, 1] * cy + inverse[1, 2]))  # fmt: skip
    sx = np.stack([c[0] for c in corners])
    sy = np.stack([c[1] for c in corners])
    s = _SRC_TILE
    sat = _ink_map(page)
    ny, nx = sat.shape[0] - 1, sat.shape[1] - 1
    x0 = np.clip(np.floor((sx.min(axis=0) - reach) / s), 0, nx).astype(np.intp)
    x1 = np.clip(np.floor((sx.max(axis=0) + reach) / s) + 1, 0, nx).astype(np.intp)
    y0 = np.clip(np.floor((sy.min(axis=0) - reach) / s), 0, ny).astype(np.intp)
    y1 = np.clip(np.floor((sy.max(axis=0) + reach) / s) + 1, 0, ny).astype(np.intp)
    inked = sat[y1, x1] - sat[y0, x1] - sat[y1, x0] + sat[y0, x0]
    return (inked > 0) & (x1 > x0) & (y1 > y0)


def _runs(needed: np.ndarray) -> list[tuple[int, int, int]]:
    """(row, first, end) of every run of True tiles, row by row (one pass over the whole map)."""
    rows, cols = needed.shape
    padded = np.zeros((rows, cols + 2), np.int8)
    padded[:, 1:-1] = needed
    edges = np.flatnonzero(np.diff(padded.ravel()))  # a run never spans rows: each row has zero ends
    starts, ends = edges[::2], edges[1::2]
    r = starts // (cols + 2)
    return list(zip(r.tolist(), (starts - r * (cols + 2)).tolist(), (ends - r * (cols + 2)).tolist()))


def warp_and_blur(
    page: np.ndarray, matrix_cv: np.ndarray, size: tuple[int, int], blur_sigma: float, lut: np.ndarray | None = None
) -> np.ndarray:
    """``LUT(GaussianBlur(warpAffine(page, matrix_cv, size, INTER_LINEAR, border 255), sigma), lut)``, skipping paper.

    ``matrix_cv`` maps page pixels to image pixels in OpenCV's convention
    (pixel centres at integers); ``size`` is the image's (columns, rows).
    ``lut`` (the scanner's levels) must keep paper at 255: it is applied only
    where there is something besides paper.
    """
    w, h = size
    inverse = cv2.invertAffineTransform(matrix_cv)
    k = blur_kernel(blur_sigma)
    pad = k // 2
    # How far, in page pixels, an output pixel's value can reach: the blur's radius (scaled back
    # to the page), the bilinear neighbour and a pixel for rounding.
    scale = float(np.sqrt(abs(np.linalg.det(inverse[:, :2]))))
    reach = pad * scale + 2.0
    out = np.full((h, w), 255, np.uint8)
    needed = _needed_tiles(page, inverse, size, reach)
    t = _OUT_TILE
    for ty, a, b in _runs(needed):
        y0, y1 = ty * t, min(ty * t + t, h)
        x0, x1 = a * t, min(b * t, w)
        ox, oy = x0 - pad, y0 - pad
        shifted = inverse.copy()
        shifted[:, 2] += inverse[:, 0] * ox + inverse[:, 1] * oy
        block = cv2.warpAffine(
            page,
            shifted,
            (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=255,
        )
        if k:
            block = cv2.GaussianBlur(block, (k, k), blur_sigma, borderType=cv2.BORDER_REPLICATE)
        block = block[pad : pad + y1 - y0, pad : pad + x1 - x0]
        out[y0:y1, x0:x1] = cv2.LUT(block, lut) if lut is not None else block
    return out
