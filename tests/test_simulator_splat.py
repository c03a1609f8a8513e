"""The scanner's forward-splatting transform (`tabulate.ballots._splat`) against OpenCV's bilinear warp."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tabulate.ballots._splat import finish, splat_darkness
from tabulate.ballots.scanner import ScanParams, scan_page, to_cv_matrix


def _page(seed: int = 5) -> np.ndarray:
    """A small page: paper, some print-like bars and text-like specks, one solid box, one light fill."""
    rng = np.random.default_rng(seed)
    page = np.full((300, 220), 255, np.uint8)
    for _ in range(40):
        r, c = rng.integers(5, 280), rng.integers(5, 200)
        page[r : r + rng.integers(1, 4), c : c + rng.integers(3, 15)] = rng.integers(0, 120)
    page[100:140, 60:120] = 0
    page[200:240, 120:180] = 190
    return page


def _splat(page: np.ndarray, matrix_cv: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    w, h = size
    out = np.zeros((h, w), np.uint8)
    splat_darkness(page, matrix_cv, 1.0, out)
    return 255 - out


@pytest.mark.parametrize(
    "deg, scale", [(0.0, 1.0), (0.8, 1.02), (-2.5, 0.98), (180.0, 1.0), (178.4, 1.01), (90.0, 1.0)]
)
def test_splat_agrees_with_bilinear_sampling(deg: float, scale: float) -> None:
    """Splatting each pixel's darkness forward is the adjoint of bilinear sampling: for scales near 1 the
    two images agree to a few grey levels at edges, and exactly on solid black and on paper."""
    page = _page()
    m = cv2.getRotationMatrix2D((110.0, 150.0), deg, scale)
    m[:, 2] += (7.3, -4.6)
    size = (240, 320)
    want = cv2.warpAffine(page, m, size, flags=cv2.INTER_LINEAR, borderValue=255).astype(int)
    got = _splat(page, m, size).astype(int)
    assert np.abs(got - want).mean() < 0.6
    inside = cv2.transform(np.array([[[90.0, 120.0]]]), m)[0, 0]  # the solid box's middle
    c, r = int(round(inside[0])), int(round(inside[1]))
    assert got[r, c] == 0 and want[r, c] == 0
    assert got[5, 235] == 255  # outside the page: the scanner's backing, paper


def test_splat_keeps_a_light_fill_s_tone() -> None:
    """A uniform light fill keeps its gray under a 2 % scale and a skew (the tent as wide as a page pixel:
    a unit-wide tent leaves a 2 % ripple here, up to 3 grey levels)."""
    page = np.full((200, 200), 255, np.uint8)
    page[40:160, 40:160] = 190
    m = cv2.getRotationMatrix2D((100.0, 100.0), 1.3, 1.02)
    got = _splat(page, m, (200, 200))
    assert np.abs(got[80:120, 80:120].astype(int) - 190).max() <= 1


def test_finish_is_tone_streak_noise_and_clip() -> None:
    rng = np.random.default_rng(11)
    dark = rng.integers(0, 256, (32, 40)).astype(np.uint8)
    tone = rng.integers(200, 256, (4, 40)).astype(np.uint8)  # every 8th row's tone: blended down the page
    streak = np.zeros(40, np.int16)
    streak[7:9] = -90
    streak[20] = 35
    noise = rng.integers(-6, 7, 32 * 40 + 50).astype(np.int8)
    out = np.empty((32, 40), np.uint8)
    finish(dark, tone, streak, noise, 17, out)
    # Row r sits at (r + 0.5) / 8 - 0.5 tone rows (pixel centres), its weight rounded to 1/256ths.
    fy = np.maximum((np.arange(32) + 0.5) * 4 / 32 - 0.5, 0)
    i0 = np.minimum(fy.astype(int), 3)
    f = np.floor((fy - i0) * 256 + 0.5).astype(np.int64)[:, None]
    t = (tone[i0].astype(np.int64) * (256 - f) + tone[np.minimum(i0 + 1, 3)].astype(np.int64) * f + 128) >> 8
    x = (255 - dark.astype(np.int64)) * t
    want = np.floor(x / 255 + 0.5).astype(np.int64) + streak[None, :] + noise[17 : 17 + 1280].reshape(32, 40)
    assert np.array_equal(out, np.clip(want, 0, 255).astype(np.uint8))
    assert np.array_equal(t[0], tone[0]) and np.array_equal(t[-1], tone[-1])  # the ends take the end rows


def test_scan_page_is_byte_identical_run_to_run() -> None:
    page = _page(9)
    p = ScanParams(
        rotation_deg=0.9,
        scale=1.01,
        shift_in=(0.02, -0.03),
        blur_sigma_px=0.9,
        noise_sd=2,
        noise_offset=777,
        paper=238.0,
        black=22.0,
        tone=0.03,
        tone_seed=4,
        streaks=((30, 2, -70),),
        overscan_in=0.05,
    )
    a, b = scan_page(page, p, dpi=200), scan_page(page.copy(), p, dpi=200)
    assert a.tobytes() == b.tobytes()
    assert a.shape == (320, 240)


def test_identity_scan_is_the_page() -> None:
    page = _page(3)
    assert np.array_equal(scan_page(page, ScanParams(noise_offset=5, tone_seed=9), dpi=200), page)
    assert to_cv_matrix(np.array([[1.0, 0, 0], [0, 1.0, 0]]))[0, 2] == 0.0


def _splat_reference(page: np.ndarray, m: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The splat written plainly: every non-paper pixel's darkness over its 3 x 3 tent, in float64."""
    w, h = size
    acc = np.zeros((h + 4, w + 4))
    inv = 1.0 / np.sqrt(abs(np.linalg.det(m[:, :2])))
    for r, c in zip(*np.nonzero(page != 255)):
        x, y = m[0, 0] * c + m[0, 1] * r + m[0, 2] + 2, m[1, 0] * c + m[1, 1] * r + m[1, 2] + 2
        xi, yi = int(np.floor(x + 0.5)), int(np.floor(y + 0.5))
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                wx = max(0.0, 1 - abs(x - xi - dx) * inv)
                wy = max(0.0, 1 - abs(y - yi - dy) * inv)
                acc[yi + dy, xi + dx] += (255 - int(page[r, c])) * wx * wy
    return np.minimum(np.floor(acc[2:-2, 2:-2] + 0.5), 255).astype(np.uint8)


@pytest.mark.parametrize("cols", [43, 48, 61])
def test_splat_skips_only_paper(cols: int) -> None:
    """The splat skips 8-byte words of paper: ink at every column (so at every offset within a word, on rows
    that start off a word's edge when the width is not a multiple of 8) still lands in the image."""
    rng = np.random.default_rng(cols)
    page = np.full((37, cols), 255, np.uint8)
    for c in range(cols):  # one inked pixel in each column, on a random row, some of them light
        page[rng.integers(0, 37), c] = rng.choice([0, 90, 200, 254])
    page[10, 3:40] = 0  # and a run across several words
    m = cv2.getRotationMatrix2D((cols / 2, 18.0), 1.7, 1.01)
    m[:, 2] += (4.2, 3.1)
    size = (cols + 10, 46)
    out = np.zeros((size[1], size[0]), np.uint8)
    splat_darkness(page, m, 1.0, out)
    want = _splat_reference(page, m, size)
    assert np.abs(out.astype(int) - want).max() <= 1
    assert out.astype(int).sum() > 0.99 * want.astype(int).sum()
