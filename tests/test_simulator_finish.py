"""The scanner model's blur over inked bands and its 16-bit finishing pass, against the plain full-page
operations they replace (byte for byte: a simulated image must not depend on how it was computed)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tabulate.ballots._splat import NO_CUT, finish, finish_thresholded
from tabulate.ballots.scanner import BLUR_BAND, _blur_inked, blur_kernel


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
