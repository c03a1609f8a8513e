"""The streak check stops early when no column can be a streak, and finds exactly what the full check finds."""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tabulate.detect.streaks import BAND_IN, STREAK_DARKNESS, _beside, _paper_rows, streak_columns, widened


def _full_check(image: np.ndarray, dpi: float, paper: float, ink: float, widen: int = 0) -> np.ndarray:
    """`streak_columns` as it was before the early stops: both bands, every column's paper beside it."""
    r0, r1 = (max(0, int(v * dpi)) for v in BAND_IN)
    first, last = _paper_rows(image, dpi, paper, ink)
    if r1 <= r0 or first + r1 >= last - r1:
        return np.zeros(image.shape[1], np.bool_)
    top = cv2.reduce(image[first + r0 : first + r1], 0, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[0]
    bottom = cv2.reduce(image[last - r1 : last - r0], 0, cv2.REDUCE_AVG, dtype=cv2.CV_32F)[0]

    def darker(band):
        beside = _beside(band, dpi)
        return band < beside - STREAK_DARKNESS * (beside - ink)

    return widened(darker(top) & darker(bottom), widen)


@settings(max_examples=120, deadline=None, derandomize=True)
@given(
    st.integers(0, 2**31 - 1),
    st.sampled_from([(255.0, 0.0), (236.0, 24.0), (200.0, 90.0)]),
    st.booleans(),  # bitonal (0/255) or grey with noise
    st.lists(st.integers(0, 299), max_size=4),  # streak columns
    st.integers(0, 60),  # how much darker a streak is (grey levels; small ones are no streak)
    st.booleans(),  # ink in the top band only (a clipped corner, a specks' row)
    st.floats(0.0, 40.0),  # uneven light: the paper's fall-off across the page
    st.integers(0, 2),
)
def test_the_early_stop_finds_what_the_full_check_finds(seed, levels, bitonal, cols, depth, top_ink, falloff, widen):
    rng = np.random.default_rng(seed)
    paper, ink = levels
    rows, width, dpi = 120, 300, 100.0
    light = paper - falloff * np.linspace(0.0, 1.0, width)[None, :]
    img = (light + rng.normal(0.0, 6.0, size=(rows, width))).clip(0, 255)
    for c in cols:
        img[:, c] -= depth
    if top_ink:
        img[:8, : rng.integers(1, 40)] = ink
    img = img.clip(0, 255).astype(np.uint8)
    if bitonal:
        img = np.where(img < (paper + ink) / 2, 0, 255).astype(np.uint8)
    got = streak_columns(img, dpi, paper, ink, widen=widen)
    assert np.array_equal(got, _full_check(img, dpi, paper, ink, widen))


def test_a_streak_dark_in_both_bands_is_still_found_and_plain_paper_has_none():
    img = np.full((300, 400), 255, np.uint8)
    assert not streak_columns(img, 100.0, 255.0, 0.0).any()
    img[:, 123] = 0  # dust on the glass: a black column down the whole bitonal page
    assert np.flatnonzero(streak_columns(img, 100.0, 255.0, 0.0)).tolist() == [123]
    img[200:, 123] = 255  # dark at the top only: ink, not a streak
    assert not streak_columns(img, 100.0, 255.0, 0.0).any()


def test_every_streak_depth_round_the_streak_level_is_judged_as_the_full_check_judges_it():
    # The early stop must not swallow a streak just dark enough to count (STREAK_DARKNESS of the
    # way from paper to ink), on light, dim and bitonal-level paper.
    for paper, ink in ((255.0, 0.0), (236.0, 24.0), (200.0, 90.0)):
        for depth in range(0, 80, 2):
            img = np.full((120, 300), int(paper), np.uint8)
            img[:, 100] = int(paper) - depth
            want = _full_check(img, 100.0, paper, ink)
            assert np.array_equal(streak_columns(img, 100.0, paper, ink), want), (paper, ink, depth)
            assert want[100] == (depth > STREAK_DARKNESS * (paper - ink))
