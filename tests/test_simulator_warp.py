"""The scanner model's tiled transform and blur give the full-page operations' image (issue #17)."""

from __future__ import annotations

import cv2
import numpy as np

from tabulate.ballots._warp import _needed_tiles, blur_kernel, warp_and_blur


def _page() -> np.ndarray:
    """Paper with a few printed boxes and a grey fill, and wide blank margins."""
    page = np.full((400, 300), 255, np.uint8)
    cv2.rectangle(page, (40, 40), (120, 90), 0, 2)
    page[200:230, 150:200] = 140
    cv2.putText(page, "A", (60, 330), cv2.FONT_HERSHEY_SIMPLEX, 1.0, 20, 2)
    return page


def _full(page, matrix, size, sigma, lut):
    out = cv2.warpAffine(page, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=255)
    k = blur_kernel(sigma)
    out = cv2.GaussianBlur(out, (k, k), sigma) if k else out
    return cv2.LUT(out, lut)


def test_tiled_warp_matches_the_full_page_warp_blur_and_levels():
    page = _page()
    matrix = cv2.getRotationMatrix2D((150, 200), 2.7, 1.02)
    matrix[:, 2] += (12.0, 9.0)
    size = (330, 430)
    lut = np.clip(30 + (225 / 255) * np.arange(256), 0, 255).astype(np.uint8)
    for sigma in (0.0, 0.5, 1.2):
        want = _full(page, matrix, size, sigma, lut)
        got = warp_and_blur(page, matrix, size, sigma, lut)
        diff = np.abs(want.astype(int) - got)
        # OpenCV rounds the shifted matrix's fixed-point coordinates a hair differently: a grey level at most.
        assert diff.max() <= 1, sigma
        assert (diff > 0).mean() < 0.002, sigma
    needed = _needed_tiles(page, cv2.invertAffineTransform(matrix), size, 4.0)
    assert 0 < needed.mean() < 1  # blank paper was skipped, print was not


def test_a_blank_page_is_paper_everywhere():
    page = np.full((300, 200), 255, np.uint8)
    matrix = cv2.getRotationMatrix2D((100, 150), -1.5, 0.99)
    out = warp_and_blur(page, matrix, (220, 320), 1.0)
    assert out.shape == (320, 220) and (out == 255).all()
