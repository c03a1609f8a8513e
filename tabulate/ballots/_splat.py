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
def _splat_row(row, words, start, r, m, gain, inv, h, w, ring) -> None:  # pragma: no cover
    """Spread one page row's darkness into ``ring`` (padded image row ``Y`` lives at ``ring[Y % len(ring)]``).

    ``words`` is the whole page seen as 8-byte words, ``start`` the row's first pixel in it: an aligned
    word of paper (all 255) is skipped whole, so the ~94 % of a page that is paper costs an eighth of a look.
    """
    n = ring.shape[0]
    bx = m[0, 1] * r + m[0, 2] + 2.0
    by = m[1, 1] * r + m[1, 2] + 2.0
    paper = np.uint64(0xFFFFFFFFFFFFFFFF)
    cols = row.shape[0]
    c = 0
    while c < cols:
        at = start + c
        if (at & 7) == 0 and c + 8 <= cols and (at >> 3) < words.shape[0] and words[at >> 3] == paper:
            c += 8
            continue
        v = row[c]
        if v == 255:
            c += 1
            continue
        x = m[0, 0] * c + bx
        y = m[1, 0] * c + by
        c += 1
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
        k = (yi - 1) % n  # one modulo a pixel, not three: the next rows wrap by a compare
        for j in range(3):
            dj = np.float32(d * max(0.0, 1.0 - abs(fy + 1.0 - j) * inv))
            ring[k, xi - 1] += dj * x0
            ring[k, xi] += dj * x1
            ring[k, xi + 1] += dj * x2
            k += 1
            if k == n:
                k = 0


@njit(cache=True, nogil=True)
def _flush(ring, y, out) -> None:  # pragma: no cover
    """Padded image row ``y`` is complete: round it into ``out`` (the margin is dropped) and clear its slot."""
    src = ring[y % ring.shape[0]]
    h, w = out.shape
    if 2 <= y < h + 2:
        orow = out[y - 2]
        for c in range(w):
            orow[c] = np.uint8(min(src[c + 2] + np.float32(0.5), np.float32(255.0)))
    src[:] = 0


@njit(cache=True, nogil=True)
def splat_darkness(page: np.ndarray, m: np.ndarray, gain: float, out: np.ndarray) -> None:  # pragma: no cover
    """``out`` (uint8) = ``gain * (255 - page)`` of every non-paper page pixel, moved to ``m @ (col, row, 1)``.

    ``m`` maps page pixel centres to image pixel centres (OpenCV's
    convention: centres at integers). The darkness is spread with a tent
    ``(1 - |dx| / s) (1 - |dy| / s)`` whose half-width ``s`` is the page pixel's
    size in the image (the transform's scale): tents that wide, one page
    pixel apart, add up to exactly one, so a solid region keeps its tone at
    any scale (a unit-width tent would leave a 2 % ripple, 50 px long, at a
    scale of 1.02). Each image pixel is the rounded float32 sum, capped at
    255.

    The sums are kept in a ring of image rows (with a two-pixel margin) only
    as deep as one page row spreads over (its skew) plus a few: page rows go
    down the image one after another, so an image row no later page row can
    reach is finished, rounded into ``out`` and its slot reused. A full-page
    float buffer (16 MB) would be written, zeroed and read back from memory;
    the ring stays in cache. Every pixel adds the same terms in the same
    order either way. A transform turned near 90 degrees keeps every row.
    """
    h, w = out.shape
    rows, cols = page.shape
    tall = h + 4
    s = np.sqrt(abs(m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]))
    inv = 1.0 / s
    step = m[1, 1]  # how far down the image the next page row starts
    spread = abs(m[1, 0]) * (cols - 1)  # how many image rows one page row crosses
    n = tall if abs(step) < 0.5 else min(tall, int(spread + abs(step)) + 16)
    ring = np.zeros((n, w + 4), np.float32)
    down = step > 0
    lo = min(0.0, m[1, 0] * (cols - 1))
    hi = max(0.0, m[1, 0] * (cols - 1))
    nxt = 0 if down else tall - 1  # the next image row to finish
    flat = page.reshape(-1)
    words = flat[: flat.shape[0] - flat.shape[0] % 8].view(np.uint64)
    for r in range(rows):
        _splat_row(page[r], words, r * cols, r, m, gain, inv, h, w, ring)
        if n == tall or r + 1 == rows:
            continue
        by = step * (r + 1) + m[1, 2] + 2.0  # where page row r + 1 starts, padded
        if down:  # rows above the next page row's first reach (less a margin) are done
            done = min(int(by + lo + 4096.5) - 4096 - 2, tall)
            while nxt < done:
                _flush(ring, nxt, out)
                nxt += 1
        else:  # a page fed upside down goes up the image
            done = max(int(by + hi + 4096.5) - 4096 + 2, -1)
            while nxt > done:
                _flush(ring, nxt, out)
                nxt -= 1
    if down or n == tall:
        for y in range(nxt if n != tall else 0, tall):
            _flush(ring, y, out)
    else:
        for y in range(nxt, -1, -1):
            _flush(ring, y, out)


#: `finish_thresholded`'s ``cut`` for a grey image (a real cut is -1 .. 255).
NO_CUT = -(1 << 15)


@njit(cache=True, nogil=True)
def finish(
    dark: np.ndarray, tone: np.ndarray, streak: np.ndarray, noise: np.ndarray, offset: int, out: np.ndarray
) -> None:  # pragma: no cover
    """`finish_thresholded` with no threshold: the grey image."""
    finish_thresholded(dark, tone, streak, noise, offset, out, NO_CUT)


@njit(cache=True, nogil=True)
def finish_thresholded(
    dark: np.ndarray, tone: np.ndarray, streak: np.ndarray, noise: np.ndarray, offset: int, out: np.ndarray, cut: int
) -> None:  # pragma: no cover
    """``out = clip(round((255 - dark) * t / 255) + streak[col] + noise[offset + i], 0, 255)``, then, unless
    ``cut`` is `NO_CUT`, 255 where that is above ``cut`` and 0 elsewhere (a bitonal scanner's threshold).

    ``tone`` is the paper's gray (uint8) at evenly spaced rows down the page,
    each as wide as the image; row ``r``'s ``t`` is the linear blend of the two
    nearest (pixel centres, as OpenCV's linear resize), its weight in 1/256ths,
    rounded: a full-size tone map cost a pass over 4 M pixels of its own.
    ``streak`` is a gray change per column (int16), ``noise`` rounded sensor
    noise (int8), read from ``offset`` in raster order.

    Every step is in 16-bit lanes, each result truncated to 16 bits so LLVM
    keeps the vector lanes narrow (numba widens small integers to 64 bits,
    which left 4 pixels a vector, not 16: twice the time). Nothing overflows:
    ``t0 g + t1 f + 128 <= 255 * 256 + 128``, ``(255 - d) t + 128 <= 65153``,
    and the signed sum stays within +-500. No branch in the inner loops (the
    threshold's test is the same for every pixel, so LLVM hoists it).
    """
    h, w = dark.shape
    hs = tone.shape[0]
    trow = np.empty(w, np.uint16)
    u8, c128 = np.uint16(8), np.uint16(128)
    for r in range(h):
        fy = max((r + 0.5) * hs / h - 0.5, 0.0)
        i0 = min(int(fy), hs - 1)
        fi = int((fy - i0) * 256.0 + 0.5)
        f, g = np.uint16(fi), np.uint16(256 - fi)
        t0 = tone[i0]
        t1 = tone[min(i0 + 1, hs - 1)]
        for c in range(w):
            trow[c] = np.uint16(np.uint16(np.uint16(t0[c]) * g) + np.uint16(np.uint16(t1[c]) * f) + c128) >> u8
        drow = dark[r]
        orow = out[r]
        nrow = noise[offset + r * w : offset + r * w + w]
        for c in range(w):
            x = np.uint16(np.uint16(np.uint16(255) - np.uint16(drow[c])) * trow[c]) + c128
            y = np.int16(np.uint16(x + (x >> u8)) >> u8)  # round(x / 255)
            v = np.int16(np.int16(y + streak[c]) + np.int16(nrow[c]))
            v = min(max(v, np.int16(0)), np.int16(255))
            if cut != NO_CUT:
                v = np.int16(255) if v > cut else np.int16(0)
            orow[c] = np.uint8(v)
