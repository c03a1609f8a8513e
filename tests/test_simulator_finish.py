"""The scanner model's blur over inked bands and its 16-bit finishing pass, against the plain full-page
operations they replace (byte for byte: a simulated image must not depend on how it was computed)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tabulate.ballots._splat import NO_CUT, finish, finish_thresholded, splat_darkness
from tabulate.ballots.scanner import (
    BLUR_BAND,
    ScanParams,
    _blur_inked,
    _noise_pool,
    _tone_rows,
    blur_kernel,
    scan_page,
    to_cv_matrix,
)


def _sparse_dark(seed: int, h: int = 420, w: int = 300) -> np.ndarray:
    """Darkness as the splat leaves it: mostly 0, ink in patches, some at the image's very edges and some
    just either side of a band boundary, with blank bands between."""
    rng = np.random.default_rng(seed)
    dark = np.zeros((h, w), np.uint8)
    for r0, c0 in [(0, 0), (h - 3, w - 5), (BLUR_BAND - 1, 40), (BLUR_BAND + 1, w - 30), (3 * BLUR_BAND, 150)]:
        dark[r0 : r0 + 3, c0 : c0 + 5] = rng.integers(1, 256, (min(3, h - r0), min(5, w - c0)))
    for _ in range(12):
        r, c = int(rng.integers(0, h - 4)), int(rng.integers(0, w - 9))
        if 2 * BLUR_BAND - 10 <= r <= 2 * BLUR_BAND + 40:  # leave a blank band to be skipped
            continue
        dark[r : r + 4, c : c + 9] = rng.integers(0, 256, (4, 9))
    return dark


@pytest.mark.parametrize("sigma", [0.2, 0.4, 0.9, 1.6])
@pytest.mark.parametrize("seed", [1, 2])
def test_blur_of_the_inked_bands_is_the_whole_page_blur(sigma: float, seed: int) -> None:
    dark = _sparse_dark(seed)
    k = blur_kernel(sigma)
    want = cv2.GaussianBlur(dark, (k, k), sigma)
    got = _blur_inked(dark, k, sigma)
    assert np.abs(got.astype(int) - want.astype(int)).max() == 0
    assert want[2 * BLUR_BAND + 5 : 2 * BLUR_BAND + 20].max() == 0  # there was a blank band to skip


def test_blur_of_a_blank_page_is_blank() -> None:
    dark = np.zeros((300, 200), np.uint8)
    assert not _blur_inked(dark, 5, 1.0).any()


@pytest.mark.parametrize("threshold", [0.0, 99.5, 128.0, 128.99, 254.2])
def test_fused_threshold_is_opencv_s_binary_threshold(threshold: float) -> None:
    rng = np.random.default_rng(7)
    dark = rng.integers(0, 256, (24, 70)).astype(np.uint8)
    tone = rng.integers(150, 256, (3, 70)).astype(np.uint8)
    streak = np.zeros(70, np.int16)
    streak[5:8] = -100
    noise = rng.integers(-8, 9, 24 * 70 + 40).astype(np.int8)
    grey = np.empty((24, 70), np.uint8)
    finish(dark, tone, streak, noise, 3, grey)
    cut = int(np.floor(threshold))
    out = np.empty((24, 70), np.uint8)
    finish_thresholded(dark, tone, streak, noise, 3, out, cut)
    assert np.array_equal(out, cv2.threshold(grey, threshold, 255, cv2.THRESH_BINARY)[1])
    assert cut != NO_CUT


def test_finish_in_16_bits_does_not_overflow_at_the_extremes() -> None:
    """Full darkness and none, the brightest and darkest tone, three overlapping dark streaks and a bright
    one, the noise's whole int8 range: each pixel is the formula's value computed in plain integers."""
    dark = np.array([[0, 255, 0, 255, 128, 1], [255, 0, 0, 0, 254, 0]], np.uint8)
    tone = np.array([[255, 255, 0, 255, 255, 255], [255, 0, 255, 255, 1, 128]], np.uint8)
    streak = np.array([0, -330, 120, 120, 0, -1], np.int16)
    noise = np.array([127, -128, 127, -127, 5, -5, -128, 127, 127, 0, 0, 0], np.int8)
    out = np.empty((2, 6), np.uint8)
    finish(dark, tone, streak, noise, 0, out)
    # With two image rows and two tone rows each image row takes its own tone row (weights 0 and 256).
    x = (255 - dark.astype(np.int64)) * tone.astype(np.int64)
    want = np.floor(x / 255 + 0.5).astype(np.int64) + streak[None, :] + noise.reshape(2, 6)
    assert np.array_equal(out, np.clip(want, 0, 255).astype(np.uint8))


@pytest.mark.parametrize("bitonal", [False, True])
def test_scan_page_is_the_plain_full_page_passes(bitonal: bool) -> None:
    """`scan_page` (banded blur, 16-bit finish, fused threshold) against the passes it stands for, each over
    the whole page: the splat, OpenCV's blur, the finishing formula in plain integers, OpenCV's threshold.
    The largest difference per pixel must be 0 (no simulated image may change with how it is computed)."""
    rng = np.random.default_rng(3)
    page = np.full((260, 200), 255, np.uint8)
    page[20:24, 10:190] = 0  # a rule across the page, then print-like specks; rows 120-200 stay blank
    for _ in range(30):
        r, c = int(rng.integers(30, 110)), int(rng.integers(5, 185))
        page[r : r + 3, c : c + 10] = rng.integers(0, 200)
    page[215:240, 40:90] = 60
    p = ScanParams(
        rotation_deg=1.3,
        scale=0.99,
        shift_in=(0.03, 0.01),
        blur_sigma_px=1.1,
        noise_sd=2,
        noise_offset=4242,
        paper=236.0,
        black=25.0,
        tone=0.04,
        tone_seed=9,
        streaks=((44, 2, -80), (150, 1, 30)),
        bitonal=bitonal,
        threshold=141.7 if bitonal else None,
        overscan_in=0.05,
    )
    got = scan_page(page, p, dpi=200)
    w, h = p.image_size(1.0, 1.3, 200)
    m = p.page_to_image(1.0, 1.3, 200)
    m[:, :2] /= 200
    dark = np.zeros((h, w), np.uint8)
    splat_darkness(page, to_cv_matrix(m), (255.0 - p.black) / 255.0, dark)
    k = blur_kernel(p.blur_sigma_px)
    dark = cv2.GaussianBlur(dark, (k, k), p.blur_sigma_px).astype(np.int64)
    tone = _tone_rows((h, w), p).astype(np.int64)
    hs = tone.shape[0]
    fy = np.maximum((np.arange(h) + 0.5) * hs / h - 0.5, 0)
    i0 = np.minimum(fy.astype(int), hs - 1)
    f = np.floor((fy - i0) * 256 + 0.5).astype(np.int64)[:, None]
    t = (tone[i0] * (256 - f) + tone[np.minimum(i0 + 1, hs - 1)] * f + 128) >> 8
    streak = np.zeros(w, np.int64)
    for col, width, delta in p.streaks:
        streak[col : col + width] += delta
    noise = _noise_pool(p.noise_sd, h * w)[p.noise_offset : p.noise_offset + h * w].reshape(h, w)
    want = np.clip(np.floor((255 - dark) * t / 255 + 0.5).astype(np.int64) + streak + noise, 0, 255).astype(np.uint8)
    if bitonal:
        want = cv2.threshold(want, 141.7, 255, cv2.THRESH_BINARY)[1]
    assert np.abs(got.astype(int) - want.astype(int)).max() == 0
