"""The anchor-search kernel agrees with its numpy twin and with OpenCV, and finds a shifted anchor (issue #11).

Issue #11, Build 3: "Registration without our corner squares. Fit from what
the template prints ... Report the residual and refuse a page above it"; the
fit is made from anchors found by normalised cross-correlation, now all of a
page's anchors in one compiled call (`tabulate.kernels.match_anchors`).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from tabulate.kernels import match_anchors, reference


def _print(seed: int, shape=(160, 200)) -> np.ndarray:
    """A page of blurred random print (ink dark on paper), textured in both directions."""
    rng = np.random.default_rng(seed)
    img = np.full(shape, 235, np.uint8)
    for _ in range(40):
        x, y = (int(v) for v in rng.integers(0, (shape[1], shape[0])))
        cv2.rectangle(img, (x, y), (x + int(rng.integers(2, 12)), y + int(rng.integers(2, 12))), 30, -1)
    return cv2.GaussianBlur(img, (0, 0), 1.0)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    angle=st.floats(-3.0, 3.0),
    scale=st.floats(0.97, 1.03),
    p=st.sampled_from([3, 7, 11]),
    m=st.integers(1, 4),
    climb=st.booleans(),
)
def test_kernel_agrees_with_its_numpy_twin(seed, angle, scale, p, m, climb):
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (60, 70), dtype=np.uint8)
    patches = rng.integers(0, 256, (int(rng.integers(1, 5)), p, p), dtype=np.uint8)
    patches[0] = 128  # a flat patch correlates 0 everywhere
    t = np.radians(angle)
    lin = scale * np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    # Windows on the image, across its edges and wholly off it (paper there).
    shifts = rng.uniform(-30.0, 90.0, (len(patches), 2))
    fast = match_anchors(image, lin, shifts, patches, m, climb=climb)
    slow = reference.match_anchors(image, lin, shifts, patches, m, climb=climb)
    assert fast.shape == (len(patches), 3)
    assert_allclose(fast, slow, rtol=1e-9, atol=1e-9)


def test_the_same_as_opencv_warp_and_match_template():
    image = _print(1)
    patches = np.stack([image[40:61, 50:71], image[90:111, 120:141]])
    lin = np.array([[1.0, 0.0], [0.0, 1.0]])
    m = 4
    shifts = np.array([[50.0 - m - 2, 40.0 - m + 1], [120.0 - m + 3, 90.0 - m]])  # window corners
    got = match_anchors(image, lin, shifts, patches, m)
    for i, patch in enumerate(patches):
        t2i = np.column_stack([lin, shifts[i]])
        win = cv2.warpAffine(
            image, t2i, (21 + 2 * m, 21 + 2 * m), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=255
        )
        corr = cv2.matchTemplate(win, patch, cv2.TM_CCOEFF_NORMED)
        _mn, best, _lo, (bx, by) = cv2.minMaxLoc(corr)
        assert (round(got[i, 0]) - 10, round(got[i, 1]) - 10) == (bx, by)
        assert got[i, 2] == pytest.approx(best, abs=1e-4)
    # Each patch was cut where the window's centre plus the shift it was placed off by puts it.
    assert_allclose(got[:, 0], [10 + m + 2, 10 + m - 3], atol=0.1)  # the parabola leans on a skew peak
    assert_allclose(got[:, 1], [10 + m - 1, 10 + m], atol=0.1)
    assert got[:, 2] == pytest.approx([1.0, 1.0], abs=1e-6)


def test_climbing_finds_a_single_peak_the_whole_search_finds():
    image = _print(2)
    patch = np.ascontiguousarray(image[60:91, 70:101])
    for dx, dy in ((0, 0), (2, -1), (-3, 3)):
        shifts = np.array([[70.0 - 3 - dx, 60.0 - 3 - dy]])  # the patch's true place is dx, dy off the centre
        whole = match_anchors(image, np.eye(2), shifts, patch[None], 3)
        climbed = match_anchors(image, np.eye(2), shifts, patch[None], 3, climb=True)
        assert_allclose(climbed, whole)
        assert (round(whole[0, 0]) - 15 - 3, round(whole[0, 1]) - 15 - 3) == (dx, dy)


def test_bad_arguments_are_refused():
    img = np.zeros((10, 10), np.uint8)
    with pytest.raises(ValueError, match="P odd"):
        match_anchors(img, np.eye(2), np.zeros((1, 2)), np.zeros((1, 4, 4), np.uint8), 1)
    with pytest.raises(ValueError, match="shifts"):
        match_anchors(img, np.eye(2), np.zeros((2, 2)), np.zeros((1, 3, 3), np.uint8), 1)
    with pytest.raises(ValueError, match="m must"):
        match_anchors(img, np.eye(2), np.zeros((1, 2)), np.zeros((1, 3, 3), np.uint8), 0)
