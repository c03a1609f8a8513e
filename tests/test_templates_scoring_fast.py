"""The template reader's scoring-side fast paths give what the slow ones gave, to the bit (issue #11: a
template page at most 2x a native page): the scanner-background check counted on views of the image's
edges, the page's erasure bar by one sort instead of `np.median`, and the print spread's pixels read
without a branch (`tabulate.kernels.spread_runs`, against its numpy twin).

31 KAR 6:030 Section 3(3)(a): a mark the voter erased is not a vote; the erasure bar decides which
light residue goes to a person (`tabulate.templates.noise`), so its figure must not move by a bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from tabulate.detect.settings import DEFAULT_SETTINGS
from tabulate.election.model import Thresholds
from tabulate.kernels import N_FEATURES, F, reference, spread_runs
from tabulate.templates import background
from tabulate.templates.background import FRAME_DARK, FRAME_PX, paint_background
from tabulate.templates.noise import MIN_BLANK_TARGETS, NOISE_SIGMAS, RESIDUE_ABOVE_NOISE, erasure_floor, page_settings


def _frame_check_as_before(image: np.ndarray) -> bool:
    """The check as it was written before (the four strips copied into one array): a background to paint?"""
    f = FRAME_PX
    frame = np.concatenate([image[:f].ravel(), image[-f:].ravel(), image[:, :f].ravel(), image[:, -f:].ravel()])
    sample = image[::32, ::32].ravel()
    paper = float(np.partition(sample, int(0.75 * (len(sample) - 1)))[int(0.75 * (len(sample) - 1))])
    return not np.count_nonzero(frame < paper / 2) < FRAME_DARK * len(frame)


def _page(rng: np.random.Generator, shape: tuple[int, int], left: int, top: int) -> np.ndarray:
    """Paper with some print, a black scanner background ``left`` columns wide on the left and ``top`` rows
    deep on top (0: none)."""
    image = rng.integers(200, 250, shape).astype(np.uint8)
    image[rng.random(shape) < 0.02] = 20  # print
    image[:top] = rng.integers(0, 40, (top, shape[1]))
    image[:, :left] = rng.integers(0, 40, (shape[0], left))
    return image


@pytest.mark.parametrize(
    ("shape", "left", "top"),
    [((330, 255), 0, 0), ((330, 255), 40, 0), ((330, 255), 1, 0), ((330, 255), 0, 80), ((420, 255), 60, 70)],
)
def test_the_background_check_on_views_decides_as_the_copied_frame_did(shape, left, top):
    image = _page(np.random.default_rng(left * 1000 + top), shape, left, top)
    dark_at = float(np.partition(image[::32, ::32].ravel(), 0)[0])  # any level: the counts must agree
    for level in (dark_at, 60.0, 120.0, 255.0):
        f = FRAME_PX
        copied = np.concatenate([image[:f].ravel(), image[-f:].ravel(), image[:, :f].ravel(), image[:, -f:].ravel()])
        assert background._frame_dark(image, f, level) == np.count_nonzero(copied < level)
    painted = paint_background(image)
    assert (painted is not image) == (_frame_check_as_before(image) and left + top > 0)
    if _frame_check_as_before(image):
        assert painted[:, : max(left, 1)].min() > 100 or painted[: max(top, 1)].min() > 100


def test_the_frame_threshold_sits_where_a_quarter_of_the_frame_is_dark():
    # A dark band along one side covering just under or just over a quarter of the frame's pixels.
    h, w = 400, 300
    frame = 2 * FRAME_PX * (h + w)
    for rows, painted in ((int(FRAME_DARK * frame / (2 * FRAME_PX)) - 2, False), (h, True)):
        image = np.full((h, w), 230, np.uint8)
        image[:rows, :40] = 10  # a dark piece joined to the left edge, big enough to be background
        assert _frame_check_as_before(image) is painted
        assert (paint_background(image) is not image) is painted


def _features(rng: np.random.Generator, n: int) -> np.ndarray:
    f = np.zeros((n, N_FEATURES))
    f[:, F["score"]] = rng.uniform(0.0, 0.3, n)
    f[:, F["erasure"]] = rng.uniform(0.0, 0.2, n)
    return f


@pytest.mark.parametrize("n", [0, 5, MIN_BLANK_TARGETS, 7, 20, 25, 40])
def test_the_erasure_bar_is_numpys_median_to_the_bit(n):
    rng = np.random.default_rng(n)
    th = Thresholds(0.12, 0.3)
    for _ in range(20):
        feats = _features(rng, n)
        low = feats[feats[:, F["score"]] < th.marginal, F["erasure"]]
        if len(low) < MIN_BLANK_TARGETS:
            expected = 0.0
        else:
            med = float(np.median(low))
            expected = med + NOISE_SIGMAS * 1.4826 * float(np.median(np.abs(low - med))) + RESIDUE_ABOVE_NOISE
        assert erasure_floor(feats, th) == expected  # exactly: the bar is recorded to 4 places and compared
        page = page_settings(feats, th, DEFAULT_SETTINGS)
        assert page.erased == (round(expected, 4) if expected > DEFAULT_SETTINGS.erased else DEFAULT_SETTINGS.erased)


def test_ties_and_repeated_values_give_numpys_median():
    th = Thresholds(0.12, 0.3)
    for values in ([0.05] * 8, [0.0, 0.0, 0.1, 0.1, 0.1, 0.2], [0.3, 0.1, 0.2, 0.1, 0.3, 0.2, 0.1]):
        feats = np.zeros((len(values), N_FEATURES))
        feats[:, F["erasure"]] = values
        low = np.array(values)
        med = float(np.median(low))
        assert erasure_floor(feats, th) == med + NOISE_SIGMAS * 1.4826 * float(np.median(np.abs(low - med))) + (
            RESIDUE_ABOVE_NOISE
        )


def test_the_spread_kernel_equals_its_twin_on_a_page_sized_image():
    # A page's worth of band points at random over a 300 DPI letter page: the counts are integers and each
    # run's shares are summed band by band in one order, so the sums agree to the bit.
    rng = np.random.default_rng(2026)
    image = rng.integers(0, 256, (3300, 2550), dtype=np.uint8)
    affine = np.array([[299.1, 1.3, 12.0], [-1.2, 300.4, -7.5]])
    n = 9600
    xy = np.column_stack([rng.uniform(-0.1, 8.6, n), rng.uniform(-0.1, 11.1, n)])
    band, runs = rng.integers(0, 9, n), rng.integers(0, 9, n)
    for threshold in (0.0, 60.5, 128.0, 256.0):
        grown, filled = spread_runs(image, affine, xy, band, runs, threshold, 9, 8)
        want_grown, want_filled = reference.spread_runs(image, affine, xy, band, runs, threshold, 9, 8)
        assert np.array_equal(filled, want_filled)
        assert np.array_equal(grown, want_grown)
