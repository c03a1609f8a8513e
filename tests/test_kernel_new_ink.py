"""The new-ink kernel agrees with its numpy twin, and a printed outline is not new ink (issue #11).

Issue #11, Build 4: "Score new ink against the template: a printed oval
outline is not a mark. Use the kernels' conventions: a numba kernel with a
numpy twin as its oracle."
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from tabulate.kernels import new_ink, reference

DPI = 100.0


def _grid(rects: list[tuple[float, float, float, float]], step: float = 0.01) -> tuple[np.ndarray, np.ndarray]:
    xs, ptr = [], [0]
    for x, y, w, h in rects:
        u, v = np.meshgrid(np.arange(x, x + w, step), np.arange(y, y + h, step))
        xs.append(np.column_stack([u.ravel(), v.ravel()]))
        ptr.append(ptr[-1] + u.size)
    return np.concatenate(xs), np.array(ptr, np.int64)


def _blank() -> np.ndarray:
    """A 3 x 2 in blank at 100 DPI: two printed oval outlines and a printed name beside each."""
    img = np.full((200, 300), 240, np.uint8)
    for cy in (50, 150):
        cv2.ellipse(img, (60, cy), (18, 11), 0, 0, 360, 20, 2)
        cv2.putText(img, "HALE", (100, cy + 8), cv2.FONT_HERSHEY_SIMPLEX, 0.7, 20, 2)
    return img


UPRIGHT = np.array([[DPI, 0.0, 0.0], [0.0, DPI, 0.0]])
OVALS = [(0.38, 0.34, 0.44, 0.32), (0.38, 1.34, 0.44, 0.32)]  # each oval with its printed outline


def _both(image, affine, blank, xy, ptr, **kw):
    kw = dict(paper=240.0, ink=20.0, blank_paper=240.0, blank_ink=20.0, reach=1) | kw
    return new_ink(image, affine, blank, UPRIGHT, xy, ptr, **kw), reference.new_ink(
        image, affine, blank, UPRIGHT, xy, ptr, **kw
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**31 - 1),
    angle=st.floats(-3.0, 3.0),
    scale=st.floats(0.97, 1.03),
    shift=st.tuples(st.floats(-40.0, 40.0), st.floats(-40.0, 40.0)),
    reach=st.integers(0, 3),
    levels=st.tuples(st.integers(150, 255), st.integers(0, 120)),
)
def test_kernel_agrees_with_its_numpy_twin(seed, angle, scale, shift, reach, levels):
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (220, 330), dtype=np.uint8)
    blank = rng.integers(0, 256, (200, 300), dtype=np.uint8)
    t = np.radians(angle)
    affine = DPI * scale * np.array([[np.cos(t), -np.sin(t), 0.0], [np.sin(t), np.cos(t), 0.0]])
    affine[:, 2] = shift
    # Areas reaching off both images, one empty area, points in any order.
    xy = rng.uniform(-0.3, 3.6, (int(rng.integers(0, 400)), 2))
    cuts = np.sort(rng.integers(0, len(xy) + 1, 4))
    ptr = np.concatenate([[0], cuts, [len(xy)]]).astype(np.int64)
    kw = dict(paper=float(levels[0]), ink=float(levels[1]), blank_paper=230.0, blank_ink=35.0, reach=reach)
    fast, slow = _both(image, affine, blank, xy, ptr, **kw)
    assert fast.shape == (5, 2)
    assert_allclose(fast, slow, rtol=1e-12, atol=1e-12)


def test_a_printed_oval_outline_is_not_new_ink_even_a_pixel_off():
    blank = _blank()
    xy, ptr = _grid(OVALS)
    shifted = UPRIGHT.copy()
    shifted[:, 2] = (1.0, -1.0)  # the scan sits a pixel off the blank
    scan = cv2.warpAffine(blank, np.float32([[1, 0, 1], [0, 1, -1]]), (300, 200), borderValue=240)
    fast, slow = _both(scan, shifted, blank, xy, ptr)
    assert_allclose(fast, slow)
    assert fast.max() == 0.0
    # The same outline without the template's help (an empty blank) is read as ink.
    empty = np.full_like(blank, 240)
    assert new_ink(scan, shifted, empty, UPRIGHT, xy, ptr, paper=240, ink=20, blank_paper=240, blank_ink=20)[0, 1] > 0.1


def test_a_filled_oval_and_an_x_by_the_name_are_new_ink():
    blank = _blank()
    voted = blank.copy()
    cv2.ellipse(voted, (60, 50), (16, 9), 0, 0, 360, 30, -1)  # the first oval filled
    cv2.line(voted, (180, 135), (200, 160), 25, 3)  # an X beside the second name
    cv2.line(voted, (200, 135), (180, 160), 25, 3)
    xy, ptr = _grid(OVALS + [(1.7, 1.3, 0.4, 0.4)])
    out, _ = _both(voted, UPRIGHT, blank, xy, ptr)
    assert out[0, 1] > 0.2 and out[1, 1] == 0.0 and out[2, 1] > 0.1


def test_wrapper_checks_its_inputs():
    blank = _blank()
    xy, ptr = _grid(OVALS)
    kw = dict(paper=240.0, ink=20.0, blank_paper=240.0, blank_ink=20.0)
    with pytest.raises(ValueError, match="uint8"):
        new_ink(blank.astype(np.float32), UPRIGHT, blank, UPRIGHT, xy, ptr, **kw)
    with pytest.raises(ValueError, match="blank_affine"):
        new_ink(blank, UPRIGHT, blank, UPRIGHT[:, :2], xy, ptr, **kw)
    with pytest.raises(ValueError, match="ptr"):
        new_ink(blank, UPRIGHT, blank, UPRIGHT, xy, ptr[:-1], **kw)
    with pytest.raises(ValueError, match="lighter"):
        new_ink(blank, UPRIGHT, blank, UPRIGHT, xy, ptr, **(kw | {"blank_ink": 250.0}))
