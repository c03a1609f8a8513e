"""The print-spread kernel agrees with its numpy twin (issue #11).

Issue #11, Build 4: "Scores, marking areas, write-in ink ... must mean the same
as on our own ballots": a template page measures how far its print spreads past
the blank's (`tabulate.templates.spread`), so the marking area beside a name
(31 KAR 6:030 Section 3(1)(e), "next to the candidate's name") keeps clear of a
rough scan's fat letters; the bands' dark shares are one compiled pass
(`tabulate.kernels.spread_runs`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal

from tabulate.kernels import reference, spread_runs


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(0, 400), runs=st.integers(1, 9), bands=st.integers(1, 8))
def test_kernel_agrees_with_its_numpy_twin(seed, n, runs, bands):
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (rng.integers(5, 60), rng.integers(5, 60)), dtype=np.uint8)
    affine = np.array([[rng.uniform(5, 20), rng.uniform(-1, 1), rng.uniform(-5, 5)], [rng.uniform(-1, 1), 12.0, 3.0]])
    xy = rng.uniform(-0.5, 4.0, (n, 2))  # some points off the image: clipped to its edge
    band, run = rng.integers(0, bands + 1, n), rng.integers(0, runs, n)
    threshold = float(rng.uniform(0, 256))
    grown, filled = spread_runs(image, affine, xy, band, run, threshold, runs, bands)
    want_grown, want_filled = reference.spread_runs(image, affine, xy, band, run, threshold, runs, bands)
    assert_array_equal(filled, want_filled)
    np.testing.assert_allclose(grown, want_grown, rtol=1e-12, atol=0)


def test_a_point_outside_the_bands_is_refused():
    with pytest.raises(ValueError):
        spread_runs(np.zeros((4, 4), np.uint8), np.eye(2, 3), np.zeros((1, 2)), np.array([9]), np.array([0]), 1.0, 1, 8)
