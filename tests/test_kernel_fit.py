"""The anchors' fit kernels agree with their numpy twins (issue #11).

Issue #11, Build 3: "Fit from what the template prints ... Report the residual and
refuse a page above it, as today." A page's affine fit to its anchors, and the
trimming that drops anchors found in the wrong place (`tabulate.templates.align.
trimmed_fit`), are compiled (`tabulate.kernels.affine_fit`, `trim_refit`); the
numpy code they replace is the oracle (`tabulate.kernels.reference`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from tabulate.kernels import affine_fit, reference, trim_refit
from tabulate.templates.align import trimmed_fit


def _anchors(seed: int, n: int, wrong: int):
    """``n`` anchors on a letter page (inches) and where a 200 DPI scan, skewed and scaled, shows them
    (pixels, a tenth of a pixel of noise), ``wrong`` of them found tens of pixels off."""
    rng = np.random.default_rng(seed)
    p = rng.uniform((0.3, 0.3), (8.2, 10.7), (n, 2))
    a = np.deg2rad(rng.uniform(-3, 3))
    s = 200.0 * rng.uniform(0.97, 1.03, 2)
    truth = np.array(
        [
            [s[0] * np.cos(a), -s[1] * np.sin(a), rng.uniform(-50, 50)],
            [s[0] * np.sin(a), s[1] * np.cos(a), rng.uniform(-50, 50)],
        ]
    )
    q = p @ truth[:, :2].T + truth[:, 2] + rng.normal(0, 0.1, (n, 2))
    q[:wrong] += rng.uniform(10, 40, (wrong, 2)) * rng.choice((-1, 1), (wrong, 2))
    return p, q, truth


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(3, 24))
def test_affine_fit_agrees_with_its_numpy_twin(seed, n):
    p, q, _truth = _anchors(seed, n, 0)
    fit, res = affine_fit(p, q)
    ref_fit, ref_res = reference.affine_fit(p, q)
    assert_allclose(fit, ref_fit, rtol=1e-10, atol=1e-9)
    assert_allclose(res, ref_res, rtol=1e-8, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(6, 24), wrong=st.integers(0, 5), floor=st.floats(0.5, 3.0))
def test_trim_refit_agrees_with_its_numpy_twin(seed, n, wrong, floor):
    p, q, truth = _anchors(seed, n, min(wrong, n // 2 - 1))
    start = truth + np.random.default_rng(seed).normal(0, 0.3, (2, 3)) * [[0.001, 0.001, 1], [0.001, 0.001, 1]]
    fit, kept = trim_refit(p, q, start, floor, 6)
    ref_fit, ref_kept = reference.trim_refit(p, q, start, floor, 6)
    assert kept.shape == ref_kept.shape
    assert_allclose(fit, ref_fit, rtol=1e-10, atol=1e-9)
    assert_allclose(kept, ref_kept, rtol=1e-8, atol=1e-9)


def test_the_trimmed_fit_drops_anchors_found_in_the_wrong_place():
    """Four of 18 anchors 10-40 px off: the fit keeps the 14 right ones and lands on the truth."""
    p, q, truth = _anchors(7, 18, 4)
    fit, kept = trimmed_fit(p, q, 1.2)
    assert len(kept) == 14 and kept.max() < 1.2
    corners = np.array([[0, 0, 1], [8.5, 11, 1], [8.5, 0, 1]]).T
    assert np.abs(fit @ corners - truth @ corners).max() < 0.5
    plain, _res = affine_fit(p, q)
    assert np.abs(plain @ corners - truth @ corners).max() > 2  # what the trimming saves


def test_too_few_kept_refits_every_anchor_and_bad_shapes_are_refused():
    """Four anchors on the start, one a pixel off, three 100 px off: the median is 0.55 px, so five are
    within max(3 x median, floor): under the six a fit needs, every anchor is refitted (as before)."""
    p, _q, truth = _anchors(3, 8, 0)
    q = p @ truth[:, :2].T + truth[:, 2]
    q[4] += (1.0, 0.0)
    q[5:] += (100.0, 0.0)
    fit, kept = trim_refit(p, q, truth, 1.0, 6)
    assert len(kept) == 8
    assert_allclose(fit, affine_fit(p, q)[0], atol=1e-9)
    assert len(trim_refit(p, q, truth, 1.0, 5)[1]) == 5  # five are enough when five are asked for
    with pytest.raises(ValueError):
        affine_fit(p[:2], q[:2])
    with pytest.raises(ValueError):
        trim_refit(p, q[:5], truth, 1.0, 6)
