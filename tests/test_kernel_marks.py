"""The registration-mark kernels agree with their numpy twins and with the OpenCV calls they replace."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tabulate.kernels import mark_components, reference, refine_mark

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def _opencv(small: np.ndarray, k: int) -> tuple:
    """What `tabulate.detect.register` computed with OpenCV before the kernel (the first oracle)."""
    lo, hi, _, _ = cv2.minMaxLoc(small)
    t, ink = cv2.threshold(small, 0, 255, cv2.THRESH_BINARY_INV | cv2.THRESH_OTSU)
    ink = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    _n, _labels, stats, _c = cv2.connectedComponentsWithStatsWithAlgorithm(ink, 8, cv2.CV_32S, cv2.CCL_GRANA)
    paper = cv2.mean(small, mask=cv2.bitwise_not(ink))[0]
    return int(lo), int(hi), int(t), paper, sorted(map(tuple, stats[1:].tolist()))


@st.composite
def windows(draw) -> np.ndarray:
    """Small grey windows: paper with dark squares and specks, or noise."""
    h, w = draw(st.integers(1, 40)), draw(st.integers(1, 40))
    if draw(st.booleans()):
        return draw(arrays(np.uint8, (h, w)))
    img = np.full((h, w), draw(st.integers(120, 255)), np.uint8)
    for _ in range(draw(st.integers(0, 4))):
        r, c = draw(st.integers(0, h - 1)), draw(st.integers(0, w - 1))
        img[r : r + draw(st.integers(1, 15)), c : c + draw(st.integers(1, 15))] = draw(st.integers(0, 110))
    return img


@SETTINGS
@given(windows(), st.sampled_from([3, 5]))
def test_mark_components_matches_opencv_and_its_twin(small, k):
    found = mark_components(small, k)
    fields = (found.lowest, found.highest, found.threshold, found.paper)
    assert fields + (sorted(map(tuple, found.stats.tolist())),) == _opencv(small, k)
    lo, hi, t, paper, stats = reference.mark_components(small, k)
    assert (lo, hi, t, paper) == fields
    assert stats.tolist() == found.stats.tolist()  # the same raster order too


def test_components_come_in_raster_order_of_their_first_pixel():
    img = np.full((30, 30), 240, np.uint8)
    img[20:26, 2:8] = 10  # lower, further left
    img[3:9, 15:21] = 10  # higher: first
    found = mark_components(img, 3)
    assert found.stats.tolist() == [[15, 3, 6, 6, 36], [2, 20, 6, 6, 36]]
    assert found.threshold < 240 and found.paper == 240.0


@SETTINGS
@given(windows(), st.sampled_from([3, 5]), st.integers(0, 255), st.floats(100.0, 255.0))
def test_refine_mark_matches_its_twin_and_opencv(box, k, t, paper):
    core = box[
        box.shape[0] // 4 : box.shape[0] - box.shape[0] // 4, box.shape[1] // 4 : box.shape[1] - box.shape[1] // 4
    ]
    m = refine_mark(box, t, k, core, paper)
    twin = reference.refine_mark(box, t, k, core, paper)
    got = (m.area, m.sum_col, m.sum_row, m.left, m.top, m.width, m.height, m.ink, m.n25, m.n75)
    assert got[:7] == twin[:7] and got[8:] == twin[8:]
    assert got[7] == twin[7] or (np.isnan(got[7]) and np.isnan(twin[7]))
    dark = cv2.morphologyEx((box <= t).astype(np.uint8), cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    moments = cv2.moments(dark, binaryImage=True)
    assert (m.area, m.sum_col, m.sum_row) == (moments["m00"], moments["m10"], moments["m01"])
    if m.area:
        assert (m.left, m.top, m.width, m.height) == cv2.boundingRect(dark)


def test_wrappers_check_their_inputs():
    with pytest.raises(ValueError, match="uint8"):
        mark_components(np.zeros((4, 4), np.float32), 3)
    with pytest.raises(ValueError, match="odd"):
        mark_components(np.zeros((4, 4), np.uint8), 4)
    with pytest.raises(ValueError, match="core"):
        refine_mark(np.zeros((4, 4), np.uint8), 10, 3, np.zeros(3, np.uint8), 200.0)


def test_warm_loads_the_signatures_a_real_page_uses():
    """`warm` (run in the scan's forkserver) must load what reading a page calls, or every worker
    would still load (or compile) the kernels on its first sheet."""
    from test_detect_support import election, page_image

    from tabulate.detect import read_image
    from tabulate.kernels import _marks, _targets, warm

    kernels = (_marks.mark_components_kernel, _marks.refine_mark_kernel, _targets.score_targets_kernel)
    warm()
    after_warm = [set(k.signatures) for k in kernels]
    assert all(after_warm)
    assert read_image(election(), page_image()).ok
    assert [set(k.signatures) for k in kernels] == after_warm
