"""The paper's top and bottom edges are found a few rows at a time, exactly where a whole inch of rows finds them."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabulate.detect.streaks import _paper_rows


def _whole_inch(image: np.ndarray, dpi: float, paper: float, ink: float) -> tuple[int, int]:
    """The edges as the reader found them before: every row of the inch averaged at once."""
    rows = image.shape[0]
    n = min(rows // 2, int(1.0 * dpi))
    half = (paper + ink) / 2
    top = cv2.reduce(image[:n], 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[:, 0] > half
    bottom = cv2.reduce(image[rows - n :], 1, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[:, 0] > half
    first = int(np.argmax(top)) if top.any() else 0
    last = rows - int(np.argmax(bottom[::-1])) if bottom.any() else rows
    return first, last


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    st.integers(0, 140),  # rows of a scanner's black background above the paper
    st.integers(0, 140),  # and below it
    st.integers(0, 2**31 - 1),
    st.sampled_from([(255.0, 0.0), (236.0, 24.0), (200.0, 90.0)]),
    st.booleans(),  # a whole band of dark rows: no paper found within the inch
)
def test_edges_match_the_whole_inch(top, bottom, seed, levels, all_dark):
    rng = np.random.default_rng(seed)
    paper, ink = levels
    img = rng.normal(paper, 25.0, size=(400, 90)).clip(0, 255).astype(np.uint8)
    img[:top] = rng.integers(0, int(ink) + 40, size=(top, 90))
    if bottom:
        img[-bottom:] = rng.integers(0, int(ink) + 40, size=(bottom, 90))
    if all_dark:
        img[:150] = 5
    img[top : top + 3, :45] = 0  # a printed line near the edge: a row mean near the half level
    assert _paper_rows(img, 100.0, paper, ink) == _whole_inch(img, 100.0, paper, ink)


def test_a_page_cut_to_the_paper_is_paper_from_its_first_row():
    img = np.full((2200, 1700), 250, np.uint8)
    assert _paper_rows(img, 200.0, 250.0, 10.0) == (0, 2200)
    img[:37] = 0  # a black background above the paper, 37 rows
    img[-5:] = 0
    assert _paper_rows(img, 200.0, 250.0, 10.0) == (37, 2195)
