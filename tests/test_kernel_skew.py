"""The print-skew kernel agrees with its numpy twin (OpenCV's Scharr gradients) (issue #11).

Issue #11, Build 3: "Handle rotations of 0/90/180/270 degrees, skew up to 3
degrees"; the coarse fit starts from the skew of the page's own print
(`tabulate.templates.align.print_angle`), whose two sums are one compiled pass
(`tabulate.kernels.skew_sums`).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from tabulate.kernels import reference, skew_sums


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), h=st.integers(2, 41), w=st.integers(2, 41))
def test_kernel_agrees_with_its_numpy_twin_on_any_image_and_border(seed, h, w):
    image = np.random.default_rng(seed).integers(0, 256, (h, w), dtype=np.uint8)
    assert_allclose(skew_sums(image), reference.skew_sums(image), rtol=1e-12, atol=1e-6)
    ink_bright = 255.0 - image.astype(np.float32)  # a template's blank, as `pages` keeps it
    assert_allclose(skew_sums(ink_bright), reference.skew_sums(image), rtol=1e-12, atol=1e-6)


def test_a_page_too_small_for_a_gradient_is_refused():
    with pytest.raises(ValueError):
        skew_sums(np.zeros((1, 9), np.uint8))
    with pytest.raises(ValueError):
        skew_sums(np.zeros((9, 9), np.int16))
